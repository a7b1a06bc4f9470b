"""The one uvicorn embedding: an ASGI app served on a socket bound beforehand (a taken port is
a ``ConfigError`` before anything starts), inside the caller's task group. ``await
tg.start(serve_asgi, app, sock)`` returns the bound port once it accepts connections (port 0:
a free one); cancelling the group stops uvicorn gracefully within ``grace_s``.

uvicorn is in the ``inbox`` extra: it is imported only when an app is served, so the core
(``serve --metrics-port``, served by prometheus_client, see ``humangr.metrics_server``) never
needs it."""

from __future__ import annotations

import socket
import ssl
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Literal

import anyio
from anyio.abc import TaskStatus

from humangr.contracts.errors import ConfigError

__all__ = ["GRACE_S", "Tls", "listen", "serve_asgi"]

GRACE_S = 3.0


@dataclass(frozen=True, slots=True)
class Tls:
    """The certificate chain and private key files to serve HTTPS with."""

    cert: str
    key: str


def listen(host: str, port: int, what: str = "HTTP") -> socket.socket:
    """A listening socket on ``host:port`` (port 0: a free one) for serving ``what``; a port
    out of range or taken is a ``ConfigError`` naming it."""
    if not 0 <= port <= 65_535:
        raise ConfigError(f"port {port} is out of range; give 0-65535 (0: a free port)")
    try:
        return socket.create_server((host, port))
    except OSError as exc:
        raise ConfigError(
            f"cannot serve {what} on {host}:{port}: {exc.strerror or exc}; "
            "choose a free port (0: any free one)"
        ) from exc


def _config(
    app: Any,
    *,
    http: Any,
    tls: Tls | None,
    lifespan: Literal["on", "off"],
    grace_s: float,
) -> Any:
    import uvicorn

    config = uvicorn.Config(
        app,
        http="h11" if http is None else http,
        # 16 KiB of headers at most, idle kept-alive connections closed after 5 s
        h11_max_incomplete_event_size=16_384,
        timeout_keep_alive=5,
        log_config=None,
        log_level="warning",
        access_log=False,
        lifespan=lifespan,
        server_header=False,
        proxy_headers=False,
        timeout_graceful_shutdown=max(1, int(grace_s)),
        ssl_certfile=tls.cert if tls else None,
        ssl_keyfile=tls.key if tls else None,
    )
    try:
        config.load()
    except (OSError, ssl.SSLError) as exc:
        raise ConfigError(f"cannot load the TLS certificate or key: {exc}") from None
    return config


def _server(config: Any, ready: anyio.Event) -> Any:
    import uvicorn

    class Embedded(uvicorn.Server):
        @contextmanager
        def capture_signals(self) -> Iterator[None]:
            yield  # the command handles SIGINT and SIGTERM

        async def startup(self, sockets: list[socket.socket] | None = None) -> None:
            try:
                await super().startup(sockets)
            finally:
                ready.set()

    return Embedded(config)


async def serve_asgi(
    app: Any,
    sock: socket.socket,
    *,
    http: Any = None,
    tls: Tls | None = None,
    lifespan: Literal["on", "off"] = "off",
    grace_s: float = GRACE_S,
    task_status: TaskStatus[int] = anyio.TASK_STATUS_IGNORED,
) -> None:
    """Serve the ASGI ``app`` on ``sock`` (from ``listen``) until cancelled or until uvicorn
    stops; ``http`` is a uvicorn protocol class (the inbox's read deadlines), ``tls`` the files
    for HTTPS. The socket is closed on return."""
    try:
        ready, finished = anyio.Event(), anyio.Event()
        config = _config(app, http=http, tls=tls, lifespan=lifespan, grace_s=grace_s)
        server = _server(config, ready)
        bound = int(sock.getsockname()[1])
        serving = anyio.CancelScope(shield=True)

        async def run() -> None:
            with serving:
                try:
                    await server.serve(sockets=[sock])
                finally:
                    ready.set()
                    finished.set()

        async with anyio.create_task_group() as tg:
            tg.start_soon(run)
            await ready.wait()
            if not server.started:
                raise ConfigError(f"the HTTP server on port {bound} stopped while starting")
            task_status.started(bound)
            try:
                await finished.wait()
            finally:
                server.should_exit = True
                with anyio.CancelScope(shield=True), anyio.move_on_after(grace_s + 1):
                    await finished.wait()
                serving.cancel()
    finally:
        sock.close()
