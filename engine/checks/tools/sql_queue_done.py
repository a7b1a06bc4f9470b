"""Work queues cleared of finished work: a DELETE from a queue table (``notification_queue``,
``email_queue``, ``dbo.ExportQueue``) whose WHERE keeps only items already done — a status
that says so (``status = 'SENT'``, ``'processed'``, ``'completed'``) or a done flag set
(``sent = true``, ``is_processed = 1``) — is the queue's housekeeping, in production too.

A queue's pending or failed items are work not yet done: removing them loses it, so a WHERE
that does not test a finished state, that has an ``OR`` or a subquery, or a table of people's
records, or a queue of payments (its processed items may be the only record that money went
out), keeps the rule that stops a class of rows in production."""

from __future__ import annotations

import re

from sqlglot import exp

from .sql_keys import conjuncts
from .sql_money import snake
from .sql_scope import sensitive_table

__all__ = ["finished_queue_rows"]

_QUEUE = re.compile(r"(?:^|_)(?:queue|queues|queued_\w+)$")
_MONEY = re.compile(
    r"pay|invoice|ledger|transaction|transfer|refund|billing|charge|settlement|wire|ach|remit"
)
"""A money queue's processed items may be the only record that a payment went out."""
_DONE_STATES = frozenset(
    {"sent", "delivered", "processed", "completed", "complete", "done", "succeeded",
     "success", "successful", "finished", "acknowledged", "acked", "published", "dispatched"}
)  # fmt: skip
"""Values of a status column that say an item's work is over."""
_DONE_FLAG = re.compile(
    r"^(?:is_|was_|has_been_)?(?:sent|delivered|processed|completed|done|published|dispatched)$"
)
"""Boolean columns set once an item's work is over (``sent``, ``is_processed``)."""
_DONE_STAMP = re.compile(
    r"^(?:sent|delivered|processed|completed|done|finished|published|dispatched|acknowledged)"
    r"_(?:at|on|time|ts|date)$"
)
"""Time columns stamped once an item's work is over: ``sent_at IS NOT NULL`` is a done test."""
_STATUS = re.compile(r"(?:^|_)(?:status|state)$")
_TRUE = frozenset({"1", "true", "t", "yes", "y"})


def _done_test(e: exp.Expression) -> bool:
    """``status = 'sent'``, ``sent = true``, ``status IN ('sent', 'delivered')``,
    ``sent_at IS NOT NULL``."""
    if _stamped(e):
        return True
    if isinstance(e, exp.EQ):
        col, value = e.this, e.expression
        if not isinstance(col, exp.Column):
            col, value = value, col
        if not isinstance(col, exp.Column):
            return False
        name = snake(col.name)
        if isinstance(value, exp.Boolean):
            return bool(value.this) and _DONE_FLAG.match(name) is not None
        if not isinstance(value, exp.Literal):
            return False
        text = str(value.this).strip().lower()
        if _STATUS.search(name):
            return text in _DONE_STATES
        return _DONE_FLAG.match(name) is not None and text in _TRUE
    if isinstance(e, exp.In) and isinstance(e.this, exp.Column) and not e.args.get("query"):
        values = e.expressions
        return (
            _STATUS.search(snake(e.this.name)) is not None
            and 0 < len(values) <= 10
            and all(
                isinstance(v, exp.Literal) and str(v.this).strip().lower() in _DONE_STATES
                for v in values
            )
        )
    return False


def _stamped(e: exp.Expression) -> bool:
    """``sent_at IS NOT NULL``: the item's done time is set."""
    inner = e.this if isinstance(e, exp.Not) else None
    return (
        isinstance(inner, exp.Is)
        and isinstance(inner.this, exp.Column)
        and isinstance(inner.expression, exp.Null)
        and _DONE_STAMP.match(snake(inner.this.name)) is not None
    )


def _only_stamps(cond: exp.Expression) -> bool:
    """Whether every ``NOT`` of ``cond`` is a done stamp's ``IS NOT NULL``."""
    return all(_stamped(n) for n in cond.find_all(exp.Not))


def finished_queue_rows(table: str, where: exp.Expression) -> bool:
    """A DELETE's WHERE on queue ``table`` that keeps only finished items: one of its ANDed
    tests asks for a finished state, and it has no ``OR``, subquery or ``NOT`` (but a done
    stamp's ``IS NOT NULL``)."""
    base = snake(table)
    if not _QUEUE.search(base) or sensitive_table(table) or _MONEY.search(base):
        return False
    cond = where.this if isinstance(where, exp.Where) else where
    if cond.find(exp.Or, exp.Select) is not None or not _only_stamps(cond):
        return False
    tests = conjuncts(cond, 32)
    return tests is not None and any(_done_test(e) for e in tests)
