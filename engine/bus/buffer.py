"""``BoundedBuffer``: the bounded, never-waiting buffer behind every subscription."""

from __future__ import annotations

from collections import deque
from collections.abc import AsyncIterator

import anyio
import anyio.lowlevel

from humangr.engine.errors import SlowConsumerError

from .base import Msg

__all__ = ["BoundedBuffer"]


class BoundedBuffer:
    """``deliver`` puts a message in the buffer without waiting; a full buffer drops it and
    counts it, and the next iteration raises ``SlowConsumerError`` once with the count, as NATS
    does (a bus that waits for room first counts what it gave up on with ``count_dropped``).
    Iteration drains what is buffered before it awaits, so a busy consumer pays no loop turn
    per message. After ``close_sender`` the buffered messages are still delivered, then
    iteration ends; after ``close_receiver`` iteration ends at once.

    A message that finds a consumer waiting is promised to it and takes no room, as a memory
    object stream hands it over; a consumer cancelled before it took its message passes the
    promise to the next one waiting (a plain deque and one wake-up event per waiting consumer
    cost a fraction of the stream's hand-over).
    """

    def __init__(self, subject: str, capacity: int, *, size: int | None = None) -> None:
        if capacity < 1:
            raise ValueError("max_pending must be at least 1")
        self.subject = subject
        self.capacity = capacity
        self._limit = size or capacity
        """What the buffer holds at most (``offer`` may fill it past ``capacity`` up to here)."""
        self._items: deque[Msg] = deque()
        self._waiting: deque[anyio.Event] = deque()
        self._promised: set[anyio.Event] = set()
        """Consumers woken for a message they have not taken yet (each holds one message)."""
        self._sending = True
        self._receiving = True
        self._dropped = 0
        self._reported = 0
        self._waited = 0.0

    @property
    def dropped(self) -> int:
        return self._dropped

    @property
    def pending(self) -> int:
        return len(self._items)

    def has_room(self) -> bool:
        return len(self._items) - len(self._promised) < self.capacity

    def _full(self) -> bool:
        return len(self._items) - len(self._promised) >= self._limit

    def _put(self, msg: Msg) -> None:
        self._items.append(msg)
        self._promise()

    def _promise(self) -> None:
        """Wake the longest-waiting consumer for a buffered message no one was promised."""
        if self._waiting and len(self._items) > len(self._promised):
            event = self._waiting.popleft()
            self._promised.add(event)
            event.set()

    def _wake_all(self) -> None:
        waiting, self._waiting = self._waiting, deque()
        for event in waiting:
            event.set()

    def offer(self, msg: Msg) -> bool:
        """Buffer without waiting; ``False`` if the buffer is full or closed (nothing counted)."""
        if not (self._sending and self._receiving) or self._full():
            return False
        self._put(msg)
        return True

    def deliver(self, msg: Msg) -> bool:
        """Buffer without waiting; a full buffer drops the message and counts it."""
        if not (self._sending and self._receiving):
            return False
        if self._full():
            self._dropped += 1
            return False
        self._put(msg)
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
        if not self._receiving:
            raise StopAsyncIteration
        if self._items:
            return self._items.popleft()
        if not self._sending:
            raise StopAsyncIteration
        return None

    async def _take(self) -> Msg:
        while True:
            msg = self._take_nowait()
            if msg is not None:
                return msg
            event = anyio.Event()
            self._waiting.append(event)
            try:
                await event.wait()
                if event in self._promised:  # not taken by one whose cancellation is pending
                    await anyio.lowlevel.checkpoint_if_cancelled()
            except BaseException:  # cancelled: re-raised, after handing on what it was promised
                if event in self._promised:
                    self._promised.discard(event)
                    self._promise()
                elif event in self._waiting:
                    self._waiting.remove(event)
                raise
            self._promised.discard(event)

    def __aiter__(self) -> AsyncIterator[Msg]:
        return self

    async def __anext__(self) -> Msg:
        self._report_drops()
        msg = self._take_nowait()
        return msg if msg is not None else await self._take()

    def close_sender(self) -> None:
        """No more messages: what is buffered is still delivered, then iteration ends."""
        self._sending = False
        self._wake_all()

    def close_receiver(self) -> None:
        """Iteration ends at once; what is buffered is dropped (not counted)."""
        self._receiving = False
        self._items.clear()
        self._promised.clear()
        self._wake_all()
