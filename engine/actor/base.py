"""Actors: a set of routes (subject → contract → handler) and lifecycle hooks."""

from __future__ import annotations

import abc
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Generic, TypeVar

import msgspec

from humangr.contracts import Subjects, encode
from humangr.engine.bus import Bus, Headers, Msg

if TYPE_CHECKING:
    from humangr.engine.metrics import Metrics

__all__ = ["Actor", "ActorContext", "Route"]

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Route(Generic[T]):
    """Messages on ``subject`` are decoded as ``type`` and passed to ``handler``.

    ``queue`` shares the subject among the members of a queue group (workers).
    ``report_undecodable=False`` drops a message that cannot be decoded without a dead letter:
    for a route that only observes a subject whose owner (another process) reports them.
    ``sender`` names the agent a decoded message comes from: its dead letters (refused or
    failed) are also published on ``agent_dlq(sender)``, the only dead letters that agent
    may read. ``subject_sender`` names it from the subject the message arrived on instead
    (``None``: no agent), for subjects the server's permissions give each agent its own of
    (``Subjects.agent_submit``): what the message itself says of its sender is never trusted
    then. ``receipt`` answers a core message that asks for a reply (a request) with a
    ``SubmitReceipt`` as soon as the actor takes it from its mailbox: the sender then knows
    it was received (a durable message needs none: JetStream acknowledged it).
    """

    subject: str
    type: type[T]
    handler: Callable[[T, Msg], Awaitable[None]]
    queue: str | None = None
    report_undecodable: bool = True
    sender: Callable[[T], str] | None = None
    subject_sender: Callable[[str], str | None] | None = None
    receipt: bool = False


@dataclass(slots=True)
class ActorContext:
    """What a running actor may use: the bus, the subject names and the metrics."""

    bus: Bus
    subjects: Subjects
    metrics: Metrics
    actor_name: str

    async def publish(
        self,
        subject: str,
        message: msgspec.Struct,
        *,
        headers: Headers | None = None,
    ) -> None:
        """Encode ``message`` and publish it on ``subject``."""
        await self.bus.publish(subject, encode(message), headers=headers)

    async def reply(self, msg: Msg, message: msgspec.Struct) -> None:
        """Answer a request (no-op when ``msg`` has no reply subject)."""
        if msg.reply:
            await self.bus.publish(msg.reply, encode(message))


class Actor(abc.ABC):
    """Base class of every actor.

    Subclasses set ``name`` and return their ``routes()``. ``setup`` runs on every (re)start
    before any message is handled; ``teardown`` after the actor stopped or crashed.

    Each message succeeds or fails alone; handlers of other messages keep running:

    - one that cannot be decoded (bad JSON or UTF-8, too deep, a wrong or unknown field) is
      dead-lettered with its first bytes, secrets redacted;
    - one a handler refuses with ``MessageRefused`` is dead-lettered with the reason and the
      id it concerns, without its bytes, and not retried;
    - one whose handler raises is dead-lettered the same way if it came over core NATS; a
      durable (JetStream) one is naked and redelivered with backoff, and dead-lettered at its
      last delivery (``max_deliver``), with the delivery count.

    A bad message that several actors of one system receive is dead-lettered once. Only a
    failing ``setup`` or ``background`` crashes the actor: the system restarts it with backoff;
    the messages it was handling are cancelled and handled again after the restart (durable
    ones are naked back to the server at once). Handlers must be idempotent enough for that.
    """

    name: str = "actor"
    max_concurrency: int = 16
    """Messages handled at once; when reached, the mailbox fills (backpressure)."""
    mailbox_size: int = 4_096
    """Bound of each route's subscription buffer."""
    large_message_bytes: int = 256 * 1024
    """Messages of at least this size are large: they wait in a lane of their own."""
    large_backlog_bytes: int = 512 * 1024 * 1024
    """Most bytes of large core messages held waiting; one more is refused (a dead letter
    telling its sender to send it again later), so a flood cannot exhaust the memory."""
    large_concurrency: int = 1
    """Large messages handled at once; the others wait as received (undecoded), so a flood of
    large messages neither holds up the small ones behind it nor multiplies its memory (their
    checks hold the interpreter: more at once would not finish sooner)."""

    @abc.abstractmethod
    def routes(self, ctx: ActorContext) -> Sequence[Route[Any]]:
        """The subjects this actor serves."""

    async def setup(self, ctx: ActorContext) -> None:
        """Prepare state before the first message of a (re)start."""

    async def teardown(self, ctx: ActorContext) -> None:
        """Release what ``setup`` acquired."""

    async def background(self, ctx: ActorContext) -> None:
        """Long-running work beside the handlers (timers, sweeps); cancelled when they stop."""
