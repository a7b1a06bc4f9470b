"""Read deadlines of the inbox's HTTP connections: a client that sends its request line and
headers too slowly (``header_s``), or its body (``body_s``), is disconnected.

uvicorn bounds the size of the headers (h11's incomplete-event limit) and closes idle
keep-alive connections, but waits for ever for a request that trickles in a byte at a time;
a few hundred such connections would hold the inbox. The protocol below arms a timer when a
request may begin (a connection opens, or the next request of a kept-alive one sends its first
bytes) and another once its headers are in and a body follows; the request's arrival in full
disarms them. A response being written (a live-update stream) is never timed.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

__all__ = ["deadline_protocol"]

log = logging.getLogger("humangr.inbox")


class _DeadlineH11(H11Protocol):
    header_s = 10.0
    body_s = 30.0

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._deadline: asyncio.TimerHandle | None = None
        self._reading: object = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._arm()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        self._arm()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if self.conn.their_state is h11.SEND_BODY:
            self._arm()  # answered before its body came in full: the body still has its deadline
        else:
            self._disarm()  # the keep-alive timer watches the idle connection now

    def _arm(self) -> None:
        state = self.conn.their_state
        if state is h11.IDLE:
            phase, limit = "headers", self.header_s
        elif state is h11.SEND_BODY:
            phase, limit = "body", self.body_s
        else:  # the request is in: nothing more to wait for from the client
            self._disarm()
            return
        if self._reading == phase and self._deadline is not None:
            return
        if state is h11.IDLE and self.timeout_keep_alive_task is not None:
            return  # an idle kept-alive connection: uvicorn's keep-alive timeout applies
        self._disarm()
        self._reading = phase
        self._deadline = self.loop.call_later(limit, self._too_slow, phase, limit)

    def _disarm(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
        self._deadline = None
        self._reading = None

    def _too_slow(self, phase: str, limit: float) -> None:
        self._deadline = None
        if self.transport.is_closing():
            return
        log.info(
            "an inbox client sent its request %s too slowly (> %g s): disconnected", phase, limit
        )
        self.transport.close()


def deadline_protocol(header_s: float, body_s: float) -> type[H11Protocol]:
    """An HTTP/1.1 protocol class for ``uvicorn.Config(http=...)`` with these deadlines."""
    if header_s <= 0 or body_s <= 0:
        raise ValueError("the inbox's header and body timeouts must be positive")
    return type("DeadlineH11", (_DeadlineH11,), {"header_s": header_s, "body_s": body_s})
