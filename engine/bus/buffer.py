"""``BoundedBuffer``: the bounded, never-waiting buffer behind every subscription."""

from __future__ import annotations

from collections.abc import AsyncIterator

import anyio
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream

from humangr.engine.errors import SlowConsumerError

from .base import Msg

__all__ = ["BoundedBuffer"]


class BoundedBuffer:
    """``deliver`` puts a message in the buffer without waiting; a full buffer drops it and
    counts it, and the next iteration raises ``SlowConsumerError`` once with the count, as NATS
    does (a bus that waits for room first counts what it gave up on with ``count_dropped``).
    Iteration drains what is buffered before it awaits, so a busy consumer pays no loop turn
    per message. After ``close_sender`` the buffered messages are still delivered, then
    iteration ends.
    """

    def __init__(self, subject: str, capacity: int, *, size: int | None = None) -> None:
        if capacity < 1:
            raise ValueError("max_pending must be at least 1")
        self.subject = subject
        self.capacity = capacity
        self._send: MemoryObjectSendStream[Msg]
        self._receive: MemoryObjectReceiveStream[Msg]
        self._send, self._receive = anyio.create_memory_object_stream[Msg](size or capacity)
        self._dropped = 0
        self._reported = 0
        self._waited = 0.0

    @property
    def dropped(self) -> int:
        return self._dropped

    @property
    def pending(self) -> int:
        return self._send.statistics().current_buffer_used

    def has_room(self) -> bool:
        return self.pending < self.capacity

    def offer(self, msg: Msg) -> bool:
        """Buffer without waiting; ``False`` if the buffer is full or closed (nothing counted)."""
        try:
            self._send.send_nowait(msg)
        except (anyio.WouldBlock, anyio.BrokenResourceError, anyio.ClosedResourceError):
            return False
        return True

    def deliver(self, msg: Msg) -> bool:
        """Buffer without waiting; a full buffer drops the message and counts it."""
        try:
            self._send.send_nowait(msg)
        except anyio.WouldBlock:
            self._dropped += 1
            return False
        except (anyio.BrokenResourceError, anyio.ClosedResourceError):
            return False
        return True

    def count_dropped(self, count: int, *, waited: float = 0.0) -> None:
        """Count messages lost for this subscriber (after publishers waited ``waited`` s)."""
        self._dropped += count
        self._waited = max(self._waited, waited)

    def _report_drops(self) -> None:
        if self._dropped > self._reported:
            newly = self._dropped - self._reported
            self._reported = self._dropped
            waited, self._waited = self._waited, 0.0
            raise SlowConsumerError(self.subject, newly, self.capacity, waited=waited)

    def _take_nowait(self) -> Msg | None:
        """A buffered message, ``None`` when empty; ``StopAsyncIteration`` once closed."""
        try:
            return self._receive.receive_nowait()
        except anyio.WouldBlock:
            return None
        except (anyio.EndOfStream, anyio.ClosedResourceError):
            raise StopAsyncIteration from None

    async def _take(self) -> Msg:
        try:
            return await self._receive.receive()
        except (anyio.EndOfStream, anyio.ClosedResourceError):
            raise StopAsyncIteration from None

    def __aiter__(self) -> AsyncIterator[Msg]:
        return self

    async def __anext__(self) -> Msg:
        self._report_drops()
        msg = self._take_nowait()
        return msg if msg is not None else await self._take()

    def close_sender(self) -> None:
        self._send.close()

    def close_receiver(self) -> None:
        self._receive.close()
