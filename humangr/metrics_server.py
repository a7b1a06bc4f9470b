"""A small anyio HTTP server for Prometheus: ``GET /metrics`` of an injected registry.

It runs as a task in the caller's task group (no thread), so it stops — and its port closes —
when that group is cancelled. It also answers ``GET /healthz`` (for container health checks).
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from functools import partial

import anyio
from anyio.abc import SocketAttribute, SocketStream, TaskStatus
from anyio.streams.buffered import BufferedByteReceiveStream
from anyio.streams.stapled import MultiListener
from prometheus_client import CollectorRegistry
from prometheus_client.exposition import choose_encoder

from humangr.engine.errors import ConfigError

__all__ = ["metrics_server", "respond", "serve_metrics"]

log = logging.getLogger("humangr.metrics")

MAX_REQUEST_HEAD = 16_384
REQUEST_TIMEOUT = 10.0


async def _bind(host: str, port: int) -> MultiListener[SocketStream]:
    try:
        return await anyio.create_tcp_listener(local_host=host, local_port=port)
    except OSError as exc:
        raise ConfigError(f"cannot serve /metrics on {host}:{port}: {exc}") from exc


def _port(listener: MultiListener[SocketStream]) -> int:
    return int(listener.extra(SocketAttribute.local_port))


async def serve_metrics(
    registry: CollectorRegistry,
    host: str = "127.0.0.1",
    port: int = 0,
    *,
    task_status: TaskStatus[int] = anyio.TASK_STATUS_IGNORED,
) -> None:
    """Serve ``registry`` on ``http://host:port/metrics`` until cancelled.

    Use with ``await tg.start(serve_metrics, registry, host, port)``, which returns the bound
    port (useful with ``port=0``). A port that cannot be bound is a ``ConfigError``.
    """
    listener = await _bind(host, port)
    async with listener:
        task_status.started(_port(listener))
        await listener.serve(partial(_handle, registry))


@asynccontextmanager
async def metrics_server(
    registry: CollectorRegistry, host: str = "127.0.0.1", port: int = 0
) -> AsyncIterator[int]:
    """Serve ``registry`` while the block runs; yields the bound port, closed on exit.

    A port that cannot be bound is a ``ConfigError``, raised before the block runs.
    """
    listener = await _bind(host, port)
    async with listener, anyio.create_task_group() as tg:
        tg.start_soon(listener.serve, partial(_handle, registry))
        try:
            yield _port(listener)
        finally:
            tg.cancel_scope.cancel()


def _response(status: str, content_type: str, body: bytes, *, head: bool = False) -> bytes:
    lines = [
        f"HTTP/1.1 {status}",
        f"Content-Type: {content_type}",
        f"Content-Length: {len(body)}",
        "Connection: close",
        "",
        "",
    ]
    return "\r\n".join(lines).encode("latin-1") + (b"" if head else body)


def respond(registry: CollectorRegistry, method: str, target: str, accept: str) -> bytes:
    """The HTTP response to one request (pure, apart from collecting the registry)."""
    path = target.split("?", 1)[0]
    text = "text/plain; charset=utf-8"
    if method not in ("GET", "HEAD"):
        return _response("405 Method Not Allowed", text, b"only GET and HEAD\n")
    head = method == "HEAD"
    if path == "/metrics":
        encoder, content_type = choose_encoder(accept)
        try:
            body = encoder(registry)
        except Exception:
            log.exception("collecting the metrics failed")
            return _response("500 Internal Server Error", text, b"collecting metrics failed\n")
        return _response("200 OK", content_type, body, head=head)
    if path == "/healthz":
        return _response("200 OK", text, b"ok\n", head=head)
    return _response("404 Not Found", text, b"not found; metrics are on /metrics\n", head=head)


def _accept_header(head: bytes) -> str:
    for line in head.split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"accept":
            return value.strip().decode("latin-1")
    return ""


async def _handle(registry: CollectorRegistry, stream: SocketStream) -> None:
    async with stream:
        try:
            with anyio.fail_after(REQUEST_TIMEOUT):
                buffered = BufferedByteReceiveStream(stream)
                head = await buffered.receive_until(b"\r\n\r\n", MAX_REQUEST_HEAD)
                parts = head.split(b"\r\n", 1)[0].decode("latin-1").split()
                if len(parts) != 3 or not parts[2].startswith("HTTP/"):
                    await stream.send(_response("400 Bad Request", "text/plain", b"bad request\n"))
                    return
                method, target, _ = parts
                await stream.send(respond(registry, method, target, _accept_header(head)))
        except (
            TimeoutError,
            anyio.IncompleteRead,
            anyio.DelimiterNotFound,
            anyio.BrokenResourceError,
            anyio.ClosedResourceError,
            anyio.EndOfStream,
        ) as exc:
            log.debug("metrics request dropped: %s", type(exc).__name__)
