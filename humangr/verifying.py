"""``humangr.verify_decision``: what an executor runs before it acts on a decision.

It verifies the Supervisor's signatures (``humangr.engine.signatures.verify_decision``) and,
given ``seen=`` — a ``StateStore`` (memory, SQLite, NATS KV) or any bucket with an atomic
``create`` — records each approval it passes under its action id, so one approval authorises
one execution: a replayed approval, or a second approval of an action already executed, raises
``DecisionReused``. Without ``seen=`` it is the plain, synchronous signature check::

    humangr.verify_decision(report, "N…")                      # signatures only
    await humangr.verify_decision(report, "N…", seen=store)    # and at most once

The record is created before the executor acts (check, then act): an executor that dies after
recording and before acting has used the approval; it submits the action again for a new one.
That new submission (a new action id, the same action hash) gets the decision standing for the
hash under its own id — signed and bound to that id — so a legitimate repeat runs again, and
each decision is still used once.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Iterable
from typing import Protocol, overload, runtime_checkable

import msgspec

from humangr.contracts import HumanLayerReport, Outcome
from humangr.engine.errors import SignatureError, StateConflict, StateError
from humangr.engine.signatures import verify_decision as _verify_signatures
from humangr.engine.state.base import StateStore, check_key

__all__ = ["USED_APPROVALS", "DecisionReused", "SeenStore", "verify_decision"]

USED_APPROVALS = "used_approvals"
"""The bucket a ``StateStore`` given as ``seen=`` keeps the used approvals in."""


class DecisionReused(SignatureError):
    """An approval was presented a second time (replayed, or a second approval of an action
    already executed): one approval authorises one execution. Do not act; submit the action
    again for a new decision."""


@runtime_checkable
class SeenStore(Protocol):
    """Where used approvals are recorded: anything whose ``create`` writes a key only if it has
    no entry yet and raises ``StateConflict`` otherwise (a ``StateStore`` bucket)."""

    async def create(self, key: str, value: bytes) -> int:
        """Write ``value`` under ``key`` only if ``key`` has no entry, else ``StateConflict``."""
        ...


class _Used(msgspec.Struct, frozen=True):
    report_id: str
    action_hash: str
    used_at: float


@overload
def verify_decision(
    report: HumanLayerReport,
    trusted: str | Iterable[str],
    *,
    seen: None = None,
    require_whole: bool = False,
) -> str | None: ...


@overload
def verify_decision(
    report: HumanLayerReport,
    trusted: str | Iterable[str],
    *,
    seen: SeenStore | StateStore,
    require_whole: bool = False,
) -> Awaitable[str | None]: ...


def verify_decision(
    report: HumanLayerReport,
    trusted: str | Iterable[str],
    *,
    seen: SeenStore | StateStore | None = None,
    require_whole: bool = False,
) -> str | Awaitable[str | None] | None:
    """Raise ``SignatureError`` unless ``report`` is signed by a ``trusted`` key and unchanged
    since; return a notice for a report signed over its binding only (see
    ``humangr.engine.signatures.verify_decision``), else ``None``.

    With ``seen=`` the call is awaited and, for an approval, also records it under its action
    id: a second use of an approval for that action id — the same report again, or another
    approval of it — raises ``DecisionReused`` (a ``SignatureError``). Other outcomes are
    verified, never recorded (nothing is executed on them). A store that cannot record raises
    ``StateError``: do not act then either."""
    notice = _verify_signatures(report, trusted, require_whole=require_whole)
    if seen is None:
        return notice
    return _record(report, seen, notice)


async def _record(
    report: HumanLayerReport, seen: SeenStore | StateStore, notice: str | None
) -> str | None:
    if report.outcome is not Outcome.APPROVED:
        return notice
    bucket: SeenStore
    if isinstance(seen, StateStore):
        bucket = await seen.bucket(USED_APPROVALS)
    elif isinstance(seen, SeenStore):
        bucket = seen
    else:
        raise TypeError(
            f"seen= takes a StateStore or a bucket with an atomic create(key, value), not "
            f"{type(seen).__name__}"
        )
    try:
        key = check_key(report.action_id)
    except StateError:
        raise SignatureError(
            f"the decision's action id {report.action_id!r} cannot be recorded as used: do not "
            "act on it"
        ) from None
    used = _Used(report.report_id, report.action_hash, time.time())
    try:
        await bucket.create(key, msgspec.json.encode(used))
    except StateConflict:
        raise DecisionReused(
            f"the approval of action {report.action_id} (report {report.report_id}) is not "
            "the first one used for that action: an approval authorises one execution. Do not "
            "act; submit the action again for a new decision"
        ) from None
    return notice
