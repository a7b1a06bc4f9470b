"""``ActorSystem``: runs actors in task groups and supervises them one-for-one."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from typing import Any

import anyio
from anyio.abc import TaskStatus

from humangr.contracts import Subjects
from humangr.engine.bus import Bus, Exhausted, ExhaustedSource, Msg
from humangr.engine.errors import ConfigError
from humangr.engine.metrics import Metrics

from .base import Actor, Route
from .delivery import Delivery
from .letters import LetterBook
from .losses import report_exhausted
from .runner import Runner
from .settings import ActorStats, SupervisionPolicy

__all__ = ["ActorStats", "ActorSystem", "SupervisionPolicy"]

log = logging.getLogger("humangr.actor")


class ActorSystem:
    """Runs actors on a bus: readiness through ``tg.start``, one-for-one restarts, dead letters.

    A message fails alone: an undecodable one, one a handler refuses (``MessageRefused``) and
    one whose handler raises become dead letters (a durable one after its redeliveries);
    handlers of other messages keep running. Only a failing ``setup`` or ``background``
    restarts an actor. Messages an actor never received are dead letters too (``losses``):
    those its subscription lost as a slow consumer, with their count, and durable ones that
    exhausted their deliveries without a handler finishing them, each reported by one system
    of all those that watch the bus with ``claim_exhausted`` (the default; a work role's
    system, whose NATS user may not read or delete work messages, passes ``False`` and leaves
    them to the Supervisor's).

    Use ``async with system.running():`` — it returns once every actor is subscribed and set
    up, and on exit stops intake and lets in-flight messages finish within ``drain_timeout``.
    """

    def __init__(
        self,
        bus: Bus,
        *,
        subjects: Subjects | None = None,
        metrics: Metrics | None = None,
        policy: SupervisionPolicy | None = None,
        claim_exhausted: bool = True,
    ) -> None:
        self.bus = bus
        self.claim_exhausted = claim_exhausted
        """Whether this system claims and dead-letters the work messages, of every consumer,
        that exhausted their deliveries (``losses.report_exhausted``)."""
        self.subjects = subjects or Subjects()
        self.metrics = metrics or Metrics()
        self.policy = policy or SupervisionPolicy()
        self.letters = LetterBook(self.policy.dead_letter_window)
        self._runners: dict[str, Runner] = {}
        self._scope: anyio.CancelScope | None = None
        self._done = anyio.Event()

    def add(self, *actors: Actor) -> None:
        for actor in actors:
            if actor.name in self._runners:
                raise ConfigError(f"two actors named {actor.name!r}; actor names must be unique")
            self._runners[actor.name] = Runner(self, actor)

    @property
    def actors(self) -> Sequence[Actor]:
        return [runner.actor for runner in self._runners.values()]

    async def deliver_here(
        self, actor: str, subject: str, data: bytes, headers: dict[str, str]
    ) -> bool:
        """Hand a message published in this process straight to ``actor`` (its handler runs in
        the caller's task: no bus, mailbox or worker hop); ``False`` when it was not taken and
        must be published (see ``Runner.handle_here``)."""
        runner = self._runners.get(actor)
        return runner is not None and await runner.handle_here(subject, data, headers)

    def stats(self, name: str) -> ActorStats:
        return self._runners[name].stats

    async def run(self, *, task_status: TaskStatus[None] = anyio.TASK_STATUS_IGNORED) -> None:
        """Run every actor until cancelled or ``stop()``; ready once all are subscribed."""
        if not self._runners:
            raise ConfigError("no actors configured; add() at least one before run()")
        try:
            with anyio.CancelScope() as scope:
                self._scope = scope
                async with anyio.create_task_group() as watching:
                    if self.claim_exhausted and isinstance(self.bus, ExhaustedSource):
                        # listening before any consumer pulls: see engine/bus/exhausted.py
                        await watching.start(report_exhausted, self.bus, self._exhausted_owner)
                    async with anyio.create_task_group() as tg:
                        for runner in self._runners.values():
                            await tg.start(runner.supervise)
                        task_status.started()
                    watching.cancel_scope.cancel()
        finally:
            self._done.set()

    def _exhausted_owner(self, record: Exhausted) -> tuple[Delivery, Route[Any]]:
        """The actor whose route pulls ``record.consumer`` in this system, else the
        consumer's queue group (another process's actor)."""
        for runner in self._runners.values():
            for route, sub in runner.routed:
                if getattr(sub, "consumer", None) == record.consumer:
                    return runner.delivery, route
        queue = record.consumer.partition("__")[0] or record.consumer
        return Delivery(self, queue, ActorStats()), Route(record.subject, bytes, _foreign)

    async def stop(self) -> None:
        """Stop intake, drain in-flight messages within the deadline, then cancel the rest."""
        for runner in self._runners.values():
            await runner.stop_intake()
        scope = self._scope
        if scope is None:
            return
        with anyio.move_on_after(self.policy.drain_timeout):
            await self._done.wait()
        if not self._done.is_set():
            left = sum(len(r.inflight) for r in self._runners.values())
            log.warning(
                "drain deadline of %.1fs passed; cancelling %d message(s)",
                self.policy.drain_timeout,
                left,
            )
        scope.cancel()

    @asynccontextmanager
    async def running(self) -> AsyncIterator[ActorSystem]:
        """Start every actor, yield once ready, drain and stop on exit."""
        async with anyio.create_task_group() as tg:
            await tg.start(self.run)
            try:
                yield self
            finally:
                with anyio.CancelScope(shield=True):
                    await self.stop()


async def _foreign(message: bytes, msg: Msg) -> None:
    """The handler of another process's route (never called: it only names a letter)."""
