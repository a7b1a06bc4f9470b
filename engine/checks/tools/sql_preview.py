"""A rolled-back preview: ``BEGIN; UPDATE … RETURNING …; ROLLBACK;`` shows what a change would
touch and then undoes it, so its row changes are no change at all. Only plain row statements
(SELECT, INSERT, UPDATE, DELETE, MERGE, WITH) between the transaction's start and a final
ROLLBACK count — no COMMIT, no savepoint release, no DDL (MySQL commits DDL at once), no
session or server statement; their other findings (injection, a called routine, sessions
ended) stay. Pure, over the statements' leading words."""

from __future__ import annotations

from collections.abc import Sequence

from .sql_parse import Parsed

__all__ = ["ROW_HEADS", "rolled_back"]

ROW_HEADS = frozenset({"SELECT", "INSERT", "UPDATE", "DELETE", "MERGE", "WITH"})
"""Statements whose row changes a ROLLBACK undoes in every dialect."""
_STARTS = (["BEGIN"], ["START", "TRANSACTION"], ["BEGIN", "TRANSACTION"], ["BEGIN", "TRAN"])


def rolled_back(parsed: Sequence[Parsed]) -> bool:
    """The script opens a transaction, runs only row statements and ends in ROLLBACK."""
    if len(parsed) < 3 or len(parsed) > 50:
        return False
    first = parsed[0].stmt.words(3)
    last = parsed[-1].stmt.words(3)
    if not any(first[: len(s)] == s and len(first) <= len(s) + 1 for s in _STARTS):
        return False
    if last[:1] != ["ROLLBACK"] or "TO" in last:
        return False  # ``ROLLBACK TO SAVEPOINT`` undoes only part
    middle = [p.stmt.words(1) for p in parsed[1:-1]]
    return all(w and w[0] in ROW_HEADS for w in middle)
