"""``GET /events``: the live updates as server-sent events, for a signed-in page.

Each page reads its own bounded queue of the ``Hub``; a ping comment every ``PING_S`` seconds
keeps proxies from closing the stream. The stream ends when the page goes away, when the hub
drops the page (it fell behind) or when the inbox stops; the browser then reconnects after
``retry`` milliseconds and reloads what it shows.
"""

from __future__ import annotations

import contextlib

import anyio
from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response, StreamingResponse
from starlette.types import Receive, Scope, Send

from humangr.engine.metrics import Metrics

from .app import Inbox
from .live import Hub, TooManyClients, TooManyStreams

__all__ = ["PING_S", "EventStream", "live_events"]

PING_S = 15.0
RETRY_MS = 2_000


class EventStream(StreamingResponse):
    """A ``text/event-stream`` response fed by one page's queue of the hub."""

    def __init__(self, hub: Hub, reviewer: str = "", metrics: Metrics | None = None) -> None:
        super().__init__(
            iter(()), media_type="text/event-stream", headers={"x-accel-buffering": "no"}
        )
        self.hub = hub
        self.reviewer = reviewer
        self.metrics = metrics

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        try:
            async with self.hub.events(self.reviewer) as events:
                await send(
                    {"type": "http.response.start", "status": 200, "headers": self.raw_headers}
                )
                async with anyio.create_task_group() as tg:

                    async def until_gone() -> None:
                        while (await receive())["type"] != "http.disconnect":
                            pass
                        tg.cancel_scope.cancel()

                    tg.start_soon(until_gone)
                    await self._body(send, f"retry: {RETRY_MS}\n\n".encode())
                    while True:
                        with anyio.move_on_after(PING_S) as waited:
                            try:
                                event = await events.receive()
                            except anyio.EndOfStream:
                                break
                        chunk = b": ping\n\n" if waited.cancelled_caught else event.sse()
                        await self._body(send, chunk)
                    tg.cancel_scope.cancel()
        except TooManyStreams as exc:
            if self.metrics is not None:
                self.metrics.inbox_refused.labels(reason="too_many_streams").inc()
            await PlainTextResponse(f"{exc}\n", status_code=429)(scope, receive, send)
            return
        except TooManyClients as exc:
            await PlainTextResponse(f"{exc}\n", status_code=503)(scope, receive, send)
            return
        with contextlib.suppress(OSError):
            await send({"type": "http.response.body", "body": b"", "more_body": False})

    @staticmethod
    async def _body(send: Send, chunk: bytes) -> None:
        await send({"type": "http.response.body", "body": chunk, "more_body": True})


async def live_events(request: Request) -> Response:
    inbox: Inbox = request.app.state.inbox
    reviewer = inbox.session(request).reviewer
    if reviewer is None:
        return inbox.refuse("signed_out", "sign in first", 401)
    return EventStream(inbox.hub, reviewer, inbox.metrics)
