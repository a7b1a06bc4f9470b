"""``NatsSubscription``: the bounded buffer behind every ``NatsBus`` subscription."""

from __future__ import annotations

import logging
from collections.abc import Callable

import anyio
import nats.errors
from nats.aio.msg import Msg as NatsMsg
from nats.aio.subscription import Subscription as CoreSubscription

from .base import Exhausted, Msg
from .buffer import BoundedBuffer
from .jetstream import PullConsumer

__all__ = ["CLEANUP_TIMEOUT", "NatsSubscription", "NoneExhausted", "from_core"]

log = logging.getLogger("humangr.bus")
CLEANUP_TIMEOUT = 5.0
"""Longest wait for an unsubscribe or close to reach the server."""


def from_core(msg: NatsMsg) -> Msg:
    """A bus ``Msg`` for a core NATS message (empty headers become ``None``)."""
    data = msg.data if type(msg.data) is bytes else bytes(msg.data)
    return Msg(msg.subject, data, dict(msg.headers) if msg.headers else None, msg.reply or None)


class NoneExhausted:
    """The exhausted messages of a bus without JetStream: nothing, ever."""

    def __aiter__(self) -> NoneExhausted:
        return self

    async def __anext__(self) -> Exhausted:
        raise StopAsyncIteration


class NatsSubscription(BoundedBuffer):
    """A ``NatsBus`` subscription: a bounded buffer fed by a core subscription or a pull loop.

    Core messages that find the buffer full are dropped and reported once as
    ``SlowConsumerError`` (NATS core does not wait for a slow consumer). A pull subscription
    never fetches more than the buffer has room for, so durable messages wait on the server
    instead of being dropped; those that exhaust their deliveries are claimed by the
    Supervisor's ``NatsBus.watch_exhausted()``, not by the subscription.
    """

    def __init__(
        self,
        subject: str,
        queue: str | None,
        max_pending: int,
        *,
        on_close: Callable[[NatsSubscription], None],
        pull_batch: int | None = None,
    ) -> None:
        capacity = max_pending if pull_batch is None else min(max_pending, pull_batch)
        super().__init__(subject, capacity, size=None if pull_batch is None else 2 * capacity)
        self.queue = queue
        self.consumer: str | None = None
        """The durable JetStream consumer this subscription pulls from, if any."""
        self.closed = False
        self._on_close = on_close
        self.core: CoreSubscription | None = None
        self.pull: PullConsumer | None = None

    async def on_core(self, msg: NatsMsg) -> None:
        """The callback of the core subscription."""
        self.deliver(from_core(msg))

    async def __anext__(self) -> Msg:
        self._report_drops()
        while True:
            msg = self._take_nowait()
            if msg is not None:
                return msg
            if self.pull is None:
                return await self._take()
            await self.pull.wait(self.capacity - self.pending)

    async def unsubscribe(self) -> None:
        """Stop receiving; what is buffered can still be iterated, then iteration ends."""
        if self.closed:
            return
        self.closed = True
        self.close_sender()
        self._on_close(self)
        if self.pull is not None:
            await self.pull.close()
        if self.core is not None:
            with anyio.move_on_after(CLEANUP_TIMEOUT, shield=True):
                try:
                    await self.core.unsubscribe()
                except nats.errors.Error as exc:
                    log.debug("unsubscribe from %s: %s", self.subject, exc)
