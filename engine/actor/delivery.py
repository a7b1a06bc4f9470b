"""Delivery of one message to one actor's handler: every failure stays with its message.

A message that cannot be decoded, one a handler refuses and one whose handler raises each end
in a dead letter (a durable one after its redeliveries), and the handlers of other messages go
on. What a dead letter keeps, and when several actors' refusals of one message are one letter,
is in ``letters``.
"""

from __future__ import annotations

import logging
from typing import Any, Literal, Protocol

import anyio

from humangr.contracts import DeadLetter, Subjects, decode, encode
from humangr.contracts.types import is_token
from humangr.engine.backoff import Backoff
from humangr.engine.bus import Bus, Msg
from humangr.engine.errors import ContractError, MessageRefused
from humangr.engine.letters import dead_letter
from humangr.engine.metrics import Metrics
from humangr.engine.redact import redact_secrets

from .base import Route
from .letters import LetterBook, correlation_of, payload_correlation
from .settings import ActorStats, SupervisionPolicy


class Host(Protocol):
    """What a delivery needs of the actor system it runs in (``ActorSystem`` is one)."""

    bus: Bus
    subjects: Subjects
    metrics: Metrics
    policy: SupervisionPolicy
    letters: LetterBook


__all__ = ["Delivery", "settle", "single"]

log = logging.getLogger("humangr.actor")


class Delivery:
    """Decodes, handles and settles the messages of one actor."""

    def __init__(self, system: Host, actor_name: str, stats: ActorStats) -> None:
        self.system = system
        self.actor_name = actor_name
        self.stats = stats
        self.handled_counter = system.metrics.messages_handled.labels(actor_name)

    async def deliver(self, route: Route[Any], msg: Msg) -> None:
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
            exc = single(caught)
            correlation = correlation_of(message)
            sender = _sender(route, message, msg)
            if isinstance(exc, MessageRefused):
                correlation = exc.correlation_id or correlation
                if not await self.dead_letter(
                    route, msg, exc.reason, correlation=correlation, reason="refused", sender=sender
                ):
                    await settle(msg, "nak", self._nak_delay(msg))
                    return
                await settle(msg, "term")
                return
            await self._failed(route, msg, exc, correlation, sender)
            return
        if msg.durable:  # a core message has nothing to settle
            await settle(msg, "ack")
        self.stats.handled += 1
        self.handled_counter.inc()

    async def _undecodable(self, route: Route[Any], msg: Msg, error: str) -> None:
        if not route.report_undecodable:
            self.stats.refused += 1
            log.debug("actor %s dropped an undecodable message on %s", self.actor_name, msg.subject)
            await settle(msg, "term")
            return
        reported = await self.dead_letter(
            route, msg, error, undecodable=True, correlation=payload_correlation(msg.data)
        )
        await settle(msg, "term" if reported else "nak", self._nak_delay(msg))

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

    async def _failed(
        self, route: Route[Any], msg: Msg, exc: Exception, correlation: str, sender: str = ""
    ) -> None:
        """A handler raised: a core message is dead-lettered at once; a durable one goes back
        to the server for redelivery until its last delivery, which is dead-lettered."""
        self.stats.failures += 1
        error = f"{type(exc).__name__}: {exc}"
        log.error(
            "actor %s: handler of %s failed (delivery %d): %s",
            self.actor_name,
            msg.subject,
            msg.delivered,
            redact_secrets(error),
        )
        log.debug("handler failure on %s", msg.subject, exc_info=exc)
        limit = (msg.max_deliver or self.system.policy.max_attempts) if msg.durable else 1
        if msg.delivered < limit:
            await settle(msg, "nak", self._nak_delay(msg))
            return
        times = f"{msg.delivered} times" if msg.delivered > 1 else "once"
        reported = await self.dead_letter(
            route,
            msg,
            f"handler failed {times}: {error}",
            deliveries=msg.delivered,
            correlation=correlation,
            reason="failed",
            sender=sender,
        )
        if reported and msg.durable:
            self.system.metrics.max_deliver_dead_letters.labels(route.subject).inc()
        await settle(msg, "term" if reported else "nak")

    def _nak_delay(self, msg: Msg) -> float:
        policy = self.system.policy
        backoff = Backoff(policy.initial_backoff, cap=policy.max_backoff)
        return backoff.delay(msg.delivered - 1)

    async def dead_letter(
        self,
        route: Route[Any],
        msg: Msg,
        error: str,
        *,
        undecodable: bool = False,
        deliveries: int = 1,
        correlation: str = "",
        reason: str = "refused",
        sender: str = "",
    ) -> bool:
        """Publish a dead letter for ``msg`` unless another actor of this system just did (see
        ``LetterBook``). Raw bytes are kept only for an undecodable message. ``False`` when
        the letter could not be published. ``reason`` labels the count (``undecodable`` is
        implied by ``undecodable``); with ``sender`` (an agent id) a copy goes to that agent's
        own ``agent_dlq``."""
        self.stats.refused += 1
        book = self.system.letters
        key = book.key(msg.subject, msg.data, None if undecodable else error)
        if not msg.durable and not book.first(key, anyio.current_time()):
            log.debug("actor %s: %s already dead-lettered", self.actor_name, msg.subject)
            return True
        letter = dead_letter(
            msg.subject,
            error,
            msg.data if undecodable else b"",
            actor=self.actor_name,
            deliveries=deliveries,
            correlation_id=correlation,
            raw_size=len(msg.data),
            stream_sequence=msg.sequence or 0,
        )
        if await self.publish_letter(
            route, letter, "undecodable" if undecodable else reason, sender=sender
        ):
            return True
        book.forget(key)
        return False

    async def publish_letter(
        self, route: Route[Any], letter: DeadLetter, reason: str, *, sender: str = ""
    ) -> bool:
        """Publish ``letter`` on the dead-letter subject and count it under ``reason`` (one of
        ``DEAD_LETTER_REASONS``); ``False`` (logged) when it could not be published. With
        ``sender`` (the agent the message came from) a copy goes to ``agent_dlq(sender)``,
        so that agent learns of it without reading anyone else's letters; a lost copy is
        logged only (the agent's wait then times out: never an approval)."""
        self.stats.dead_letters += 1
        self.system.metrics.dead_letters.labels(route.subject).inc()
        self.system.metrics.dead_letter_reasons.labels(reason=reason).inc()
        if route.receipt:  # a submission: it ends here, not in a decision
            self.system.metrics.submissions.labels(result="dead_lettered").inc(letter.lost or 1)
        log.warning("actor %s → dlq: %s: %s", self.actor_name, letter.subject, letter.error)
        data = encode(letter)
        subjects = self.system.subjects
        try:
            await self.system.bus.publish(subjects.dlq, data)
        except Exception as exc:  # a lost letter must not take the actor down
            log.error("dead letter for %s lost: %s", letter.subject, redact_secrets(str(exc)))
            return False
        if sender:
            try:
                await self.system.bus.publish(subjects.agent_dlq(sender), data)
            except Exception as exc:
                log.error(
                    "copy of the dead letter for %s to agent %s lost: %s",
                    letter.subject,
                    sender,
                    redact_secrets(str(exc)),
                )
        return True


def single(exc: Exception) -> Exception:
    """The one exception inside (nested) single-exception groups, else ``exc``."""
    while isinstance(exc, ExceptionGroup) and len(exc.exceptions) == 1:
        inner = exc.exceptions[0]
        if not isinstance(inner, Exception):
            break
        exc = inner
    return exc


def _sender(route: Route[Any], message: Any, msg: Msg) -> str:
    """The agent ``message`` came from (``route.subject_sender`` of its subject, else
    ``route.sender``) if it is a valid subject token, else ``""``: its letter then goes to
    ``dlq`` only."""
    if route.subject_sender is None and route.sender is None:
        return ""
    try:
        if route.subject_sender is not None:
            sender = route.subject_sender(msg.subject)
        else:
            assert route.sender is not None
            sender = route.sender(message)
    except Exception as exc:  # a bad message must not take the actor down
        log.warning("sender of a message on %s unknown: %s", route.subject, type(exc).__name__)
        return ""
    return sender if isinstance(sender, str) and is_token(sender) else ""


def _cannot_decode(route: Route[Any], exc: Exception) -> str:
    name = getattr(route.type, "__name__", repr(route.type))
    return f"invalid {name}: cannot be decoded ({type(exc).__name__})"


async def settle(msg: Msg, how: Literal["ack", "nak", "term"], delay: float | None = None) -> None:
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
