"""Whether a SQL condition is true for every row, for none, or depends: constants evaluated
from sqlglot's tree (``1=1``, ``'a' LIKE '%'``, ``x IS NULL OR x IS NOT NULL``), and the
``IS [NOT] NULL`` test a condition makes (``null_test``)."""

from __future__ import annotations

import re

from sqlglot import exp

__all__ = ["null_test", "truth"]

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


def _bare(e: exp.Expression, depth: int = 0) -> exp.Expression:
    """``e`` without parentheses and arithmetic that keeps it (``(id)``, ``id + 0``,
    ``id * 1``): the same value in every row."""
    while depth < 16:
        depth += 1
        if isinstance(e, exp.Paren):
            e = e.this
        elif isinstance(e, exp.Add | exp.Sub | exp.Mul | exp.Div):
            unit = "0" if isinstance(e, exp.Add | exp.Sub) else "1"
            right, left = e.expression, e.this
            if isinstance(right, exp.Literal) and str(right.this) == unit:
                e = left
            elif isinstance(e, exp.Add | exp.Mul) and isinstance(left, exp.Literal):
                if str(left.this) != unit:
                    break
                e = right
            else:
                break
        else:
            break
    return e


def _same_value(left: exp.Expression, right: exp.Expression) -> bool:
    """Both sides are one expression of the row's columns, deterministic (``id = (id)``,
    ``id * 1 = id``, ``coalesce(id, 0) = coalesce(id, 0)``)."""
    a, b = _bare(left), _bare(right)
    if a.sql() != b.sql() or a.find(exp.Column) is None:
        return False
    return a.find(exp.Rand) is None and "RAND" not in a.sql().upper()


def _compare(e: exp.Expression, depth: int) -> bool | None:
    left, right = e.this, e.expression
    if isinstance(e, (exp.EQ, exp.GTE, exp.LTE, exp.Like)) and _same_value(left, right):
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


def null_test(e: exp.Expression) -> tuple[str, bool] | None:
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
    left, right = null_test(a), null_test(b)
    if left is not None and right is not None:
        return left[0] == right[0] and left[1] != right[1]
    return _opposites(a, b)


_OPPOSITE: tuple[tuple[type[exp.Expression], type[exp.Expression]], ...] = (
    (exp.EQ, exp.NEQ),
    (exp.GT, exp.LTE),
    (exp.LT, exp.GTE),
)


def _opposites(a: exp.Expression, b: exp.Expression) -> bool:
    """``x = 5 OR x <> 5``, ``x > 3 OR x <= 3``, ``x = 5 OR NOT x = 5``: one of the two holds
    for every row whose ``x`` is set."""
    while isinstance(a, exp.Paren):
        a = a.this
    while isinstance(b, exp.Paren):
        b = b.this
    if isinstance(a, exp.Not) or isinstance(b, exp.Not):
        plain, negated = (b, a) if isinstance(a, exp.Not) else (a, b)
        inner = negated.this
        while isinstance(inner, exp.Paren):
            inner = inner.this
        return not isinstance(plain, exp.Not) and plain.sql() == inner.sql()
    if not all(isinstance(x, exp.Binary) for x in (a, b)):
        return False
    pair = (type(a), type(b))
    if not any(pair in (p, p[::-1]) for p in _OPPOSITE):
        return False
    left: str = a.this.sql()
    right: str = a.expression.sql()
    return bool(left == b.this.sql() and right == b.expression.sql())
