"""``DecisionOutbox``: how a Supervisor gets a decision out exactly once.

The decision is first recorded in the shared state (``ReviewState.begin``: whoever creates the
record decides; a second Supervisor that reached its own decision on the same action drops it),
then published — retried a few times at once — and then marked published (``finish``). If the
publish keeps failing or the process dies in between, the record waits in the outbox and
``drain`` publishes it later, from this Supervisor or, once its lease has run out, from any
other. A bus that keeps a log of what it published (JetStream) is asked first, so a decision
already out is not sent twice.

A first decision of an action hash also becomes its standing decision (``standing``): the same
action under another id gets that outcome, never a review of its own that could disagree.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Protocol, runtime_checkable

from humangr.contracts import ActionContext, HumanLayerReport, encode
from humangr.engine.actor import ActorContext
from humangr.engine.backoff import Backoff
from humangr.engine.errors import BusClosedError, BusError, StateError
from humangr.engine.letters import dead_letter
from humangr.engine.signing import SigningKey
from humangr.engine.state.records import DamagedEntry
from humangr.engine.state.reviews import FINAL, DecisionRecord, ReviewState

from .standing import Standings, standing_copy, stands, yields

__all__ = [
    "DECISION_LOOKBACK",
    "PUBLISH_ATTEMPTS",
    "DecisionOutbox",
    "PublishLog",
    "decision_msg_id",
]

log = logging.getLogger("humangr.supervisor")

PUBLISH_ATTEMPTS = 4
"""Tries to publish a decision at once before it is left to the outbox."""
_BACKOFF = Backoff(0.05, factor=5.0, cap=1.0)
"""Waits between those tries: 50 ms, 250 ms, 1 s."""
DECISION_LOOKBACK = 2_000
"""The latest messages of the events stream searched for an earlier decision under the same
key before a new one is signed (a bound on the work of each check)."""


@runtime_checkable
class PublishLog(Protocol):
    """A bus that keeps a log of what it published (JetStream) and can be asked about it."""

    async def log_position(self, subject: str) -> int | None:
        """Where the log of ``subject`` stands now (``None``: no log keeps it)."""
        ...

    async def was_published(self, subject: str, msg_id: str, *, since: int) -> bool | None:
        """Whether ``msg_id`` went out on ``subject`` after ``since``; ``None``: cannot tell."""
        ...


def decision_msg_id(key: str) -> str:
    """The ``Nats-Msg-Id`` of the decision stored under ``key``."""
    if key.endswith(FINAL):
        return f"decision:{key.removesuffix(FINAL)}:resolved"
    return f"decision:{key}"


class DecisionOutbox:
    """Records, signs and publishes decisions (see the module docstring)."""

    def __init__(
        self,
        ctx: ActorContext,
        state: ReviewState,
        signer: SigningKey,
        on_recorded: Callable[[HumanLayerReport], bool | None] | None = None,
    ) -> None:
        self.ctx = ctx
        self.state = state
        self.signer = signer
        self.on_recorded = on_recorded
        """Told of each decision once it is signed and recorded, before it is published: the
        embedded engine hands it to its own waiters (``LocalDecisions``). ``True`` from it:
        they are all the bus would deliver it to, so it is not published (only marked)."""
        self._sending: set[str] = set()
        """Keys being published right now by this Supervisor (``drain`` leaves them alone)."""
        self.standings = Standings(ctx, state, signer)
        self.publish_log: PublishLog | None = ctx.bus if isinstance(ctx.bus, PublishLog) else None
        """The bus as a log of what it published (JetStream), asked once: ``None`` if it keeps
        none (a protocol check costs too much to repeat for each decision)."""

    async def decide(
        self,
        key: str,
        report: HumanLayerReport,
        action: ActionContext | None = None,
        *,
        overrules: bool = False,
    ) -> HumanLayerReport | None:
        """Record, publish and mark the decision under ``key``. ``None`` when a decision is
        recorded there already (nothing is published), else the signed decision recorded (the
        standing one's copy, see below, when one stands). A publish that keeps failing is left in
        the outbox for ``drain``; the decision is recorded either way. It is signed first,
        so what is stored, published and answered to ``report`` queries is the signed one.

        At most one distinct signed decision goes out per key: before signing, the decisions
        bucket and (on JetStream) the events stream are asked for an earlier one. One found is
        republished as it is (byte for byte) when the bucket holds it, and this second one is
        refused: dead-lettered on ``dlq`` with why, never signed nor published.

        At most one distinct outcome per action hash and policy version: a first decision
        whose hash has a standing decision (``standing``) is replaced by a copy of it, bound to
        ``key``'s action; one that has none becomes it (compare-and-set: of two racing, the
        loser publishes the winner's outcome). A final decision (``<id>.final``) with
        ``overrules`` — a human's resolution with no grant — becomes the standing one."""
        if await self._decided_before(key, report):
            return None
        report = await self._standing(key, report)
        since = 0
        if self.publish_log is not None:
            subject = self.ctx.subjects.decision(report.agent_id)
            since = await self.publish_log.log_position(subject) or 0
        record = DecisionRecord(report=report, action=action)
        if not await self.state.begin(key, record, since=since):
            await self._refuse(key, report, "another Supervisor recorded its decision first")
            return None
        if overrules and key.endswith(FINAL):
            await self.state.standing.overrule(report)  # a human's word stands from now on
        self.ctx.metrics.count_decision(report.outcome.value)
        handed = self.on_recorded is not None and self.on_recorded(report)
        if handed:
            sent = True
        else:
            self._sending.add(key)
            try:
                sent = await self._send(key, report)
            finally:
                self._sending.discard(key)
        if sent:
            try:
                await self.state.finish(key, record)
            except StateError as exc:
                log.warning("decision %s is out but not marked yet (%s); later", key, exc)
        return report

    async def _standing(self, key: str, report: HumanLayerReport) -> HumanLayerReport:
        """``report`` signed — or, when another decision stands for its hash, a signed copy of
        that one (the standing report itself if it is this action's)."""
        if not yields(key, report):
            return self.signer.sign(report)
        standing = await self.standings.find(
            report.action_hash, report.policy_version, report.agent_id
        )
        if standing is None:
            signed = self.signer.sign(report)
            if not stands(key, signed):
                return signed  # judged nothing (a layer did not answer): it does not stand
            standing = await self.state.standing.claim(signed)
            if standing is signed:
                return signed
        if standing.action_id == report.action_id:
            return standing  # this action's own, recorded before a crash: as it was signed
        if standing.outcome is not report.outcome:
            log.warning(
                "%s: reviewed %s, but %s stands for its hash (action %s): that one is published",
                key,
                report.outcome,
                standing.outcome,
                standing.action_id,
            )
        return self.signer.sign(standing_copy(standing, report.action_id, report.report_id))

    async def _decided_before(self, key: str, report: HumanLayerReport) -> bool:
        """Whether a decision under ``key`` exists already (then it is republished if out, and
        ``report`` is refused); a damaged entry is left to ``begin``, which refuses too."""
        try:
            existing = await self.state.decision(key)
        except DamagedEntry:
            return False
        if existing is not None:
            await self.republish(key)
            await self._refuse(key, report, _described(existing.report))
            return True
        published = self.publish_log
        if published is None:
            return False
        subject = self.ctx.subjects.decision(report.agent_id)
        position = await published.log_position(subject)
        if position is None:
            return False
        since = max(0, position - DECISION_LOOKBACK)
        found = await published.was_published(subject, decision_msg_id(key), since=since)
        if not found:
            return False
        await self._refuse(
            key,
            report,
            "the events stream holds a decision published under this key, but the decisions "
            "bucket has no record of it (a lost write, or a store restored from an older "
            "backup); that decision stands",
        )
        return True

    async def republish(self, key: str) -> bool:
        """Publish again, byte for byte, the decision recorded and marked published under
        ``key`` (one not out yet is the outbox's); ``True`` if it was sent."""
        try:
            record = await self.state.decision(key)
        except DamagedEntry:
            return False
        if record is None or not record.published:
            return False
        return await self._send(key, record.report)

    async def _refuse(self, key: str, report: HumanLayerReport, found: str) -> None:
        """Dead-letter a second decision under ``key`` (on ``dlq`` only: the agent has, or
        will get, the first one)."""
        error = (
            f"a second decision on {key} ({report.outcome}, for action hash "
            f"{report.action_hash[:16]}…) was refused, not signed nor published: {found}. "
            "At most one signed decision goes out per action; nothing to do unless the first "
            "one is missing (then an operator looks at the decisions bucket)"
        )
        log.warning("%s", error)
        letter = dead_letter(
            self.ctx.subjects.decision(report.agent_id),
            error,
            actor=self.ctx.actor_name,
            deliveries=0,
            correlation_id=report.action_id,
        )
        metrics = self.ctx.metrics
        metrics.dead_letters.labels(letter.subject).inc()
        metrics.dead_letter_reasons.labels(reason="refused").inc()
        try:
            await self.ctx.publish(self.ctx.subjects.dlq, letter)
        except BusClosedError:
            raise
        except BusError as exc:
            log.error("dead letter of the second decision on %s lost: %s", key, exc)

    async def _send(self, key: str, report: HumanLayerReport) -> bool:
        subject = self.ctx.subjects.decision(report.agent_id)
        headers = {"Nats-Msg-Id": decision_msg_id(key), **self.standings.header(key, report)}
        data = encode(report)
        for attempt in range(PUBLISH_ATTEMPTS):
            try:
                await self.ctx.bus.publish(subject, data, headers=headers)
                return True
            except BusClosedError:
                raise
            except BusError as exc:
                log.warning(
                    "publishing the decision %s failed (attempt %d of %d): %s",
                    key,
                    attempt + 1,
                    PUBLISH_ATTEMPTS,
                    exc,
                )
                if attempt + 1 < PUBLISH_ATTEMPTS:
                    await _BACKOFF.sleep(attempt)
        return False

    async def drain(self) -> None:
        """Publish what the outbox holds: this Supervisor's entries, and others' whose lease
        ran out (claimed first, so one Supervisor does it)."""
        for key, stored in await self.state.outbox.all():
            if key in self._sending:
                continue
            entry = stored.value
            mine = entry.owner == self.state.owner
            if not mine and entry.lease_until > self.state.clock():
                continue
            if not mine and not await self.state.claim_outbox(key, stored.revision, entry.since):
                continue
            try:
                await self._republish(key, entry.since)
            except StateError as exc:
                log.warning("outbox entry %s: %s; trying again", key, exc)

    async def _republish(self, key: str, since: int) -> None:
        try:
            record = await self.state.decision(key)
        except DamagedEntry:  # quarantined and reported: nothing sound to publish
            record = None
        if record is None or record.published:
            await self.state.finish(key)
            return
        report = record.report
        if self.publish_log is not None:
            subject = self.ctx.subjects.decision(report.agent_id)
            if await self.publish_log.was_published(subject, decision_msg_id(key), since=since):
                log.info("decision %s was out already; marking it", key)
                await self.state.finish(key)
                return
        self._sending.add(key)
        try:
            sent = await self._send(key, report)
        finally:
            self._sending.discard(key)
        if sent:
            log.info("decision %s published from the outbox", key)
            await self.state.finish(key)


def _described(existing: HumanLayerReport) -> str:
    return (
        f"a decision is recorded under this key already (report {existing.report_id}, "
        f"{existing.outcome}, for action hash {existing.action_hash[:16]}…); that one stands "
        "and was published again unchanged if it was out"
    )
