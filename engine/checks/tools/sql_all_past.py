"""A DELETE whose only test is that an event's time lies before now (``WHERE recorded_at <
now()``, ``flight_date < CURRENT_DATE``): it reads like a retention purge but keeps no cut-off,
so it removes every row written so far — nearly the whole table.

A cut-off some time back (``created_at < now() - INTERVAL '90 days'``: ``sql_window``), a
column that names when a row expires (``expires_at < now()``, ``valid_until``: the rows that
are meant to go) and a WHERE that tests anything more (``status = 'sent' AND …``) are not this
shape. Pure and bounded: one comparison is read."""

from __future__ import annotations

import re

from sqlglot import exp

from .sql_keys import snake_case

__all__ = ["before_now"]

_NOW = frozenset(
    {"now", "current_date", "current_timestamp", "getdate", "getutcdate", "sysdate",
     "systimestamp", "localtimestamp", "current_datetime", "utc_timestamp", "sysdatetime",
     "curdate", "today"}
)  # fmt: skip
"""Functions and keywords that mean the present moment."""
_EXPIRES = re.compile(
    r"(?:^|_)(?:expir\w*|expires?|until|valid_to|not_after|ttl|lease\w*|purge_after|"
    r"delete_after|retain_until|retention\w*|keep_until|stale_after)(?:_|$)"
)
"""Columns that say when a row is meant to go: rows past them are the ones to remove."""
_TIME_COLUMN = re.compile(
    r"(?:^|_)(?:at|on|ts|time|timestamp|date|datetime|day|dt|created|recorded|logged|"
    r"occurred|happened|inserted|received|sent|updated|modified)$"
)
"""Columns that record when something happened (``recorded_at``, ``flight_date``, ``ts``)."""


def _now(e: exp.Expression) -> bool:
    while isinstance(e, exp.Paren):
        e = e.this
    if isinstance(e, exp.CurrentDate | exp.CurrentTimestamp | exp.CurrentTime):
        return True
    if isinstance(e, exp.Anonymous):
        return str(e.this).lower() in _NOW
    if isinstance(e, exp.Func):
        return e.sql_name().lower() in _NOW
    if isinstance(e, exp.Column):
        return e.name.lower() in _NOW and not e.table
    return False


def before_now(where: exp.Expression | None) -> str | None:
    """The event-time column of a WHERE that is only ``column < now()`` (or ``<=``, or
    ``now() > column``), else None."""
    if where is None:
        return None
    cond = where.this if isinstance(where, exp.Where) else where
    while isinstance(cond, exp.Paren):
        cond = cond.this
    if isinstance(cond, exp.LT | exp.LTE):
        col, clock = cond.this, cond.expression
    elif isinstance(cond, exp.GT | exp.GTE):
        col, clock = cond.expression, cond.this
    else:
        return None
    if not isinstance(col, exp.Column) or not _now(clock):
        return None
    name = snake_case(col.name)
    if _EXPIRES.search(name) or not _TIME_COLUMN.search(name):
        return None
    return col.name
