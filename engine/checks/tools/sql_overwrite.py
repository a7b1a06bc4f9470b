"""``INSERT OVERWRITE``: every row of a table replaced by what a query finds (Hive, Spark,
Databricks, Snowflake) — a ``TRUNCATE`` and a load in one statement, so a wrong or empty query
leaves the table wrong or empty. One partition overwritten (``PARTITION (ds = '…')``) is the
everyday idempotent load; a scratch or temporary table is rebuilt at will."""

from __future__ import annotations

from collections.abc import Iterator

from .sql_issue import H, Issue, fragment, object_names
from .sql_parse import Parsed
from .sql_scope import throwaway_schema
from .sql_words import scratch_name

__all__ = ["insert"]


def insert(p: Parsed, i: int, production: bool) -> Iterator[Issue]:
    """An ``INSERT OVERWRITE`` of a whole table that is no scratch table."""
    toks = p.stmt.tokens
    words = [t.upper for t in toks[i + 1 : i + 4]]
    if words[:1] != ["OVERWRITE"] or "PARTITION" in p.stmt.words(12):
        return
    k = i + 2
    while k < len(toks) and toks[k].upper in ("INTO", "TABLE"):
        k += 1
    names = object_names(toks, k)
    if not names or throwaway_schema(names[0]) or scratch_name(names[0]):
        return
    title = f"replaces every row of {names[0][:60]} (INSERT OVERWRITE)"
    yield Issue(H, title, fragment(p), "change")
