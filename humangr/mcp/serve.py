"""Run the MCP server over stdio or streamable HTTP, with the review backend in the same loop."""

from __future__ import annotations

import logging
import signal
import socket
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from functools import partial
from typing import Literal

import anyio

from humangr import serving
from humangr.contracts import DEFAULT_PREFIX
from humangr.engine.config import ReviewConfig
from humangr.engine.llm import LLMClient
from humangr.engine.trust import Trust
from humangr.serving import serve_asgi

from .backend import ReviewBackend, in_process_backend, nats_backend
from .server import HumanLayerMCP

__all__ = ["Transport", "listen", "open_backend", "serve_http", "serve_stdio"]

log = logging.getLogger("humangr.mcp")
Transport = Literal["stdio", "http"]


@asynccontextmanager
async def open_backend(
    config: ReviewConfig,
    llm: LLMClient | None,
    *,
    nats_url: str | Sequence[str] | None = None,
    prefix: str = DEFAULT_PREFIX,
    timeout: float = 300.0,
    trust: Trust | None = None,
) -> AsyncIterator[ReviewBackend]:
    """The engine in process (no ``nats_url``), or a connection to one behind ``nats_url``
    whose decisions must be signed by ``trust``'s keys (see ``nats_backend``)."""
    if nats_url is None:
        async with in_process_backend(config, llm) as engine:
            yield engine
    else:
        async with nats_backend(
            nats_url,
            config,
            prefix=prefix,
            timeout=timeout,
            llm_review=llm is not None,
            trust=trust,
        ) as remote:
            yield remote


async def serve_stdio(app: HumanLayerMCP) -> None:
    """Serve one client on standard input and output until it closes the connection."""
    from mcp.server.stdio import stdio_server

    server = app.server()
    log.info("humangr mcp: serving on stdio (%s, %s)", app.backend.mode, app.llm_note)
    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())


def listen(host: str, port: int) -> socket.socket:
    """A listening socket for ``serve_http`` (port 0: a free port); bind it before starting
    the engine so a busy port fails fast with a clear ``ConfigError``."""
    return serving.listen(host, port, "MCP")


async def serve_http(app: HumanLayerMCP, sock: socket.socket) -> None:
    """Serve streamable HTTP on ``http://<sock>/mcp`` until SIGINT or SIGTERM, then stop
    gracefully (the engine drains after the HTTP server stops). ``sock`` comes from
    ``listen``, bound before the engine starts so a busy port fails fast with a clear error."""
    host, port = sock.getsockname()[:2]
    asgi = app.server().streamable_http_app(host=host)
    async with anyio.create_task_group() as tg:
        await tg.start(partial(serve_asgi, asgi, sock, lifespan="on"))
        log.warning(
            "humangr mcp: serving on http://%s:%d/mcp (%s, %s)",
            host,
            port,
            app.backend.mode,
            app.llm_note,
        )
        with anyio.open_signal_receiver(signal.SIGINT, signal.SIGTERM) as signals:
            async for signum in signals:
                log.warning("humangr mcp: signal %s, shutting down", signum)
                break
        tg.cancel_scope.cancel()
