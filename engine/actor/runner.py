"""``Runner``: one actor under its ``ActorSystem``'s supervision: its mailboxes, its restarts,
and the messages it takes and hands to its workers."""

from __future__ import annotations

import logging
from contextlib import AsyncExitStack
from dataclasses import dataclass
from functools import partial
from typing import Any

import anyio
from anyio.abc import TaskStatus

from humangr.contracts import SubmitReceipt, encode
from humangr.engine.backoff import Backoff
from humangr.engine.bus import Msg, Subscription
from humangr.engine.bus.subject import matches
from humangr.engine.errors import BusClosedError, ConfigError, SlowConsumerError
from humangr.engine.redact import redact_secrets

from .base import Actor, ActorContext, Route
from .delivery import Delivery, Host, single
from .large_lane import LargeLane
from .losses import report_slow_consumer
from .pool import WorkerPool
from .settings import ActorStats

__all__ = ["Runner"]

log = logging.getLogger("humangr.actor")


@dataclass(slots=True)
class _Retry:
    route: Route[Any]
    msg: Msg


class Runner:
    """One actor under supervision."""

    def __init__(self, system: Host, actor: Actor) -> None:
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
        self.large = LargeLane(system, actor, self.delivery)
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
            if large and not msg.durable and await self.large.backlog_full(route, msg):
                self.inflight.pop(key, None)
                return
            if large:
                await self.large.handle(route, msg)
            else:
                await self.delivery.deliver(route, msg)
            self.inflight.pop(key, None)
        finally:
            limiter.release()

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

    async def stop_intake(self) -> None:
        self.stopping = True
        for sub in self.subscriptions:
            await sub.unsubscribe()
