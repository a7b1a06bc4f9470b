"""How an actor system supervises its actors (``SupervisionPolicy``) and what it counts of each
(``ActorStats``)."""

from __future__ import annotations

from dataclasses import dataclass, field

__all__ = ["ActorStats", "SupervisionPolicy"]


@dataclass(frozen=True, slots=True)
class SupervisionPolicy:
    """How crashed actors are restarted and failing messages given up on."""

    initial_backoff: float = 0.05
    """First restart delay of a crashed actor, and first redelivery delay of a durable message
    whose handler failed; both double up to ``max_backoff``."""
    max_backoff: float = 5.0
    max_attempts: int = 3
    """Deliveries of a durable message whose handler keeps failing before it is dead-lettered,
    for a bus that does not say its own limit (JetStream's ``max_deliver`` wins)."""
    dead_letter_window: float = 30.0
    """Seconds in which the same bad message on the same subject is dead-lettered once, however
    many actors of this system refused it (0: every refusal is reported)."""
    drain_timeout: float = 10.0
    """Time in-flight messages get to finish on shutdown."""
    progress_interval: float = 15.0
    """How often a durable message being handled is reported in progress (keep it well
    below the JetStream ack wait)."""


@dataclass(slots=True)
class ActorStats:
    """Counters of one actor, for tests and ``humangr`` status output."""

    restarts: int = 0
    handled: int = 0
    refused: int = 0
    """Messages refused: undecodable, refused by a handler, or failed for good."""
    failures: int = 0
    """Handler exceptions (each fails its message only)."""
    dead_letters: int = 0
    """Dead letters this actor published (a refusal another actor reported first has none)."""
    lost: int = 0
    """Messages its subscriptions lost before it received them (slow consumer), each loss
    dead-lettered with its count."""
    crashes: list[str] = field(default_factory=list)
