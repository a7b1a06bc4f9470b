"""The ``Bus`` protocol: the one seam between actors and the transport."""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

__all__ = [
    "DEFAULT_MAX_PENDING",
    "Acknowledger",
    "Bus",
    "Exhausted",
    "ExhaustedSource",
    "Headers",
    "Msg",
    "Subscription",
    "check_payload",
]

DEFAULT_MAX_PENDING = 65_536
"""Default bound of a subscription's buffer, in messages."""

Headers = Mapping[str, str]


class Acknowledger(Protocol):
    """Acknowledgement of a durable (JetStream) message. Core messages have none."""

    async def ack(self) -> None: ...

    async def nak(self, delay: float | None = None) -> None: ...

    async def term(self) -> None: ...

    async def in_progress(self) -> None: ...


class Msg:
    """A message as delivered to a subscriber: subject, bytes, headers, reply subject.

    Durable messages carry an ``Acknowledger``: the receiver acks once it has finished with the
    message, naks to have it redelivered, or terms it to drop it for good. ``delivered`` counts
    deliveries of a durable message (1 for the first) and ``max_deliver`` is the most the server
    makes (``None`` when the bus does not say); ``sequence`` is its stream sequence. On core
    messages these are no-ops.
    """

    __slots__ = (
        "_acker",
        "data",
        "delivered",
        "headers",
        "max_deliver",
        "reply",
        "sequence",
        "subject",
    )

    def __init__(
        self,
        subject: str,
        data: bytes,
        headers: Headers | None = None,
        reply: str | None = None,
        *,
        acker: Acknowledger | None = None,
        delivered: int = 1,
        max_deliver: int | None = None,
        sequence: int | None = None,
    ) -> None:
        self.subject = subject
        self.data = data
        self.headers = headers
        self.reply = reply
        self._acker = acker
        self.delivered = delivered
        self.max_deliver = max_deliver
        self.sequence = sequence

    @property
    def durable(self) -> bool:
        return self._acker is not None

    async def ack(self) -> None:
        if self._acker is not None:
            await self._acker.ack()

    async def nak(self, delay: float | None = None) -> None:
        if self._acker is not None:
            await self._acker.nak(delay)

    async def term(self) -> None:
        if self._acker is not None:
            await self._acker.term()

    async def in_progress(self) -> None:
        if self._acker is not None:
            await self._acker.in_progress()

    def header(self, name: str) -> str | None:
        return None if self.headers is None else self.headers.get(name)

    def __repr__(self) -> str:
        return f"Msg(subject={self.subject!r}, {len(self.data)} bytes)"


@dataclass(frozen=True, slots=True)
class Exhausted:
    """A durable message the server stopped redelivering after ``deliveries`` deliveries that
    were never acknowledged by ``consumer``, now removed from ``stream`` by the watch that
    yields this record, the only one to do so: report it, nobody else will."""

    subject: str
    data: bytes
    deliveries: int
    stream: str
    sequence: int
    consumer: str


@runtime_checkable
class ExhaustedSource(Protocol):
    """A bus whose durable messages may exhaust their deliveries (``NatsBus``)."""

    def watch_exhausted(self) -> AbstractAsyncContextManager[AsyncIterator[Exhausted]]:
        """While the block runs, the messages of any consumer that exhausted their
        deliveries, each yielded by one watch of all those open, in any process (the
        Supervisor's: a watch needs the right to read and delete any work message)."""
        ...


@runtime_checkable
class Subscription(Protocol):
    """An open subscription: iterate it for messages; it ends when unsubscribed or closed.

    If the buffer overflowed (a bus that drops for a slow consumer: NATS core), the next
    iteration raises ``SlowConsumerError`` once, naming how many messages were dropped;
    iterating again continues with what is buffered. A bus that applies backpressure
    (``MemoryBus``) makes publishers wait for room instead, and drops only what could not be
    delivered within its bounded wait, reported the same way.
    """

    subject: str
    queue: str | None

    @property
    def dropped(self) -> int: ...

    @property
    def pending(self) -> int: ...

    def __aiter__(self) -> AsyncIterator[Msg]: ...

    async def __anext__(self) -> Msg: ...

    async def unsubscribe(self) -> None: ...


@runtime_checkable
class Bus(Protocol):
    """A message bus with NATS semantics.

    Subjects are dot-separated tokens; subscriptions may use ``*`` (one token) and ``>`` (one
    or more trailing tokens). Subscribers in the same queue group share the messages: each goes
    to exactly one of them. Messages of one publisher arrive in the order published.
    """

    async def publish(
        self,
        subject: str,
        data: bytes,
        *,
        headers: Headers | None = None,
        reply: str | None = None,
    ) -> None:
        """Publish ``data`` on ``subject``. ``Nats-Msg-Id`` in headers deduplicates on JetStream."""
        ...

    def subscribe(
        self,
        subject: str,
        *,
        queue: str | None = None,
        max_pending: int = DEFAULT_MAX_PENDING,
    ) -> AbstractAsyncContextManager[Subscription]:
        """Subscribe for the duration of the ``async with`` block; unsubscribes on exit."""
        ...

    async def request(
        self,
        subject: str,
        data: bytes,
        *,
        headers: Headers | None = None,
        timeout: float = 5.0,
    ) -> Msg:
        """Publish with a reply subject and wait for the first reply.

        Raises ``NoRespondersError`` when nobody listens, ``BusTimeoutError`` after ``timeout``.
        """
        ...

    async def flush(self, timeout: float = 5.0) -> None:
        """Wait until everything published so far has reached the server (no-op in memory)."""
        ...

    async def close(self) -> None:
        """Close the bus; open subscriptions end, later calls raise ``BusClosedError``."""
        ...


def check_payload(data: object) -> bytes:
    """Payloads are bytes, as on NATS: bytes-like values are copied, anything else refused."""
    if type(data) is bytes:
        return data
    if isinstance(data, (bytearray, memoryview)):
        return bytes(data)
    raise TypeError(f"payload must be bytes, not {type(data).__name__}; encode it first")
