"""``NatsSubscription``: the bounded buffer behind every ``NatsBus`` subscription."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Callable

import anyio
import nats.errors
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream
from nats.aio.msg import Msg as NatsMsg
from nats.aio.subscription import Subscription as CoreSubscription

from engine.errors import SlowConsumerError

from .base import Msg
from .jetstream import PullConsumer

__all__ = ["CLEANUP_TIMEOUT", "NatsSubscription", "from_core"]

log = logging.getLogger("humangr.bus")
CLEANUP_TIMEOUT = 5.0
"""Longest wait for an unsubscribe or close to reach the server."""


def from_core(msg: NatsMsg) -> Msg:
    """A bus ``Msg`` for a core NATS message (empty headers become ``None``)."""
    data = msg.data if type(msg.data) is bytes else bytes(msg.data)
    return Msg(msg.subject, data, dict(msg.headers) if msg.headers else None, msg.reply or None)


class NatsSubscription:
    """A ``NatsBus`` subscription: a bounded buffer fed by a core subscription or a pull loop.

    Core messages that find the buffer full are dropped and reported once as
    ``SlowConsumerError``, as on ``MemoryBus``. A pull subscription never fetches more than the
    buffer has room for, so durable messages wait on the server instead of being dropped.
    """

    def __init__(self, subject: str, queue: str | None, max_pending: int, *,
                 on_close: Callable[[NatsSubscription], None],
                 pull_batch: int | None = None) -> None:
        if max_pending < 1:
            raise ValueError("max_pending must be at least 1")
        self.subject = subject
        self.queue = queue
        self.capacity = max_pending if pull_batch is None else min(max_pending, pull_batch)
        self.consumer: str | None = None
        """The durable JetStream consumer this subscription pulls from, if any."""
        self.closed = False
        self._on_close = on_close
        self._send: MemoryObjectSendStream[Msg]
        self._receive: MemoryObjectReceiveStream[Msg]
        self._send, self._receive = anyio.create_memory_object_stream[Msg](
            max_pending if pull_batch is None else 2 * self.capacity
        )
        self._dropped = 0
        self._reported = 0
        self.core: CoreSubscription | None = None
        self.pull: PullConsumer | None = None

    @property
    def dropped(self) -> int:
        return self._dropped

    @property
    def pending(self) -> int:
        return self._send.statistics().current_buffer_used

    def offer(self, msg: Msg) -> bool:
        """Buffer without waiting; ``False`` if the buffer is full or closed."""
        try:
            self._send.send_nowait(msg)
        except (anyio.WouldBlock, anyio.BrokenResourceError, anyio.ClosedResourceError):
            return False
        return True

    def deliver(self, msg: Msg) -> None:
        """Buffer without waiting; a full buffer drops the message and counts it."""
        if not self.offer(msg) and not self.closed:
            self._dropped += 1

    def count_dropped(self, count: int) -> None:
        self._dropped += count

    async def on_core(self, msg: NatsMsg) -> None:
        """The callback of the core subscription."""
        self.deliver(from_core(msg))

    def __aiter__(self) -> AsyncIterator[Msg]:
        return self

    async def __anext__(self) -> Msg:
        if self._dropped > self._reported:
            newly = self._dropped - self._reported
            self._reported = self._dropped
            raise SlowConsumerError(self.subject, newly, self.capacity)
        while True:
            try:
                return self._receive.receive_nowait()
            except anyio.WouldBlock:
                pass
            except (anyio.EndOfStream, anyio.ClosedResourceError):
                raise StopAsyncIteration from None
            if self.pull is not None:
                await self.pull.wait(self.capacity - self.pending)
                continue
            try:
                return await self._receive.receive()
            except (anyio.EndOfStream, anyio.ClosedResourceError):
                raise StopAsyncIteration from None

    async def unsubscribe(self) -> None:
        """Stop receiving; what is buffered can still be iterated, then iteration ends."""
        if self.closed:
            return
        self.closed = True
        self._send.close()
        self._on_close(self)
        if self.pull is not None:
            await self.pull.close()
        if self.core is not None:
            with anyio.move_on_after(CLEANUP_TIMEOUT, shield=True):
                try:
                    await self.core.unsubscribe()
                except nats.errors.Error as exc:
                    log.debug("unsubscribe from %s: %s", self.subject, exc)

    def close_receiver(self) -> None:
        self._receive.close()
