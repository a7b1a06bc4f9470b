"""``ActorSystem``: runs actors in task groups and supervises them one-for-one."""

from __future__ import annotations

import contextlib
import logging
from collections.abc import AsyncIterator, Sequence
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass
from functools import partial
from typing import Any

import anyio
from anyio.abc import TaskStatus

from humangr.contracts import Subjects, SubmitReceipt, encode
from humangr.engine.backoff import Backoff
from humangr.engine.bus import Bus, Exhausted, ExhaustedSource, Msg, Subscription
from humangr.engine.bus.subject import matches
from humangr.engine.errors import BusClosedError, ConfigError, SlowConsumerError
from humangr.engine.metrics import Metrics
from humangr.engine.redact import redact_secrets

from .base import Actor, ActorContext, Route
from .delivery import Delivery, single
from .letters import LetterBook, payload_correlation
from .losses import report_exhausted, report_slow_consumer
from .pool import WorkerPool
from .settings import ActorStats, SupervisionPolicy

__all__ = ["ActorStats", "ActorSystem", "SupervisionPolicy"]

log = logging.getLogger("humangr.actor")


@dataclass(slots=True)
class _Retry:
    route: Route[Any]
    msg: Msg


class _Runner:
    """One actor under supervision."""

    def __init__(self, system: ActorSystem, actor: Actor) -> None:
        self.system = system
        self.actor = actor
        self.ctx = ActorContext(system.bus, system.subjects, system.metrics, actor.name)
        self.stats = ActorStats()
        self.subscriptions: list[Subscription] = []
        self.routed: list[tuple[Route[Any], Subscription]] = []
        self.retries: list[_Retry] = []
        self.inflight: dict[int, _Retry] = {}
        self.stopping = False
        self.ready = False
        self.delivery = Delivery(system, actor.name, self.stats)
        self.large_lane = anyio.Semaphore(max(1, actor.large_concurrency))
        """Large messages handled at once (``Actor.large_concurrency``)."""
        self.large_ids: set[str] = set()
        self.large_bytes = 0
        """Bytes of the large core messages held (``Actor.large_backlog_bytes`` at most)."""
        """The ``Nats-Msg-Id`` of the large core messages held (waiting or handled): a copy sent
        again while one is held is dropped, not held twice."""
        self.limiter: anyio.Semaphore | None = None
        """The slots of messages handled at once, while the actor serves (``deliver_here``)."""
        self.counters: tuple[Any, Any] | None = None
        """The submissions ``received`` and receipts ``sent`` counters, looked up at the first
        submission (``_received``), not at each."""

    async def supervise(self, *, task_status: TaskStatus[None]) -> None:
        """Subscribe once (the mailbox outlives restarts), then run and restart the actor."""
        policy = self.system.policy
        restarts = Backoff(policy.initial_backoff, cap=policy.max_backoff)
        crashes = 0
        routes = list(self.actor.routes(self.ctx))
        if not routes:
            raise ConfigError(f"actor {self.actor.name!r} has no routes")
        async with AsyncExitStack() as stack:
            subs: list[tuple[Route[Any], Subscription]] = []
            for route in routes:
                sub = await stack.enter_async_context(
                    self.system.bus.subscribe(
                        route.subject, queue=route.queue, max_pending=self.actor.mailbox_size
                    )
                )
                subs.append((route, sub))
            self.subscriptions = [sub for _, sub in subs]
            self.routed = subs
            self._zero_series(routes)
            try:
                while True:
                    handled = self.stats.handled
                    try:
                        await self._run_once(subs, None if self.ready else task_status)
                        return
                    except Exception as exc:
                        if not self.ready:
                            raise
                        if self.stopping:
                            return
                        if self.stats.handled > handled:
                            crashes = 0
                        self._crashed(exc, restarts.delay(crashes))
                    await restarts.sleep(crashes)
                    crashes += 1
            finally:
                self.subscriptions = []
                self.routed = []

    def _zero_series(self, routes: list[Route[Any]]) -> None:
        """Start the loss series of every route at zero, before any loss."""
        metrics = self.system.metrics
        metrics.large_waiting.labels(self.actor.name)
        for route in routes:
            for counter in (
                metrics.dead_letters,
                metrics.messages_lost,
                metrics.max_deliver_dead_letters,
            ):
                counter.labels(route.subject)

    def _crashed(self, exc: Exception, backoff: float) -> None:
        exc = single(exc)
        self.stats.restarts += 1
        self.stats.crashes.append(f"{type(exc).__name__}: {exc}")
        del self.stats.crashes[:-20]
        self.system.metrics.actor_restarts.labels(self.actor.name).inc()
        log.error(
            "actor %s crashed (%s: %s); restart %d in %.2fs",
            self.actor.name,
            type(exc).__name__,
            redact_secrets(str(exc)),
            self.stats.restarts,
            backoff,
            exc_info=exc,
        )

    async def _run_once(
        self,
        subs: list[tuple[Route[Any], Subscription]],
        task_status: TaskStatus[None] | None,
    ) -> None:
        await self.actor.setup(self.ctx)
        try:
            if task_status is not None:
                self.ready = True
                task_status.started()
            limiter = self.limiter = anyio.Semaphore(self.actor.max_concurrency)
            try:
                async with anyio.create_task_group() as outer:
                    outer.start_soon(self.actor.background, self.ctx)
                    await self._serve(subs, limiter)
                    outer.cancel_scope.cancel()
            except BaseException:
                await self._requeue_inflight()
                raise
        finally:
            self.limiter = None  # not serving: ``handle_here`` leaves messages to the mailbox
            with anyio.CancelScope(shield=True):
                await self.actor.teardown(self.ctx)

    async def _requeue_inflight(self) -> None:
        """After a crash (``setup`` or ``background`` failed, so the handlers in flight were
        cancelled): core messages are retried here after the restart; durable ones go back to
        JetStream at once (a local retry would race the server's redelivery)."""
        inflight, self.inflight = list(self.inflight.values()), {}
        self.retries.extend(retry for retry in inflight if not retry.msg.durable)
        with anyio.CancelScope(shield=True):
            for retry in inflight:
                if retry.msg.durable:
                    try:
                        await retry.msg.nak()
                    except Exception as exc:  # the server redelivers after ack_wait anyway
                        log.warning("nak of %s failed: %s", retry.msg.subject, exc)

    async def _serve(
        self, subs: list[tuple[Route[Any], Subscription]], limiter: anyio.Semaphore
    ) -> None:
        """Handle retried messages first, then the mailboxes until they close: each message
        taken with a slot of ``limiter`` goes to a pool of long-lived workers (``pool``), not
        to a task of its own; once every mailbox closed, the pool finishes what it holds."""
        async with anyio.create_task_group() as tg:
            pool = WorkerPool(tg, self.actor.max_concurrency, partial(self._process, limiter))
            pending, self.retries = self.retries, []
            self.inflight.update((id(retry.msg), retry) for retry in pending)
            for retry in pending:
                await limiter.acquire()
                pool.put(retry.route, retry.msg)
            tg.start_soon(self._pumps, subs, limiter, pool)

    async def _pumps(
        self,
        subs: list[tuple[Route[Any], Subscription]],
        limiter: anyio.Semaphore,
        pool: WorkerPool,
    ) -> None:
        async with anyio.create_task_group() as tg:
            for route, sub in subs:
                tg.start_soon(self._pump, route, sub, limiter, pool)
        pool.close()

    async def _pump(
        self, route: Route[Any], sub: Subscription, limiter: anyio.Semaphore, pool: WorkerPool
    ) -> None:
        gauge = self.system.metrics.mailbox_depth.labels(self.actor.name)
        inflight = self.inflight
        while True:
            try:
                async for msg in sub:
                    gauge.set(sub.pending)
                    inflight[id(msg)] = _Retry(route, msg)
                    try:
                        limiter.acquire_nowait()
                    except anyio.WouldBlock:
                        await limiter.acquire()
                    pool.put(route, msg)
                return
            except SlowConsumerError as exc:
                await report_slow_consumer(self.delivery, route, exc)
            except BusClosedError:
                return

    async def handle_here(self, subject: str, data: bytes, headers: dict[str, str]) -> bool:
        """Handle a message of this process in the caller's task, as a worker would have
        handled it from the mailbox (decoded, counted, dead-lettered alike); ``False`` (not
        taken: publish it) while the actor is not serving, for a large message (its own lane
        bounds those) or a subject none of its routes takes."""
        limiter = self.limiter
        if limiter is None or self.stopping or len(data) >= self.actor.large_message_bytes:
            return False
        tokens = tuple(subject.split("."))
        for route, _ in self.routed:
            if matches(tuple(route.subject.split(".")), tokens):
                break
        else:
            return False
        await limiter.acquire()
        await self._process(limiter, route, Msg(subject, data, headers))  # releases the slot
        return True

    async def _process(self, limiter: anyio.Semaphore, route: Route[Any], msg: Msg) -> None:
        """Handle one message (in a worker of the pool), then give its slot back."""
        key = id(msg)
        try:
            large = len(msg.data) >= self.actor.large_message_bytes
            if route.receipt:
                await self._received(route, msg)
            if large and not msg.durable and await self._backlog_full(route, msg):
                self.inflight.pop(key, None)
                return
            if large:
                await self._large(route, msg)
            else:
                await self.delivery.deliver(route, msg)
            self.inflight.pop(key, None)
        finally:
            limiter.release()

    async def _backlog_full(self, route: Route[Any], msg: Msg) -> bool:
        """Refuse (a dead letter, to its sender too) a large core message that would take the
        large ones held past ``Actor.large_backlog_bytes``: a flood of them cannot exhaust the
        memory (durable ones wait on the server instead: JetStream hands out a few at a time)."""
        held, limit = self.large_bytes, self.actor.large_backlog_bytes
        if held + len(msg.data) <= limit or msg.header("Nats-Msg-Id") in self.large_ids:
            return False  # room, or a copy of one held (dropped as such)
        sender = ""
        if route.subject_sender is not None:
            with contextlib.suppress(Exception):
                sender = route.subject_sender(msg.subject) or ""
        await self.delivery.dead_letter(
            route,
            msg,
            f"not taken: this {self.actor.name} holds {held // 1_000_000} MB of large messages "
            f"waiting already (at most {limit // 1_000_000} MB); send it again later",
            correlation=payload_correlation(msg.data),
            reason="refused",
            sender=sender,
        )
        return True

    async def _received(self, route: Route[Any], msg: Msg) -> None:
        """Count a submission taken from the mailbox and, for a core request, tell its sender
        (``SubmitReceipt``) that it will be decided or dead-lettered (a lost receipt is
        logged: the sender submits again, and the Supervisor knows the action id)."""
        metrics = self.system.metrics
        if self.counters is None:
            self.counters = (
                metrics.submissions.labels(result="received"),
                metrics.submit_receipts.labels(result="sent"),
            )
        received, sent = self.counters
        received.inc()
        if msg.durable or not msg.reply:
            return
        receipt = SubmitReceipt(subject=msg.subject, size=len(msg.data), actor=self.actor.name)
        try:
            await self.system.bus.publish(msg.reply, encode(receipt))
        except Exception as exc:
            metrics.submit_receipts.labels(result="failed").inc()
            log.warning("receipt of a message on %s not sent: %s", msg.subject, exc)
            return
        sent.inc()

    async def _large(self, route: Route[Any], msg: Msg) -> None:
        """Handle a large message in the lane of large ones (``large_concurrency`` at once);
        while it waits, a durable one is kept from redelivery with progress reports. A core
        message whose ``Nats-Msg-Id`` is held already (sent again: its receipt was lost) is
        dropped (a stream deduplicates durable ones itself)."""
        msg_id = None if msg.durable else msg.header("Nats-Msg-Id")
        if msg_id is not None:
            if msg_id in self.large_ids:
                if route.receipt:
                    self.system.metrics.count_submission("duplicate")
                log.info("actor %s: %s held already; this copy dropped", self.actor.name, msg_id)
                return
            self.large_ids.add(msg_id)
        held = 0 if msg.durable else len(msg.data)
        self.large_bytes += held
        try:
            await self._large_lane(route, msg)
        finally:
            self.large_bytes -= held
            if msg_id is not None:
                self.large_ids.discard(msg_id)

    async def _large_lane(self, route: Route[Any], msg: Msg) -> None:
        lane, interval = self.large_lane, self.system.policy.progress_interval
        waiting = self.system.metrics.large_waiting.labels(self.actor.name)
        waiting.inc()
        try:
            while True:
                with anyio.move_on_after(interval):
                    await lane.acquire()
                    break
                try:
                    await msg.in_progress()
                except Exception as exc:  # the server redelivers after ack_wait at worst
                    log.warning("progress of %s not reported: %s", msg.subject, exc)
        finally:
            waiting.dec()
        try:
            await self.delivery.deliver(route, msg)
        finally:
            lane.release()

    async def stop_intake(self) -> None:
        self.stopping = True
        for sub in self.subscriptions:
            await sub.unsubscribe()


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
        self._runners: dict[str, _Runner] = {}
        self._scope: anyio.CancelScope | None = None
        self._done = anyio.Event()

    def add(self, *actors: Actor) -> None:
        for actor in actors:
            if actor.name in self._runners:
                raise ConfigError(f"two actors named {actor.name!r}; actor names must be unique")
            self._runners[actor.name] = _Runner(self, actor)

    @property
    def actors(self) -> Sequence[Actor]:
        return [runner.actor for runner in self._runners.values()]

    async def deliver_here(
        self, actor: str, subject: str, data: bytes, headers: dict[str, str]
    ) -> bool:
        """Hand a message published in this process straight to ``actor`` (its handler runs in
        the caller's task: no bus, mailbox or worker hop); ``False`` when it was not taken and
        must be published (see ``_Runner.handle_here``)."""
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
