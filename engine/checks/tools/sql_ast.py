"""What a parsed SQL statement does, read from sqlglot's tree: conditions that are always true,
the rows a read is restricted to, the credential columns it returns, UNION shapes."""

from __future__ import annotations

import re
from collections.abc import Iterator

from sqlglot import exp

from .sql_words import CREDENTIAL_TABLES, RECON_FUNCTIONS, SCHEMA_TABLES, credential_column

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
_UNKNOWN = object()
Value = float | str | bool | None | object


def _value(e: exp.Expression, depth: int = 0) -> Value:
    """The constant ``e`` evaluates to, ``None`` for SQL NULL, ``_UNKNOWN`` when it depends on
    a row, a parameter or a function."""
    if depth > 40:
        return _UNKNOWN
    if isinstance(e, exp.Paren):
        return _value(e.this, depth + 1)
    if isinstance(e, exp.Boolean):
        return bool(e.this)
    if isinstance(e, exp.Null):
        return None
    if isinstance(e, exp.Literal):
        if e.is_string:
            return str(e.this)
        try:
            return float(e.this)
        except ValueError:
            return _UNKNOWN
    if isinstance(e, exp.Neg):
        inner = _value(e.this, depth + 1)
        return -inner if isinstance(inner, float) else _UNKNOWN
    got = truth(e, depth + 1)
    return _UNKNOWN if got is None else got


def _number(v: Value) -> float | None:
    if isinstance(v, bool):
        return float(v)
    if isinstance(v, float):
        return v
    if isinstance(v, str):
        try:
            return float(v.strip())
        except ValueError:
            return None
    return None


def _compare(e: exp.Expression, depth: int) -> bool | None:
    left, right = e.this, e.expression
    if (
        isinstance(left, exp.Column)
        and isinstance(right, exp.Column)
        and left.sql() == right.sql()
        and isinstance(e, (exp.EQ, exp.GTE, exp.LTE, exp.Like))
    ):
        return True
    a, b = _value(left, depth), _value(right, depth)
    if a is _UNKNOWN or b is _UNKNOWN or a is None or b is None:
        return None
    if isinstance(e, exp.Like):
        if not isinstance(a, str) or not isinstance(b, str):
            return None
        pattern = re.escape(b).replace("%", ".*").replace("_", ".")
        return re.fullmatch(pattern, a, re.DOTALL | re.IGNORECASE) is not None
    na, nb = _number(a), _number(b)
    if na is not None and nb is not None:
        x: float | str = na
        y: float | str = nb
    elif isinstance(a, str) and isinstance(b, str):
        x, y = a, b
    else:
        return None
    if isinstance(e, (exp.EQ, exp.NullSafeEQ)):
        return x == y
    if isinstance(e, exp.NEQ):
        return x != y
    if isinstance(x, str) != isinstance(y, str):
        return None
    if isinstance(e, exp.GT):
        return x > y  # type: ignore[operator]
    if isinstance(e, exp.GTE):
        return x >= y  # type: ignore[operator]
    if isinstance(e, exp.LT):
        return x < y  # type: ignore[operator]
    if isinstance(e, exp.LTE):
        return x <= y  # type: ignore[operator]
    return None


def truth(e: exp.Expression, depth: int = 0) -> bool | None:
    """Whether condition ``e`` is true for every row (True), for none (False), or depends."""
    if depth > 40:
        return None
    if isinstance(e, exp.Paren):
        return truth(e.this, depth + 1)
    if isinstance(e, exp.Or):
        if _complementary(e.this, e.expression):
            return True
        a, b = truth(e.this, depth + 1), truth(e.expression, depth + 1)
        return True if True in (a, b) else (False if a is False and b is False else None)
    if isinstance(e, exp.And):
        a, b = truth(e.this, depth + 1), truth(e.expression, depth + 1)
        return False if False in (a, b) else (True if a is True and b is True else None)
    if isinstance(e, exp.Not):
        inner = truth(e.this, depth + 1)
        return None if inner is None else not inner
    if isinstance(e, exp.Is):
        left = _value(e.this, depth + 1)
        if isinstance(e.expression, exp.Null) and left is not _UNKNOWN:
            return left is None
        return None
    if isinstance(e, exp.In):
        item = _value(e.this, depth + 1)
        values = [_value(x, depth + 1) for x in e.expressions]
        if item is _UNKNOWN or not values or any(v is _UNKNOWN for v in values):
            return None
        return any(
            _number(item) == _number(v) if _number(item) is not None else item == v for v in values
        )
    if isinstance(e, (exp.EQ, exp.NEQ, exp.GT, exp.GTE, exp.LT, exp.LTE, exp.Like)):
        return _compare(e, depth + 1)
    if isinstance(e, (exp.Boolean, exp.Literal, exp.Null)):
        v = _value(e, depth + 1)
        n = _number(v)
        return None if v is _UNKNOWN else (bool(n) if n is not None else False)
    return None


def _null_test(e: exp.Expression) -> tuple[str, bool] | None:
    """``(x, True)`` for ``x IS NULL``, ``(x, False)`` for ``x IS NOT NULL``."""
    while isinstance(e, exp.Paren):
        e = e.this
    negated = isinstance(e, exp.Not)
    inner = e.this if negated else e
    while isinstance(inner, exp.Paren):
        inner = inner.this
    if isinstance(inner, exp.Is) and isinstance(inner.expression, exp.Null):
        negated ^= bool(inner.args.get("negate"))  # some dialects read ``IS NOT`` as one node
        return str(inner.this.sql()), not negated
    return None


def _complementary(a: exp.Expression, b: exp.Expression) -> bool:
    """``x IS NULL OR x IS NOT NULL``: one of the two holds for every row."""
    left, right = _null_test(a), _null_test(b)
    return left is not None and right is not None and left[0] == right[0] and left[1] != right[1]


def _inside_query(node: exp.Expression, root: exp.Expression) -> bool:
    parent = node.parent
    while parent is not None and parent is not root:
        if isinstance(parent, exp.Select | exp.Subquery):
            return True
        parent = parent.parent
    return False


def _same_table_in(e: exp.Expression, target: str) -> bool:
    """``col IN (SELECT col FROM <target>)`` with no WHERE, LIMIT or join in the subquery:
    every row whose ``col`` is set."""
    query = e.args.get("query") if isinstance(e, exp.In) else None
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
    test = _null_test(cond)
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
    test = _null_test(cond)
    if test is None or test[1]:
        return False
    column = test[0].rsplit(".", 1)[-1].strip('"`[]').lower()
    return column in ("id", "uuid") or column.endswith("_id") or bool(_ALWAYS_SET.match(column))


def _positive_key(cond: exp.Expression) -> bool:
    """``id > 0``, ``id >= 1``, ``order_id > -1``: a generated key is positive in every row."""
    if not isinstance(cond, exp.GT | exp.GTE):
        return False
    column, value = cond.this, cond.expression
    if not isinstance(column, exp.Column) or not isinstance(value, exp.Literal | exp.Neg):
        return False
    name = column.name.lower()
    if name != "id" and not name.endswith("_id"):
        return False
    try:
        number = float(value.sql())
    except ValueError:
        return False
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
    test = _null_test(cond)
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


def limit_of(select: exp.Expression) -> int | None:
    """The row limit of a SELECT as a number; None when absent; -1 when not a literal."""
    limit = select.args.get("limit")
    if limit is None:
        return None
    count = limit.args.get("expression") or limit.args.get("count")
    if isinstance(count, exp.Literal) and not count.is_string:
        try:
            return int(float(count.this))
        except ValueError:
            return -1
    return -1


def table_names(node: exp.Expression) -> list[str]:
    """The tables ``node`` reads (``db.table`` when qualified), lower-case."""
    out: list[str] = []
    for n, t in enumerate(node.find_all(exp.Table)):
        if n > 200:
            break
        name = t.name.lower()
        db = t.args.get("db")
        out.append(f"{db.name.lower()}.{name}" if isinstance(db, exp.Identifier) else name)
    return out


def _from(select: exp.Expression) -> exp.Expression | None:
    got = select.args.get("from_") or select.args.get("from")
    return got if isinstance(got, exp.Expression) else None


def _projected_columns(select: exp.Select) -> Iterator[str]:
    for proj in select.expressions:
        for col in proj.find_all(exp.Column):
            if col.find_ancestor(exp.Count) is None:
                yield col.name


def credential_reads(select: exp.Select) -> tuple[list[str], list[str]]:
    """The credential columns a SELECT returns and the credential tables it reads."""
    cols = sorted({c for c in _projected_columns(select) if credential_column(c)})
    aggregate_only = all(p.find(exp.AggFunc) is not None for p in select.expressions)
    from_ = _from(select)
    tables = table_names(from_) if from_ is not None else []
    cred = [
        t for t in tables if t in CREDENTIAL_TABLES or t.rsplit(".", 1)[-1] in CREDENTIAL_TABLES
    ]
    return cols, ([] if aggregate_only else cred)


def bare_credentials(select: exp.Select) -> list[str]:
    """The credential columns a SELECT returns as they are stored (``password``, ``otp_secret
    AS s``), not passed through a function (``right(ssn, 4)``, ``count(token)``)."""
    out: set[str] = set()
    for proj in select.expressions[:64]:
        col = proj.this if isinstance(proj, exp.Alias) else proj
        if isinstance(col, exp.Column) and credential_column(col.name):
            out.add(col.name)
    return sorted(out)


def union_shape(tree: exp.Expression) -> tuple[str, str] | None:
    """What the second half of a UNION reads: ``("credentials", cols)``, ``("schema", table)``,
    ``("recon", fn)`` or ``("padding", …)`` (``UNION SELECT NULL, NULL``); None for none."""
    for n, node in enumerate(tree.find_all(exp.Union)):
        if n > 50:
            break
        right = node.expression
        if not isinstance(right, exp.Select):
            continue
        cols, creds = credential_reads(right)
        if cols or creds:
            return "credentials", ", ".join(cols or creds)
        for t in table_names(right):
            if t.split(".", 1)[0] in SCHEMA_TABLES or t in SCHEMA_TABLES:
                return "schema", t
        for f in right.find_all(exp.Func, exp.SessionParameter, exp.Parameter):
            if isinstance(f, exp.Anonymous):
                name = f.name.upper()
            elif isinstance(f, exp.Func):
                name = f.sql_name().upper()
            else:
                name = f.sql().upper().replace(" ", "")
            if name in RECON_FUNCTIONS:
                return "recon", name
        projs = right.expressions
        consts = [p for p in projs if isinstance(p, exp.Null | exp.Literal)]
        if len(projs) >= 2 and len(consts) == len(projs) and _from(right) is None:
            nulls = sum(isinstance(p, exp.Null) for p in projs)
            digits = [p.this for p in projs if isinstance(p, exp.Literal) and not p.is_string]
            if nulls >= 2 or digits == [str(i) for i in range(1, len(projs) + 1)]:
                return "padding", right.sql()[:60]
    return None
