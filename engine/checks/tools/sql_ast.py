"""What a parsed SQL statement does, read from sqlglot's tree: the rows a WHERE keeps (every
row, every live row, an always-true OR). Whether a condition is constant is ``sql_truth``'s;
what a read returns (credential columns, UNION shapes, limits) is ``sql_reads``'s, re-exported
here."""

from __future__ import annotations

import re

from sqlglot import exp

from .sql_reads import bare_credentials, credential_reads, limit_of, table_names, union_shape
from .sql_truth import null_test, truth

__all__ = [
    "always_true",
    "bare_credentials",
    "credential_reads",
    "every_row",
    "limit_of",
    "live_rows",
    "or_tautology",
    "table_names",
    "truth",
    "union_shape",
]

_MAX_NODES = 5_000


def _inside_query(node: exp.Expression, root: exp.Expression) -> bool:
    parent = node.parent
    while parent is not None and parent is not root:
        if isinstance(parent, exp.Select | exp.Subquery):
            return True
        parent = parent.parent
    return False


def _same_table_in(e: exp.Expression, target: str) -> bool:
    """``col IN (SELECT col FROM <target>)`` with no WHERE, LIMIT or join in the subquery:
    every row whose ``col`` is set; ``col = ANY (SELECT col FROM <target>)`` alike."""
    query = e.args.get("query") if isinstance(e, exp.In) else None
    if isinstance(e, exp.EQ) and isinstance(e.expression, exp.Any):
        query = e.expression.this
    select = query.this if isinstance(query, exp.Subquery) else query
    if not isinstance(select, exp.Select) or not isinstance(e.this, exp.Column):
        return False
    source = select.args.get("from_") or select.args.get("from")
    table = source.this if isinstance(source, exp.From) else None
    picked = select.expressions
    return (
        isinstance(table, exp.Table)
        and table.name.lower() == target
        and not any(select.args.get(k) for k in ("where", "limit", "joins", "group", "having"))
        and len(picked) == 1
        and isinstance(picked[0], exp.Column)
        and picked[0].name.lower() == e.this.name.lower()
    )


_EVENT_COLUMN = re.compile(
    r"(?i)(?:_at|_on|_date|_time|_ts|_until|_reason|_error|_by)$|^(?:deleted|archived|revoked"
    r"|cancell?ed|expired|disabled|banned|suspended|blocked|closed|merged|errors?|failed|failure"
    r"|processed|sent|read|completed|locked|finished|resolved|flagged)"
)
"""Columns most rows leave empty: the time or cause of something that happened to some rows
(``deleted_at``, ``archived_on``, ``error``), so ``IS NOT NULL`` on them selects those rows."""
_ALWAYS_SET = re.compile(r"(?i)^(?:created|inserted|updated|modified|added)_")
"""…except the times every row has (``created_at``)."""


def _set_tests(cond: exp.Expression, depth: int = 0) -> bool:
    """``cond`` asks only that columns are set (``customer_id IS NOT NULL``, joined by AND, with
    always-true parts, or by OR), or has an OR branch that asks for a key or a creation time
    (``… OR user_id IS NOT NULL``): it keeps every row whose key or required field is filled,
    which is nearly every row. A column that
    records an event of some rows (``deleted_at IS NOT NULL``: the soft-deleted ones) is a real
    selection."""
    if depth > 40:
        return False
    while isinstance(cond, exp.Paren):
        cond = cond.this
    if isinstance(cond, exp.Or) and _surely_set(cond):
        return True  # the rows of either side: one that keeps nearly all is enough
    if isinstance(cond, exp.And | exp.Or):
        sides = (cond.this, cond.expression)
        tests = [s for s in sides if truth(s) is not True]
        return bool(tests) and all(_set_tests(s, depth + 1) for s in tests)
    if _positive_key(cond):
        return True
    test = null_test(cond)
    if test is None or test[1] or not isinstance(cond.find(exp.Column), exp.Column):
        return False
    column = test[0].rsplit(".", 1)[-1].strip('"`[]')
    return bool(_ALWAYS_SET.match(column)) or not _EVENT_COLUMN.search(column)


def _surely_set(cond: exp.Expression, depth: int = 0) -> bool:
    """A branch of an OR that every row meets: a key or a creation time asked to be set
    (``user_id IS NOT NULL``, ``created_at IS NOT NULL``) or a generated key positive."""
    while isinstance(cond, exp.Paren):
        cond = cond.this
    if isinstance(cond, exp.Or) and depth < 16:
        return any(_surely_set(s, depth + 1) for s in (cond.this, cond.expression))
    if _positive_key(cond):
        return True
    test = null_test(cond)
    if test is None or test[1]:
        return False
    column = test[0].rsplit(".", 1)[-1].strip('"`[]').lower()
    return column in ("id", "uuid") or column.endswith("_id") or bool(_ALWAYS_SET.match(column))


def _key_number(column: exp.Expression, value: exp.Expression) -> float | None:
    """The number a generated key (``id``, ``…_id``) is compared with, if that is the test."""
    if not isinstance(column, exp.Column) or not isinstance(value, exp.Literal | exp.Neg):
        return None
    name = column.name.lower()
    if name != "id" and not name.endswith("_id"):
        return None
    try:
        return float(value.sql())
    except ValueError:
        return None


_HUGE_KEY = 99_999_999
"""A key below this bound is any key a table holds (``id < 999999999``, ``id <= 99999999``)."""


def _positive_key(cond: exp.Expression) -> bool:
    """``id > 0``, ``id >= 1``, ``order_id > -1``: a generated key is positive in every row;
    so every row's key differs from zero or a negative number (``id <> 0``, ``id != -1``,
    ``id NOT IN (0, -1)``, ``NOT id = 0``) and lies below a bound no table reaches
    (``id < 999999999``, ``id <= 99999999``, ``id BETWEEN 0 AND 999999999``); and any column
    matches ``LIKE '%'``."""
    while isinstance(cond, exp.Paren):
        cond = cond.this
    if isinstance(cond, exp.Between):
        low = _key_number(cond.this, cond.args.get("low") or exp.null())
        high = _key_number(cond.this, cond.args.get("high") or exp.null())
        return low is not None and high is not None and low <= 1 and high >= _HUGE_KEY
    if isinstance(cond, exp.Like) and isinstance(cond.expression, exp.Literal):
        return cond.expression.is_string and set(str(cond.expression.this)) == {"%"}
    if isinstance(cond, exp.Not):
        inner = cond.this
        while isinstance(inner, exp.Paren):
            inner = inner.this
        if isinstance(inner, exp.EQ):
            number = _key_number(inner.this, inner.expression)
            return number is not None and number <= 0
        if isinstance(inner, exp.In) and inner.expressions and len(inner.expressions) <= 16:
            numbers = [_key_number(inner.this, v) for v in inner.expressions]
            return all(n is not None and n <= 0 for n in numbers)
        return False
    if not isinstance(cond, exp.GT | exp.GTE | exp.NEQ | exp.LT | exp.LTE):
        return False
    number = _key_number(cond.this, cond.expression)
    if number is None:
        return False
    if isinstance(cond, exp.NEQ):
        return number <= 0
    if isinstance(cond, exp.LT | exp.LTE):
        return number >= _HUGE_KEY
    return number <= (1 if isinstance(cond, exp.GTE) else 0)


def live_rows(where: exp.Expression | None) -> bool:
    """A WHERE that keeps every row still in use: only asks that an event has not happened to
    it (``revoked_at IS NULL``, ``deleted_at IS NULL``), that columns are set, or that a
    generated key is positive — the whole table, less what was retired."""
    if where is None:
        return False
    cond = where.this if isinstance(where, exp.Where) else where
    return _live_tests(cond)


def _live_tests(cond: exp.Expression, depth: int = 0) -> bool:
    if depth > 40:
        return False
    while isinstance(cond, exp.Paren):
        cond = cond.this
    if isinstance(cond, exp.And):
        return _live_tests(cond.this, depth + 1) and _live_tests(cond.expression, depth + 1)
    test = null_test(cond)
    if test is not None and test[1]:
        column = test[0].rsplit(".", 1)[-1].strip('"`[]')
        return bool(_EVENT_COLUMN.search(column)) and not _ALWAYS_SET.match(column)
    return _set_tests(cond, depth + 1)


def every_row(where: exp.Expression | None, target: exp.Expression | None) -> str | None:
    """How a WHERE on ``target`` keeps every row although it is no constant: ``every`` for
    ``id IN (SELECT id FROM <target>)``; ``row-independent`` for a condition that reads no
    column of the row (``EXISTS (SELECT 1)``, a subquery whose columns all name other
    tables): it keeps every row or none; ``set`` for one that only asks for columns to be
    set (``customer_id IS NOT NULL``): nearly every row. ``None``: it depends on the row, or
    may."""
    if where is None or not isinstance(target, exp.Table):
        return None
    cond = where.this if isinstance(where, exp.Where) else where
    if _set_tests(cond):
        return "set"
    name = target.name.lower()
    names = {name, target.alias_or_name.lower()}
    for nodes, node in enumerate(cond.walk(), start=1):
        if nodes > _MAX_NODES:
            return None
        if _same_table_in(node, name) and not _inside_query(node, cond):
            return "every"
        if isinstance(node, exp.Column) and (
            not _inside_query(node, cond) or not node.table or node.table.lower() in names
        ):
            return None  # it reads the row, or may (an unqualified column of a subquery)
    return "row-independent"


def always_true(where: exp.Expression | None) -> bool:
    """A WHERE clause that keeps every row (``1=1``, ``'a'='a'``, ``x=5 OR 1=1``, ``TRUE``)."""
    if where is None:
        return False
    cond = where.this if isinstance(where, exp.Where) else where
    return truth(cond) is True


def or_tautology(where: exp.Expression | None) -> str | None:
    """The always-true branch of an OR in ``where`` (``OR '1'='1'``): the injection shape; a
    plain ``WHERE 1=1 AND …`` (query builders write it) is none."""
    if where is None:
        return None
    for n, node in enumerate(where.walk()):
        if n > _MAX_NODES:
            break
        if isinstance(node, exp.Subquery | exp.Select) and node is not where:
            continue
        if isinstance(node, exp.Or):
            for side in (node.this, node.expression):
                if truth(side) is True:
                    return str(side.sql())[:80]
    return None
