"""``StandingBook``: the standing decision of each (action hash, policy version).

An action is decided once per hash, not per action id: the same action submitted again under a
new id, under the same policy, gets the decision that stands for its hash, not a new review
(an agent cannot shop for an approval by resubmitting). The ``standing`` bucket holds, per
``standing_key(action_hash, policy_version)``, the signed report whose outcome stands:

- the first decision of the hash creates the entry (compare-and-set: of two ids of one hash
  racing through review, one creates it and the other publishes its outcome);
- a human's resolution of a review of that hash overrules it (``overrule``: the latest
  resolution stands). A review that timed out does not: no one looked at it.

A damaged entry is quarantined and removed (the events stream is asked instead, see
``actors.review.standing``). Entries are kept as long as the decisions (``retention_s``).
"""

from __future__ import annotations

import functools
from typing import Literal

import msgspec

from humangr.contracts import HumanLayerReport, canonical_json, sha256_hex
from humangr.engine.errors import StateConflict

from .base import StateStore
from .records import DamagedEntry, Quarantine, Records

__all__ = ["STANDING_BUCKET", "StandingBook", "StandingRecord", "standing_key", "standing_problem"]

STANDING_BUCKET = "standing"
_encode = msgspec.json.Encoder().encode


class StandingRecord(msgspec.Struct, frozen=True, kw_only=True):
    """The decision standing for one (action hash, policy version)."""

    report: HumanLayerReport
    """The signed report whose outcome stands (its ``action_id`` is the standing action)."""
    kind: Literal["standing"] = "standing"


@functools.lru_cache(maxsize=1_024)
def standing_key(action_hash: str, policy_version: str) -> str:
    """The key of the standing decision of ``action_hash`` under ``policy_version``."""
    return "h" + sha256_hex(canonical_json(["standing", action_hash, policy_version]))[:48]


def standing_problem(key: str, record: StandingRecord) -> str | None:
    """Why a standing record is damaged though it decodes: it is another hash's or policy's."""
    report = record.report
    if key != standing_key(report.action_hash, report.policy_version):
        return (
            f"it is the standing decision of hash {report.action_hash[:16]}… under policy "
            f"{report.policy_version[:64]!r}, not of the key it is stored under"
        )
    return None


class StandingBook:
    """The ``standing`` bucket of a store (``open`` it first)."""

    def __init__(self, store: StateStore, quarantine: Quarantine, *, ttl: float | None) -> None:
        self._store = store
        self._quarantine = quarantine
        self._ttl = ttl

    async def open(self) -> StandingBook:
        """Open the bucket."""
        bucket = await self._store.bucket(STANDING_BUCKET, ttl=self._ttl)
        self.records = Records(bucket, StandingRecord, self._quarantine, check=standing_problem)
        return self

    async def get(self, action_hash: str, policy_version: str) -> HumanLayerReport | None:
        """The report standing for the hash under the policy, or ``None`` (none recorded, or a
        damaged one that was quarantined and removed)."""
        try:
            found = await self.records.get(standing_key(action_hash, policy_version))
        except DamagedEntry:  # never kept (keep=False); a defensive fallback only
            return None
        return None if found is None else found.value.report

    async def claim(self, report: HumanLayerReport) -> HumanLayerReport:
        """Make ``report`` the standing decision of its hash unless one stands already; the
        report that stands after the call (``report`` itself if it won)."""
        key = standing_key(report.action_hash, report.policy_version)
        for _ in range(3):
            try:
                await self.records.bucket.create(key, _encode(StandingRecord(report=report)))
            except StateConflict:
                standing = await self.get(report.action_hash, report.policy_version)
                if standing is not None:
                    return standing
                continue  # removed meanwhile (damaged, or expired): try again
            return report
        return report

    async def overrule(self, report: HumanLayerReport) -> None:
        """Make ``report`` (a human's resolution) the standing decision of its hash."""
        key = standing_key(report.action_hash, report.policy_version)
        await self.records.bucket.put(key, _encode(StandingRecord(report=report)))
