"""Writes read as routine or as purges, wherever they run: expired rows of tables whose rows
expire (sessions, tokens, carts) deleted by a clock test, one owner's rows of a table that is
not records updated (``user_id = 7``), and DELETEs that purge a class of kept records (the
rows of a class of parents, or every row before a fixed date)."""

from __future__ import annotations

import re

from sqlglot import exp

from .sql_keys import key_column, one_value
from .sql_money import snake
from .sql_scope import record_table, sensitive_table

__all__ = ["expiring", "one_owner", "purge"]

_EPHEMERAL = re.compile(
    r"(?:^|_)(?:sessions?|carts?|tokens?|nonces?|otps?|caches?|password_resets?|"
    r"login_attempts?|verification_codes?|magic_links?|rate_limits?|idempotency_keys?|"
    r"outbox(?:es)?|autosaves?|heartbeats?)$"
)
"""Tables whose rows expire by design (``django_session``, ``carts_cart``, ``api_tokens``, a
sent messages' ``notification_outbox``, an editor's ``draft_autosaves``)."""
_CLOCK = re.compile(
    r"(?i)\b(?:now\s*\(|current_(?:timestamp|date)|getdate\s*\(|sysdate|systimestamp|"
    r"interval\b|dateadd\s*\(|date_sub\s*\(|datetime\s*\(\s*'now'|unix_timestamp\s*\(|"
    r"getutcdate\s*\(|utc_timestamp|localtimestamp)"
)


_DISPOSABLE = re.compile(
    r"(?:^|_)(?:tmp|temp|test|tests|scratch|staging|stage|cache|caches|queue|queues|jobs?|"
    r"logs?|events?|import|imports|seed|fixtures?)(?:_|$)"
)
_DATE_LITERAL = re.compile(r"^'?\d{4}-\d{2}-\d{2}")


def purge(table: str, where: exp.Expression) -> bool:
    """A DELETE that purges a class of kept records wherever it runs: the rows of a class of
    parents (``matter_id IN (SELECT id FROM matters WHERE status = 'closed')``), every row
    before or after a fixed date (``read_date < DATE '2024-01-01'``, ``created_at >
    '2024-11-01'``) or every row in a range of a value (``rating <= 2``), of a table not named
    as disposable (queues, caches, logs, staging, test tables)."""
    if _DISPOSABLE.search(snake(table)) or _EPHEMERAL.search(snake(table)):
        return False
    cond = where.this if isinstance(where, exp.Where) else where
    for sub in cond.find_all(exp.In):
        query = sub.args.get("query")
        select = query.find(exp.Select) if query is not None else None
        if (
            isinstance(sub.this, exp.Column)
            and not key_column(sub.this.name, table)
            and select is not None
            and select.args.get("where") is not None
        ):
            return True  # ``matter_id IN (SELECT id FROM matters WHERE status = 'closed')``
    if _number_ranges(cond, table):
        return True
    for c in cond.find_all(exp.LT, exp.LTE, exp.GT, exp.GTE):
        value = c.expression
        if isinstance(value, exp.Cast | exp.Anonymous | exp.Func) and not _CLOCK.search(
            value.sql()
        ):
            value = value.find(exp.Literal) or value
        if isinstance(value, exp.Literal) and _DATE_LITERAL.match(str(value.this)):
            return True
    return False


def _number_ranges(cond: exp.Expression, table: str) -> bool:
    """Every test ANDed in ``cond`` puts a column of the row in an open range of numbers
    (``rating <= 2``, ``score > 90``): a whole class of rows. A range at zero (``quantity <=
    0``) keeps the invalid rows only; a key's range (``id > 1000``) is a batch."""
    stack, tests = [cond], 0
    while stack and tests < 16:
        e = stack.pop()
        while isinstance(e, exp.Paren):
            e = e.this
        if isinstance(e, exp.And):
            stack.extend((e.this, e.expression))
            continue
        tests += 1
        if not isinstance(e, exp.LT | exp.LTE | exp.GT | exp.GTE):
            return False
        column, value = e.this, e.expression
        if not isinstance(column, exp.Column) or key_column(column.name, table):
            return False
        if not isinstance(value, exp.Literal) or value.is_string:
            return False
        try:
            number = float(value.this)
        except ValueError:
            return False
        if number in (0.0, 1.0) and isinstance(e, exp.LT | exp.LTE):
            return False
    return tests > 0


def one_owner(where: exp.Expression, table: str) -> bool:
    """An UPDATE's WHERE that keeps the rows of one owner (``user_id = 10442``) in a table
    that is not people's, money's or clinical records (``notifications``, ``preferences``)."""
    if record_table(table) or sensitive_table(table):
        return False
    cond = where.this if isinstance(where, exp.Where) else where
    if cond.find(exp.Select) is not None:
        return False
    stack: list[exp.Expression] = [cond]
    tests: list[exp.Expression] = []
    while stack and len(tests) < 64:
        e = stack.pop()
        if isinstance(e, exp.Paren):
            stack.append(e.this)
        elif isinstance(e, exp.And):
            stack.extend((e.this, e.expression))
        else:
            tests.append(e)
    return any(
        isinstance(t, exp.EQ)
        and isinstance(t.this, exp.Column)
        and snake(t.this.name).endswith("_id")
        and one_value(t.expression)
        for t in tests
    )


def expiring(table: str, where: exp.Expression) -> bool:
    """A WHERE that keeps the expired rows of a table whose rows expire by design."""
    if not _EPHEMERAL.search(snake(table)):
        return False
    cond = where.this if isinstance(where, exp.Where) else where
    if cond.find(exp.Select) is not None:
        return False
    return any(_CLOCK.search(c.sql()) for c in cond.find_all(exp.LT, exp.LTE, exp.GT, exp.GTE))
