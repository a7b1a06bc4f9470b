"""The stored decisions a replay re-decides, read from a decisions bucket without changing it.

``stored_decision`` reads one entry of the ``decisions`` bucket as ``humangr replay`` needs it
(the first decision of an action, with its action), for the SQLite state file and for a served
engine's Supervisor alike, so both say the same of the same entries. ``history_page`` cuts the
entries into the bounded pages a Supervisor answers a ``HistoryQuery`` with. Pure: no I/O, and
a damaged entry is reported as skipped, never quarantined nor removed (a replay writes nothing).
"""

from __future__ import annotations

from collections.abc import Iterable

import msgspec

from humangr.contracts import encode
from humangr.contracts.history import HistoryPage, HistoryQuery, StoredDecision
from humangr.engine.state.base import Entry
from humangr.engine.state.review_records import FINAL, DecisionRecord

__all__ = ["PAGE_BYTES", "history_page", "stored_decision"]

PAGE_BYTES = 512 * 1024
"""A page stops growing once its decisions take this many bytes (it always holds one)."""
_NAME = 80
_decoder = msgspec.json.Decoder(DecisionRecord)


def stored_decision(key: str, value: bytes) -> StoredDecision | str | None:
    """The decision stored under ``key``; ``None`` for an entry a replay does not read (a
    human's or the deadline's final decision); else one line saying why it is skipped."""
    name = key[:_NAME]
    if key.endswith(FINAL):
        return None
    try:
        record = _decoder.decode(value)
    except (msgspec.DecodeError, UnicodeError) as exc:
        return f"{name}: damaged entry skipped ({str(exc)[:160]})"
    if record.action is None:
        return f"{name}: no action stored with the decision; skipped"
    if record.report.action_id != key:
        return f"{name}: damaged entry skipped (it decides another action)"
    return StoredDecision(key=key, report=record.report, action=record.action)


def history_page(
    entries: Iterable[Entry], query: HistoryQuery, *, budget: int = PAGE_BYTES
) -> HistoryPage:
    """The page of ``entries`` (in key order) that answers ``query``: at most ``query.limit``
    decisions and skipped lines after ``query.after``, decided at or after ``query.since``,
    and at most about ``budget`` bytes; ``next`` names the last entry read when more may
    follow."""
    decisions: list[StoredDecision] = []
    skipped: list[str] = []
    size = 0
    last: str | None = None
    for entry in entries:
        if query.after is not None and entry.key <= query.after:
            continue
        if len(decisions) + len(skipped) >= query.limit or size >= budget:
            return HistoryPage(decisions=decisions, skipped=skipped, next=last)
        last = entry.key
        found = stored_decision(entry.key, entry.value)
        if found is None:
            continue
        if isinstance(found, str):
            skipped.append(found)
        elif query.since is None or found.report.decided_at >= query.since:
            decisions.append(found)
            size += len(encode(found))
    return HistoryPage(decisions=decisions, skipped=skipped)
