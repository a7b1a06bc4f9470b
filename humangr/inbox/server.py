"""Serving the inbox: a socket bound before anything starts (a busy port is a ``ConfigError``),
uvicorn on it, the live-update hub beside it; all of it stops when its task group is
cancelled — the live streams first, then uvicorn, within a grace period."""

from __future__ import annotations

import ipaddress
import socket
import ssl
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

import anyio
from anyio.abc import TaskStatus

from humangr.engine.errors import ConfigError
from humangr.engine.metrics import Metrics
from humangr.reviewing import Channel

from .app import Inbox, InboxSettings
from .live import Hub
from .routes import create_app
from .tokens import Reviewers

__all__ = ["GRACE_S", "Tls", "is_loopback", "listen", "serve_inbox"]

GRACE_S = 3.0


@dataclass(frozen=True, slots=True)
class Tls:
    """The certificate chain and private key files to serve HTTPS with."""

    cert: str
    key: str


def is_loopback(host: str) -> bool:
    """Whether ``host`` is only reachable from this machine."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def listen(host: str, port: int) -> socket.socket:
    """A listening socket on ``host:port`` (port 0: a free one)."""
    if not 0 <= port <= 65_535:
        raise ConfigError(f"port {port} is out of range; give 0-65535 (0: a free port)")
    try:
        return socket.create_server((host, port))
    except OSError as exc:
        raise ConfigError(
            f"cannot serve the inbox on {host}:{port}: {exc.strerror or exc}"
        ) from exc


def _config(app: object, tls: Tls | None, settings: InboxSettings) -> object:
    import uvicorn

    from .deadlines import deadline_protocol

    config = uvicorn.Config(
        app,  # type: ignore[arg-type]
        # slow clients: read deadlines on headers and bodies, 16 KiB of headers at most, idle
        # kept-alive connections closed after 5 s
        http=deadline_protocol(settings.header_timeout, settings.body_timeout),
        h11_max_incomplete_event_size=16_384,
        timeout_keep_alive=5,
        log_config=None,
        log_level="warning",
        access_log=False,
        lifespan="off",
        server_header=False,
        proxy_headers=False,
        timeout_graceful_shutdown=int(GRACE_S),
        ssl_certfile=tls.cert if tls else None,
        ssl_keyfile=tls.key if tls else None,
    )
    try:
        config.load()
    except (OSError, ssl.SSLError) as exc:
        raise ConfigError(f"cannot load the TLS certificate or key: {exc}") from None
    return config


@contextmanager
def _closing(sock: socket.socket) -> Iterator[socket.socket]:
    try:
        yield sock
    finally:
        sock.close()


async def serve_inbox(
    channel: Channel,
    reviewers: Reviewers,
    metrics: Metrics,
    *,
    host: str = "127.0.0.1",
    port: int = 8080,
    settings: InboxSettings | None = None,
    tls: Tls | None = None,
    task_status: TaskStatus[int] = anyio.TASK_STATUS_IGNORED,
) -> None:
    """Serve the inbox until cancelled; ``await tg.start(serve_inbox, ...)`` returns the bound
    port once it accepts connections."""
    import uvicorn

    class Embedded(uvicorn.Server):
        @contextmanager
        def capture_signals(self) -> Iterator[None]:
            yield  # the command handles SIGINT and SIGTERM

    settings = settings or InboxSettings()
    hub = Hub(
        channel,
        metrics,
        poll_s=settings.poll_s,
        queue_size=settings.queue_size,
        max_clients=settings.max_clients,
        max_per_reviewer=settings.max_streams_per_reviewer,
    )
    app = create_app(Inbox(channel, reviewers, metrics, hub, settings))
    server = Embedded(_config(app, tls, settings))  # type: ignore[arg-type]
    with _closing(listen(host, port)) as sock:
        bound = int(sock.getsockname()[1])
        async with anyio.create_task_group() as tg:
            await tg.start(hub.run)
            finished = anyio.Event()
            serving = anyio.CancelScope(shield=True)

            async def run() -> None:
                with serving:
                    try:
                        await server.serve(sockets=[sock])
                    finally:
                        finished.set()

            tg.start_soon(run)
            task_status.started(bound)
            try:
                await finished.wait()
            finally:
                server.should_exit = True
                with anyio.CancelScope(shield=True), anyio.move_on_after(GRACE_S + 1):
                    await finished.wait()
                serving.cancel()
                tg.cancel_scope.cancel()
