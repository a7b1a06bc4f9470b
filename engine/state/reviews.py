"""``ReviewState``: the Supervisors' durable state in a ``StateStore``.

Buckets (keys are action ids; a human's or the deadline's final decision is ``<id>.final``):

- ``decisions`` — every decision with the action it decides, and whether it is out yet. Creating
  the entry is the one gate to deciding: of two Supervisors that reach a decision on the same
  action, one creates it and publishes, the other drops its own.
- ``outbox`` — the decisions created but not yet known to be published, each with its owner's
  lease; one whose lease ran out (its owner died) is taken over and published by any Supervisor.
- ``pending`` — reviews waiting for a human, with their deadlines (wall clock, so a deadline
  that passed while every Supervisor was down is due at once); claimed with compare-and-set
  by whoever resolves or times them out, so that happens once.
- ``inflight`` — reviews under way, with their owner's lease, for buses that do not redeliver
  (in process, NATS core): a review whose owner died is run again.
- ``reports`` — report id → action id, so a report is found by either.
- ``standing`` — the decision standing for each (action hash, policy version): the same action
  under a new id gets it instead of a new review (see ``standing``).
- ``quarantine`` — a copy of each damaged entry found in the others (see ``records``): a
  damaged entry is reported and set aside, never a crash of the Supervisor.

Decisions and reports are kept ``retention_s``; the rest until done.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable
from datetime import UTC, datetime

import msgspec

from humangr.contracts import (
    ActionContext,
    ActionSubmitted,
    HumanLayerReport,
    Outcome,
    ReviewRequested,
)
from humangr.engine.errors import StateConflict, StateError

from .base import StateStore, check_key
from .records import DamagedEntry, OnDamaged, Quarantine, Records, Stored
from .review_records import (
    FINAL,
    DecisionRecord,
    InflightRecord,
    OutboxRecord,
    PendingRecord,
    decision_problem,
    final_key,
    inflight_problem,
    pending_problem,
)
from .standing import StandingBook

__all__ = [
    "FINAL",
    "DecisionRecord",
    "InflightRecord",
    "OutboxRecord",
    "PendingRecord",
    "ReviewState",
    "Stored",
    "final_key",
]

_encode = msgspec.json.Encoder().encode


class ReviewState:
    """What every Supervisor of a deployment shares (see the module docstring)."""

    def __init__(
        self,
        store: StateStore,
        *,
        owner: str,
        retention_s: float,
        review_deadline_s: float,
        lease_s: float = 30.0,
        clock: Callable[[], float] = time.time,
        on_damaged: OnDamaged | None = None,
    ) -> None:
        self.store = store
        self.owner = owner
        self.retention_s = retention_s
        self.review_deadline_s = review_deadline_s
        self.lease_s = lease_s
        self.clock = clock
        self.on_damaged = on_damaged
        """Told of every damaged entry found (once per entry and revision, across processes)."""

    async def open(self) -> None:
        """Open the buckets. A damaged entry is quarantined when it is read: a decision stays
        (``DamagedEntry``), an outbox entry is rebuilt, a pending review is rebuilt from its
        decision when it can be, anything else is removed (see ``records``)."""
        store, keep = self.store, self.retention_s
        q = self.quarantine = await Quarantine.open(store, self.on_damaged, ttl=keep)
        bucket = store.bucket
        self.decisions = Records(
            await bucket("decisions", ttl=keep),
            DecisionRecord,
            q,
            check=decision_problem,
            keep=True,
        )
        self.reports = await bucket("reports", ttl=keep)
        self.outbox = Records(await bucket("outbox"), OutboxRecord, q, repair=self._fresh_outbox)
        self.pending = Records(
            await bucket("pending"), PendingRecord, q, check=pending_problem, repair=self._reopen
        )
        self.inflight = Records(await bucket("inflight"), InflightRecord, q, check=inflight_problem)
        self.standing = await StandingBook(store, q, ttl=keep).open()

    async def _fresh_outbox(self, key: str) -> bytes:
        """An outbox entry of this Supervisor in place of a damaged one: ``drain`` publishes
        the decision if it is not out yet, and removes the entry if it is."""
        return _encode(OutboxRecord(owner=self.owner, lease_until=self._lease()))

    async def _reopen(self, action_id: str) -> bytes | None:
        """The pending review of ``action_id`` rebuilt from its published ``needs_review``
        decision (the deadline counts from that decision), or ``None``."""
        record = await self.decision(action_id)
        if (
            record is None
            or not record.published
            or record.action is None
            or record.report.outcome is not Outcome.NEEDS_REVIEW
            or await self.decisions.bucket.get(final_key(action_id)) is not None
        ):
            return None
        return _encode(self._pending_of(record.report, record.action))

    async def _action_of_report(self, report_id: str) -> str | None:
        """The action id the ``reports`` index gives for ``report_id`` (a damaged index entry
        is quarantined and removed)."""
        entry = await self.reports.get(report_id)
        if entry is None:
            return None
        try:
            return check_key(entry.value.decode("utf-8"))
        except (UnicodeDecodeError, StateError):
            reason = "not an action id (the reports index holds the action id of each report)"
            await self.quarantine.hold("reports", entry, reason, "removed")
            with contextlib.suppress(StateConflict):
                await self.reports.delete(report_id, revision=entry.revision)
            return None

    def _lease(self) -> float:
        return self.clock() + self.lease_s

    # decisions ---------------------------------------------------------------------------

    async def decision(self, key: str) -> DecisionRecord | None:
        found = await self.decisions.get(key)
        return None if found is None else found.value

    async def latest(self, id_: str) -> DecisionRecord | None:
        """The latest decision on an action, by action id or report id: a human's final one
        before the first. A recorded decision counts before it is marked published — it is
        final, signed, and the outbox publishes it — so whoever has just received it can look
        it up at once (the mark comes after the publish)."""
        try:
            action_id = check_key(id_)
        except StateError:  # no key is like that: nothing is stored under it
            return None
        if await self.decisions.bucket.get(id_) is None:
            indexed = await self._action_of_report(id_)
            if indexed is None:
                return None
            action_id = indexed
        for key in (final_key(action_id), action_id):
            record = await self.decision(key)
            if record is not None:
                return record
        return None

    async def begin(self, key: str, record: DecisionRecord, *, since: int = 0) -> bool:
        """Take the right to publish this decision: ``False`` if one exists under ``key``."""
        try:
            await self.decisions.bucket.create(key, _encode(record))
        except StateConflict:
            return False
        entry = OutboxRecord(owner=self.owner, lease_until=self._lease(), since=since)
        await self.outbox.bucket.put(key, _encode(entry))
        report = record.report  # indexed now: its id is looked up as soon as it is out
        await self.reports.put(report.report_id, report.action_id.encode())
        return True

    async def ensure_outbox(self, key: str) -> None:
        """Put an unpublished decision (back) in the outbox if it is not there: its owner died
        between recording it and queueing it."""
        entry = OutboxRecord(owner=self.owner, lease_until=self._lease())
        try:
            await self.outbox.bucket.create(key, _encode(entry))
        except StateConflict:
            return

    async def finish(self, key: str, begun: DecisionRecord | None = None) -> DecisionRecord | None:
        """After the decision under ``key`` is out: mark it, index its report, open or close the
        human review, forget the review in flight, empty the outbox. Idempotent.

        ``begun``: the record this Supervisor's ``begin`` just created under ``key`` (that
        create is exclusive, and only its owner marks it), so it is not read back."""
        if begun is not None:
            record = begun
        else:
            try:
                found = await self.decisions.get(key)
            except DamagedEntry:  # quarantined and reported: there is nothing sound to publish
                found = None
            if found is None:
                await self.outbox.bucket.delete(key)
                return None
            record = found.value
        if not record.published:
            record = msgspec.structs.replace(record, published=True)
            await self.decisions.bucket.put(key, _encode(record))
        report = record.report
        await self.reports.put(report.report_id, report.action_id.encode())
        if key.endswith(FINAL):
            await self.pending.bucket.delete(report.action_id)
        elif report.outcome is Outcome.NEEDS_REVIEW and record.action is not None:
            await self._open_review(record.report, record.action)
        await self.inflight.bucket.delete(report.action_id)
        await self.outbox.bucket.delete(key)
        return record

    async def _open_review(self, report: HumanLayerReport, action: ActionContext) -> None:
        if await self.decisions.bucket.get(final_key(report.action_id)) is not None:
            return
        pending = self._pending_of(report, action)
        try:
            await self.pending.bucket.create(report.action_id, _encode(pending))
        except StateConflict:
            return

    def _pending_of(self, report: HumanLayerReport, action: ActionContext) -> PendingRecord:
        deadline = report.decided_at.timestamp() + self.review_deadline_s
        request = ReviewRequested(
            action_id=report.action_id,
            action_hash=report.action_hash,
            report_id=report.report_id,
            action=action,
            blocking_reasons=report.blocking_reasons,
            deadline=datetime.fromtimestamp(deadline, UTC),
        )
        return PendingRecord(report=report, request=request, deadline=deadline)

    async def stale_outbox(self) -> list[tuple[str, Stored[OutboxRecord]]]:
        """Outbox entries whose owner's lease ran out."""
        now = self.clock()
        return [(k, s) for k, s in await self.outbox.all() if s.value.lease_until <= now]

    async def claim_outbox(self, key: str, revision: int, since: int = 0) -> bool:
        claim = OutboxRecord(owner=self.owner, lease_until=self._lease(), since=since)
        try:
            await self.outbox.bucket.update(key, _encode(claim), revision)
        except StateConflict:
            return False
        return True

    # pending reviews ---------------------------------------------------------------------

    async def pending_review(self, action_id: str) -> Stored[PendingRecord] | None:
        return await self.pending.get(action_id)

    async def pending_reviews(self) -> list[Stored[PendingRecord]]:
        return [stored for _, stored in await self.pending.all()]

    async def claim_review(
        self, stored: Stored[PendingRecord], *, hold_s: float | None = None
    ) -> bool:
        """Claim a pending review to resolve or time it out; ``False`` if another holds it.
        The claim keeps others off for ``hold_s`` (the lease if ``None``): it is never renewed,
        so a claimant that died frees the review when it runs out."""
        record = stored.value
        if record.claimed_by and record.claim_until > self.clock():
            return False
        until = self._lease() if hold_s is None else self.clock() + hold_s
        claimed = msgspec.structs.replace(record, claimed_by=self.owner, claim_until=until)
        try:
            await self.pending.bucket.update(
                record.report.action_id, _encode(claimed), stored.revision
            )
        except StateConflict:
            return False
        return True

    async def mark_announced(self, stored: Stored[PendingRecord]) -> None:
        announced = msgspec.structs.replace(stored.value, announced=True)
        try:
            await self.pending.bucket.update(
                stored.value.report.action_id, _encode(announced), stored.revision
            )
        except StateConflict:
            return

    # reviews in flight -------------------------------------------------------------------

    async def track(self, submitted: ActionSubmitted) -> None:
        record = InflightRecord(submitted=submitted, owner=self.owner, lease_until=self._lease())
        await self.inflight.bucket.put(submitted.action_id, _encode(record))

    async def renew(self, action_id: str) -> None:
        found = await self.inflight.get(action_id)
        if found is not None and found.value.owner == self.owner:
            renewed = msgspec.structs.replace(found.value, lease_until=self._lease())
            try:
                await self.inflight.bucket.update(action_id, _encode(renewed), found.revision)
            except StateConflict:
                return

    async def stale_inflight(self) -> list[Stored[InflightRecord]]:
        now = self.clock()
        return [s for _, s in await self.inflight.all() if s.value.lease_until <= now]

    async def claim_inflight(self, stored: Stored[InflightRecord]) -> bool:
        claimed = msgspec.structs.replace(stored.value, owner=self.owner, lease_until=self._lease())
        try:
            await self.inflight.bucket.update(
                stored.value.submitted.action_id, _encode(claimed), stored.revision
            )
        except StateConflict:
            return False
        return True

    async def untrack(self, action_id: str) -> None:
        await self.inflight.bucket.delete(action_id)
