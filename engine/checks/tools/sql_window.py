"""A ``DELETE`` of everything older than a moving cut-off (``WHERE created_at < NOW() -
INTERVAL 30 DAY``) from a table of what people wrote or keep — comments, posts, messages,
reviews, documents, tickets — or of records (``orders``, ``users``): nothing in the WHERE says
which of those rows are discarded (spam, trash, soft-deleted), so every one of that age goes,
the legitimate ones with the spam.

A retention window on tables whose rows are made to be aged out (logs, events, job runs,
notifications, sessions, caches) is everyday housekeeping and is not read here; nor is a window
joined to a test of the row's state (``comment_approved = 'spam' AND …``, ``deleted_at IS NOT
NULL AND …``), which picks the discarded rows. Pure."""

from __future__ import annotations

import re

from sqlglot import exp

from .sql_money import snake
from .sql_scope import record_table

__all__ = ["aged_out"]

_CONTENT = re.compile(
    r"(?:^|_)(?:comments?|posts?|messages?|replies|reply|reviews?|threads?|articles?|"
    r"documents?|docs|files|uploads?|attachments?|photos?|images?|media|notes?|tickets?|"
    r"conversations?|chats?|emails?|contacts?|pages?|submissions?|answers?|questions?|"
    r"entries|records|memos|letters|notebooks?|projects?|issues?|tasks?)$"
)
"""Last words of a table's name that say its rows are what people wrote or keep."""
_AGED = re.compile(
    r"(?:^|_)(?:logs?|events?|queues?|jobs?|runs?|caches?|tmp|temp|staging|metrics|traces?|"
    r"spans?|outbox|inbox_raw|webhooks?|deliveries|notifications?|alerts?|history|archive)(?:_|$)"
)
"""Words that say a table's rows are made to be aged out (``log_entries``, ``job_messages``)."""
_CLOCK = re.compile(
    r"(?i)\b(?:now\s*\(|current_(?:timestamp|date)|getdate\s*\(|getutcdate\s*\(|sysdate|"
    r"systimestamp|localtimestamp|utc_timestamp|datetime\s*\(\s*'now'|date\s*\(\s*'now')"
)
"""The current time: a cut-off measured from it moves with every run."""
_EXPIRY = re.compile(r"(?i)expir|valid_until|ttl|(?:purge|delete|retain)_(?:after|until|at)")
"""Columns that hold when a row is due to go: a row past it is removed by design."""
_MAX_TESTS = 16


def _tests(where: exp.Expression) -> list[exp.Expression]:
    """The tests ANDed in ``where`` (an OR or anything else counts as one test)."""
    cond = where.this if isinstance(where, exp.Where) else where
    stack: list[exp.Expression] = [cond]
    out: list[exp.Expression] = []
    while stack and len(out) < _MAX_TESTS:
        e = stack.pop()
        while isinstance(e, exp.Paren):
            e = e.this
        if isinstance(e, exp.And):
            stack.extend((e.this, e.expression))
        else:
            out.append(e)
    return out


def _window(test: exp.Expression) -> bool:
    """``column < <the current time minus something>`` (or the same read the other way)."""
    if not isinstance(test, exp.LT | exp.LTE | exp.GT | exp.GTE):
        return False
    left, right = test.this, test.expression
    if isinstance(test, exp.GT | exp.GTE):
        left, right = right, left  # ``NOW() - INTERVAL 30 DAY > created_at``
    return (
        isinstance(left, exp.Column)
        and not _EXPIRY.search(left.name)
        and not isinstance(right, exp.Column)
        and bool(_CLOCK.search(right.sql()[:300]))
    )


def aged_out(table: str, where: exp.Expression) -> bool:
    """A DELETE's WHERE on ``table`` that only keeps rows older than a moving cut-off, on a
    table of what people wrote or keep or of records (see the module's docstring)."""
    base = snake(table)
    if _AGED.search(base) or not (_CONTENT.search(base) or record_table(table)):
        return False
    tests = _tests(where)
    return bool(tests) and all(_window(t) for t in tests)
