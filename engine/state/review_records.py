"""The records the Supervisors keep in a ``StateStore`` (see ``reviews``), and what makes one
damaged besides failing to decode: a record stored under a key it does not name."""

from __future__ import annotations

from typing import Literal

import msgspec

from humangr.contracts import ActionContext, ActionSubmitted, HumanLayerReport, ReviewRequested

__all__ = [
    "FINAL",
    "DecisionRecord",
    "InflightRecord",
    "OutboxRecord",
    "PendingRecord",
    "decision_problem",
    "final_key",
    "inflight_problem",
    "pending_problem",
]

FINAL = ".final"


def final_key(action_id: str) -> str:
    """The key of an action's final decision (after a human or the review deadline)."""
    return f"{action_id}{FINAL}"


class DecisionRecord(msgspec.Struct, frozen=True, kw_only=True):
    report: HumanLayerReport
    action: ActionContext | None = None
    """The action decided (on the first decision; the final one shares it)."""
    published: bool = False
    kind: Literal["decision"] = "decision"
    """What the record is (a record of another kind in this bucket is damaged)."""


class OutboxRecord(msgspec.Struct, frozen=True, kw_only=True):
    owner: str
    lease_until: float
    since: int = 0
    """The position of the bus's publish log before the first try (0: unknown)."""
    kind: Literal["outbox"] = "outbox"


class PendingRecord(msgspec.Struct, frozen=True, kw_only=True):
    report: HumanLayerReport
    request: ReviewRequested
    deadline: float
    """Wall-clock time (epoch seconds) after which the review is rejected."""
    announced: bool = False
    claimed_by: str = ""
    claim_until: float = 0.0
    kind: Literal["pending"] = "pending"


class InflightRecord(msgspec.Struct, frozen=True, kw_only=True):
    submitted: ActionSubmitted
    owner: str
    lease_until: float
    kind: Literal["inflight"] = "inflight"


def decision_problem(key: str, record: DecisionRecord) -> str | None:
    """Why a decision is damaged though it decodes: it decides another action than its key."""
    action_id = record.report.action_id
    if key not in (action_id, final_key(action_id)):
        return f"it decides action {action_id[:128]!r}, not the one it is stored under"
    return None


def pending_problem(key: str, record: PendingRecord) -> str | None:
    """Why a pending review is damaged though it decodes: it is another action's review."""
    if not key == record.report.action_id == record.request.action_id:
        return f"it is the review of {record.report.action_id[:128]!r}, not of {key[:128]!r}"
    return None


def inflight_problem(key: str, record: InflightRecord) -> str | None:
    """Why a review in flight is damaged though it decodes: it tracks another action."""
    if key != record.submitted.action_id:
        return f"it tracks {record.submitted.action_id[:128]!r}, not {key[:128]!r}"
    return None
