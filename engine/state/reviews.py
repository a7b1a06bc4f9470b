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

Decisions and reports are kept ``retention_s``; the rest until done.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Generic, TypeVar

import msgspec

from humangr.contracts import (
    ActionContext,
    ActionSubmitted,
    HumanLayerReport,
    Outcome,
    ReviewRequested,
)
from humangr.engine.errors import StateConflict

from .base import Bucket, StateStore

__all__ = [
    "DecisionRecord",
    "InflightRecord",
    "OutboxRecord",
    "PendingRecord",
    "ReviewState",
    "Stored",
    "final_key",
]

T = TypeVar("T")
FINAL = ".final"


def final_key(action_id: str) -> str:
    """The key of an action's final decision (after a human or the review deadline)."""
    return f"{action_id}{FINAL}"


class DecisionRecord(msgspec.Struct, frozen=True, kw_only=True):
    report: HumanLayerReport
    action: ActionContext | None = None
    """The action decided (on the first decision; the final one shares it)."""
    published: bool = False


class OutboxRecord(msgspec.Struct, frozen=True, kw_only=True):
    owner: str
    lease_until: float
    since: int = 0
    """The position of the bus's publish log before the first try (0: unknown)."""


class PendingRecord(msgspec.Struct, frozen=True, kw_only=True):
    report: HumanLayerReport
    request: ReviewRequested
    deadline: float
    """Wall-clock time (epoch seconds) after which the review is rejected."""
    announced: bool = False
    claimed_by: str = ""
    claim_until: float = 0.0


class InflightRecord(msgspec.Struct, frozen=True, kw_only=True):
    submitted: ActionSubmitted
    owner: str
    lease_until: float


class Stored(msgspec.Struct, Generic[T], frozen=True):
    """A record and the revision it was read at (for compare-and-set)."""

    value: T
    revision: int


class _Records(Generic[T]):
    """One bucket of one record type."""

    def __init__(self, bucket: Bucket, type_: type[T]) -> None:
        self.bucket = bucket
        self._decoder = msgspec.json.Decoder(type_)

    async def get(self, key: str) -> Stored[T] | None:
        entry = await self.bucket.get(key)
        return None if entry is None else Stored(self._decoder.decode(entry.value), entry.revision)

    async def all(self) -> list[tuple[str, Stored[T]]]:
        return [
            (e.key, Stored(self._decoder.decode(e.value), e.revision))
            for e in await self.bucket.entries()
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
    ) -> None:
        self.store = store
        self.owner = owner
        self.retention_s = retention_s
        self.review_deadline_s = review_deadline_s
        self.lease_s = lease_s
        self.clock = clock

    async def open(self) -> None:
        store, keep = self.store, self.retention_s
        self.decisions = _Records(await store.bucket("decisions", ttl=keep), DecisionRecord)
        self.reports = await store.bucket("reports", ttl=keep)
        self.outbox = _Records(await store.bucket("outbox"), OutboxRecord)
        self.pending = _Records(await store.bucket("pending"), PendingRecord)
        self.inflight = _Records(await store.bucket("inflight"), InflightRecord)

    def _lease(self) -> float:
        return self.clock() + self.lease_s

    # decisions ---------------------------------------------------------------------------

    async def decision(self, key: str) -> DecisionRecord | None:
        found = await self.decisions.get(key)
        return None if found is None else found.value

    async def latest(self, id_: str) -> DecisionRecord | None:
        """The latest published decision on an action, by action id or report id."""
        action_id = id_
        if await self.decisions.bucket.get(id_) is None:
            entry = await self.reports.get(id_)
            if entry is None:
                return None
            action_id = entry.value.decode()
        for key in (final_key(action_id), action_id):
            record = await self.decision(key)
            if record is not None and record.published:
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
        return True

    async def ensure_outbox(self, key: str) -> None:
        """Put an unpublished decision (back) in the outbox if it is not there: its owner died
        between recording it and queueing it."""
        entry = OutboxRecord(owner=self.owner, lease_until=self._lease())
        try:
            await self.outbox.bucket.create(key, _encode(entry))
        except StateConflict:
            return

    async def finish(self, key: str) -> DecisionRecord | None:
        """After the decision under ``key`` is out: mark it, index its report, open or close the
        human review, forget the review in flight, empty the outbox. Idempotent."""
        found = await self.decisions.get(key)
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
        deadline = report.decided_at.timestamp() + self.review_deadline_s
        request = ReviewRequested(
            action_id=report.action_id,
            action_hash=report.action_hash,
            report_id=report.report_id,
            action=action,
            blocking_reasons=report.blocking_reasons,
            deadline=datetime.fromtimestamp(deadline, UTC),
        )
        pending = PendingRecord(report=report, request=request, deadline=deadline)
        try:
            await self.pending.bucket.create(report.action_id, _encode(pending))
        except StateConflict:
            return

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

    async def claim_review(self, stored: Stored[PendingRecord]) -> bool:
        """Claim a pending review to resolve or time it out; ``False`` if another holds it."""
        record = stored.value
        if record.claimed_by and record.claim_until > self.clock():
            return False
        claimed = msgspec.structs.replace(record, claimed_by=self.owner, claim_until=self._lease())
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
