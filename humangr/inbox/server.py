"""Serving the inbox: a socket bound before anything starts (a busy port is a ``ConfigError``),
uvicorn on it (through ``humangr.serving``, with the inbox's read deadlines), the live-update
hub beside it; all of it stops when its task group is cancelled, within a grace period."""

from __future__ import annotations

import ipaddress
from functools import partial

import anyio
from anyio.abc import TaskStatus

from humangr.engine.metrics import Metrics
from humangr.reviewing import Channel
from humangr.serving import GRACE_S, Tls, listen, serve_asgi

from .app import Inbox, InboxSettings
from .deadlines import deadline_protocol
from .live import Hub
from .routes import create_app
from .tokens import Reviewers

__all__ = ["GRACE_S", "Tls", "is_loopback", "serve_inbox"]


def is_loopback(host: str) -> bool:
    """Whether ``host`` is only reachable from this machine."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


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
    settings = settings or InboxSettings()
    sock = listen(host, port, "the inbox")
    hub = Hub(
        channel,
        metrics,
        poll_s=settings.poll_s,
        queue_size=settings.queue_size,
        max_clients=settings.max_clients,
        max_per_reviewer=settings.max_streams_per_reviewer,
    )
    app = create_app(Inbox(channel, reviewers, metrics, hub, settings))
    http = deadline_protocol(settings.header_timeout, settings.body_timeout)
    try:
        async with anyio.create_task_group() as tg:
            await tg.start(hub.run)
            bound = await tg.start(partial(serve_asgi, app, sock, http=http, tls=tls))
            task_status.started(bound)
            await anyio.sleep_forever()
    finally:
        sock.close()
