"""``ActorSystem``: runs actors in task groups and supervises them one-for-one."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Sequence
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass, field
from typing import Any, Literal

import anyio
from anyio.abc import TaskGroup, TaskStatus

from humangr.contracts import DeadLetter, Subjects, decode, encode
from humangr.engine.bus import Bus, Msg, Subscription
from humangr.engine.errors import (
    BusClosedError,
    ConfigError,
    ContractError,
    MessageRefused,
    SlowConsumerError,
)
from humangr.engine.metrics import Metrics
from humangr.engine.redact import redact_secrets

from .base import Actor, ActorContext, Route
from .letters import LetterBook, correlation_of, payload_correlation

__all__ = ["ActorStats", "ActorSystem", "SupervisionPolicy"]

log = logging.getLogger("humangr.actor")


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
    crashes: list[str] = field(default_factory=list)


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
        self.retries: list[_Retry] = []
        self.inflight: dict[int, _Retry] = {}
        self.stopping = False
        self.ready = False
        self.handled_counter = system.metrics.messages_handled.labels(actor.name)

    async def supervise(self, *, task_status: TaskStatus[None]) -> None:
        """Subscribe once (the mailbox outlives restarts), then run and restart the actor."""
        policy = self.system.policy
        backoff = policy.initial_backoff
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
                            backoff = policy.initial_backoff
                        self._crashed(exc, backoff)
                    await anyio.sleep(backoff)
                    backoff = min(backoff * 2, policy.max_backoff)
            finally:
                self.subscriptions = []

    def _crashed(self, exc: Exception, backoff: float) -> None:
        exc = _single(exc)
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
            limiter = anyio.Semaphore(self.actor.max_concurrency)
            try:
                async with anyio.create_task_group() as outer:
                    outer.start_soon(self.actor.background, self.ctx)
                    await self._serve(subs, limiter)
                    outer.cancel_scope.cancel()
            except BaseException:
                await self._requeue_inflight()
                raise
        finally:
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
        """Handle retried messages first, then the mailboxes until they close."""
        async with anyio.create_task_group() as tg:
            pending, self.retries = self.retries, []
            self.inflight.update((id(retry.msg), retry) for retry in pending)
            for retry in pending:
                await limiter.acquire()
                tg.start_soon(self._process, retry.route, retry.msg, limiter)
            for route, sub in subs:
                tg.start_soon(self._pump, route, sub, limiter, tg)

    async def _pump(
        self, route: Route[Any], sub: Subscription, limiter: anyio.Semaphore, tg: TaskGroup
    ) -> None:
        gauge = self.system.metrics.mailbox_depth.labels(self.actor.name)
        while True:
            try:
                async for msg in sub:
                    gauge.set(sub.pending)
                    self.inflight[id(msg)] = _Retry(route, msg)
                    try:
                        limiter.acquire_nowait()
                    except anyio.WouldBlock:
                        await limiter.acquire()
                    tg.start_soon(self._process, route, msg, limiter)
                return
            except SlowConsumerError as exc:
                log.error("actor %s: %s", self.actor.name, exc)
                await self._dead_letter(route, Msg(route.subject, b""), str(exc))
            except BusClosedError:
                return

    async def _process(self, route: Route[Any], msg: Msg, limiter: anyio.Semaphore) -> None:
        key = id(msg)
        self.inflight[key] = _Retry(route, msg)
        try:
            await self._deliver(route, msg)
            self.inflight.pop(key, None)
        finally:
            limiter.release()

    async def _deliver(self, route: Route[Any], msg: Msg) -> None:
        """Decode, handle and settle one message. Whatever the message or the handler does,
        only this message fails: nothing but cancellation leaves here."""
        try:
            message = decode(msg.data, route.type)
        except Exception as bad:  # decode raises ContractError; anything else is bad input too
            error = str(bad) if isinstance(bad, ContractError) else _cannot_decode(route, bad)
            await self._undecodable(route, msg, error)
            return
        try:
            if msg.durable:
                await self._handle_durable(route, message, msg)
            else:
                await route.handler(message, msg)
        except Exception as caught:
            exc = _single(caught)
            correlation = correlation_of(message)
            if isinstance(exc, MessageRefused):
                correlation = exc.correlation_id or correlation
                if not await self._dead_letter(route, msg, exc.reason, correlation=correlation):
                    await _settle(msg, "nak", self._nak_delay(msg))
                    return
                await _settle(msg, "term")
                return
            await self._failed(route, msg, exc, correlation)
            return
        await _settle(msg, "ack")
        self.stats.handled += 1
        self.handled_counter.inc()

    async def _undecodable(self, route: Route[Any], msg: Msg, error: str) -> None:
        if not route.report_undecodable:
            self.stats.refused += 1
            log.debug("actor %s dropped an undecodable message on %s", self.actor.name, msg.subject)
            await _settle(msg, "term")
            return
        reported = await self._dead_letter(
            route, msg, error, undecodable=True, correlation=payload_correlation(msg.data)
        )
        await _settle(msg, "term" if reported else "nak", self._nak_delay(msg))

    async def _handle_durable(self, route: Route[Any], message: Any, msg: Msg) -> None:
        """Run the handler while telling JetStream, now and then, that the work goes on, so a
        long handler (a whole review) is not redelivered to another worker mid-way."""
        interval = self.system.policy.progress_interval

        async def heartbeat() -> None:
            while True:
                await anyio.sleep(interval)
                try:
                    await msg.in_progress()
                except Exception as exc:  # the server redelivers after ack_wait at worst
                    log.warning("progress of %s not reported: %s", msg.subject, exc)

        try:
            async with anyio.create_task_group() as tg:
                tg.start_soon(heartbeat)
                await route.handler(message, msg)
                tg.cancel_scope.cancel()
        except ExceptionGroup as group:
            if len(group.exceptions) == 1:
                raise group.exceptions[0] from None
            raise

    async def _failed(self, route: Route[Any], msg: Msg, exc: Exception, correlation: str) -> None:
        """A handler raised: a core message is dead-lettered at once; a durable one goes back
        to the server for redelivery until its last delivery, which is dead-lettered."""
        self.stats.failures += 1
        error = f"{type(exc).__name__}: {exc}"
        log.error(
            "actor %s: handler of %s failed (delivery %d): %s",
            self.actor.name,
            msg.subject,
            msg.delivered,
            redact_secrets(error),
        )
        log.debug("handler failure on %s", msg.subject, exc_info=exc)
        limit = (msg.max_deliver or self.system.policy.max_attempts) if msg.durable else 1
        if msg.delivered < limit:
            await _settle(msg, "nak", self._nak_delay(msg))
            return
        times = f"{msg.delivered} times" if msg.delivered > 1 else "once"
        reported = await self._dead_letter(
            route,
            msg,
            f"handler failed {times}: {error}",
            deliveries=msg.delivered,
            correlation=correlation,
        )
        await _settle(msg, "term" if reported else "nak")

    def _nak_delay(self, msg: Msg) -> float:
        policy = self.system.policy
        return min(policy.initial_backoff * 2.0 ** max(msg.delivered - 1, 0), policy.max_backoff)

    async def _dead_letter(
        self,
        route: Route[Any],
        msg: Msg,
        error: str,
        *,
        undecodable: bool = False,
        deliveries: int = 1,
        correlation: str = "",
    ) -> bool:
        """Publish a dead letter for ``msg`` unless another actor of this system just did (see
        ``LetterBook``). Raw bytes are kept only for an undecodable message. ``False`` when
        the letter could not be published."""
        self.stats.refused += 1
        book = self.system.letters
        key = book.key(msg.subject, msg.data, None if undecodable else error)
        if not msg.durable and not book.first(key, anyio.current_time()):
            log.debug("actor %s: %s already dead-lettered", self.actor.name, msg.subject)
            return True
        letter = DeadLetter.of(
            msg.subject,
            error,
            msg.data if undecodable else b"",
            actor=self.actor.name,
            deliveries=deliveries,
            correlation_id=correlation,
            raw_size=len(msg.data),
        )
        self.stats.dead_letters += 1
        self.system.metrics.dead_letters.labels(route.subject).inc()
        log.warning("actor %s → dlq: %s: %s", self.actor.name, msg.subject, letter.error)
        try:
            await self.system.bus.publish(self.system.subjects.dlq, encode(letter))
        except Exception as exc:  # a lost letter must not take the actor down
            book.forget(key)
            log.error("dead letter for %s lost: %s", msg.subject, redact_secrets(str(exc)))
            return False
        return True

    async def stop_intake(self) -> None:
        self.stopping = True
        for sub in self.subscriptions:
            await sub.unsubscribe()


class ActorSystem:
    """Runs actors on a bus: readiness through ``tg.start``, one-for-one restarts, dead letters.

    A message fails alone: an undecodable one, one a handler refuses (``MessageRefused``) and
    one whose handler raises become dead letters (a durable one after its redeliveries);
    handlers of other messages keep running. Only a failing ``setup`` or ``background``
    restarts an actor.

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
    ) -> None:
        self.bus = bus
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

    def stats(self, name: str) -> ActorStats:
        return self._runners[name].stats

    async def run(self, *, task_status: TaskStatus[None] = anyio.TASK_STATUS_IGNORED) -> None:
        """Run every actor until cancelled or ``stop()``; ready once all are subscribed."""
        if not self._runners:
            raise ConfigError("no actors configured; add() at least one before run()")
        try:
            with anyio.CancelScope() as scope:
                self._scope = scope
                async with anyio.create_task_group() as tg:
                    for runner in self._runners.values():
                        await tg.start(runner.supervise)
                    task_status.started()
        finally:
            self._done.set()

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


def _single(exc: Exception) -> Exception:
    """The one exception inside (nested) single-exception groups, else ``exc``."""
    while isinstance(exc, ExceptionGroup) and len(exc.exceptions) == 1:
        inner = exc.exceptions[0]
        if not isinstance(inner, Exception):
            break
        exc = inner
    return exc


def _cannot_decode(route: Route[Any], exc: Exception) -> str:
    name = getattr(route.type, "__name__", repr(route.type))
    return f"invalid {name}: cannot be decoded ({type(exc).__name__})"


async def _settle(msg: Msg, how: Literal["ack", "nak", "term"], delay: float | None = None) -> None:
    """Ack, nak or term a durable message (no-op for core ones); a failure is logged only:
    the server redelivers an unsettled message after its ack wait."""
    try:
        if how == "ack":
            await msg.ack()
        elif how == "nak":
            await msg.nak(delay)
        else:
            await msg.term()
    except Exception as exc:
        log.warning("%s of %s failed: %s", how, msg.subject, redact_secrets(str(exc)))
