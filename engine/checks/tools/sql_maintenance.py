"""Database maintenance that only reads, and the text dynamic SQL runs.

``DBCC CHECKDB``, ``CHECKTABLE``, ``CHECKALLOC`` and their kin verify pages and report; without
a ``REPAIR_…`` option they change nothing, so they run like ``ANALYZE``. The text handed to
``EXECUTE IMMEDIATE`` / ``EXEC('…')`` is SQL by its place: it is read as a statement when it opens
with a statement's keyword, even one the strict reading of loose strings leaves aside
(``GRANT DBA TO x``, ``CREATE USER x IDENTIFIED BY …``). Pure."""

from __future__ import annotations

from .sql_parse import Parsed

__all__ = ["dynamic_head", "read_only_check"]

_CHECKS = frozenset(
    {"CHECKDB", "CHECKTABLE", "CHECKALLOC", "CHECKCATALOG", "CHECKCONSTRAINTS",
     "CHECKFILEGROUP", "SHOW_STATISTICS", "SQLPERF", "OPENTRAN", "INPUTBUFFER", "USEROPTIONS",
     "TRACESTATUS"}
)  # fmt: skip
"""``DBCC`` commands that read and report."""
_DYNAMIC_HEADS = frozenset(
    {"GRANT", "REVOKE", "CREATE", "ALTER", "DROP", "TRUNCATE", "DELETE", "UPDATE", "INSERT",
     "MERGE", "RENAME", "AUDIT", "NOAUDIT", "SET"}
)  # fmt: skip
"""First words that make the text given to ``EXECUTE IMMEDIATE`` a statement to judge."""


def read_only_check(p: Parsed) -> bool:
    """``p`` is a ``DBCC`` command that only verifies or reports (no ``REPAIR_…`` option)."""
    words = p.stmt.words(40)
    if words[:1] != ["DBCC"] or len(words) < 2 or words[1] not in _CHECKS:
        return False
    return not any(t.upper.startswith("REPAIR") for t in p.stmt.tokens[:200])


def dynamic_head(text: str) -> bool:
    """The text built for ``EXECUTE IMMEDIATE`` opens with a statement that changes rights,
    objects or rows."""
    head = text[:40].lstrip(" \t\r\n(").split(None, 1)
    return bool(head) and head[0].upper().rstrip(";") in _DYNAMIC_HEADS
