"""Which columns pick one row: a key of any table (``id``, ``uuid``, ``email``) or a table's own
key named after it (``job_id`` of ``jobs``, ``WorkOrderId`` of ``WorkOrders``, ``plan_id`` of
``payment_plans``, ``po_number`` of ``purchase_orders`` by its initials, ``code`` of
``promo_codes``), and values that are one value (a literal or a bound parameter)."""

from __future__ import annotations

import re

from sqlglot import exp

__all__ = ["conjuncts", "key_column", "one_value", "snake_case"]

_KEY_COLUMN = re.compile(r"(?i)^(?:id|uuid|guid|pk|rowid|oid|email|username|login|slug)$")
"""Columns that name one row in any table (``id``, ``uuid``, ``email``)."""
_OWN_KEY = ("_id", "_uuid", "_key", "_no", "_number")
"""…and a table's own key named after it (``job_id`` of ``jobs``, ``invoice_number`` of
``invoices``); another table's key (``customer_id``, ``tenant_id``) keeps all its rows."""

_CODE_NOUNS = frozenset({"code", "sku", "slug", "serial", "barcode", "handle", "ref", "number"})
"""A table named for codes keyed by the code itself (``promo_codes.code``, ``skus.sku``); a
``role`` of ``user_roles`` or a ``status`` names a class and is not one."""

_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")


def snake_case(name: str) -> str:
    """``WorkOrderId`` as ``work_order_id``."""
    return _CAMEL.sub("_", name).lower()


def key_column(name: str, table: str) -> bool:
    low = snake_case(name)
    if _KEY_COLUMN.match(low):
        return True
    base = snake_case(table.rsplit(".", 1)[-1].strip('`"[]'))
    last = base.rsplit("_", 1)[-1]  # ``plan_id`` of ``payment_plans``
    stems = {base, base.removesuffix("s"), base.removesuffix("es"), base.split("_", 1)[0]}
    stems |= {last.removesuffix("s"), base.removesuffix("s").rsplit("_", 1)[-1]}
    words = [w for w in base.split("_") if w]
    if 2 <= len(words) <= 4:
        stems.add("".join(w[0] for w in words))  # ``po_number`` of ``purchase_orders``
    if low == last.removesuffix("s") and low in _CODE_NOUNS:
        return True  # ``code`` of ``promo_codes``
    return any(low == f"{stem}{end}" for stem in stems if stem for end in _OWN_KEY)


def one_value(e: exp.Expression) -> bool:
    """A literal or a bound parameter (``7``, ``$1``, ``?``, ``ANY($1)``: a list of keys)."""
    if isinstance(e, exp.Any):
        inner = e.this.unnest() if isinstance(e.this, exp.Paren) else e.this
        return isinstance(inner, exp.Placeholder | exp.Parameter | exp.Array) or (
            isinstance(inner, exp.Column) and inner.name.startswith(("$", ":", "@", "?"))
        )
    return isinstance(e, exp.Literal | exp.Placeholder | exp.Parameter) or (
        isinstance(e, exp.Neg) and isinstance(e.this, exp.Literal)
    )


def conjuncts(cond: exp.Expression, limit: int = 64) -> list[exp.Expression] | None:
    """The tests ``cond`` ANDs together (``a = 1 AND (b = 2 AND c = 3)`` gives three),
    parentheses taken off; ``None`` when it has more than ``limit`` nodes to walk."""
    stack, seen, tests = [cond], 0, []
    while stack:
        if seen >= limit:
            return None
        e = stack.pop()
        seen += 1
        while isinstance(e, exp.Paren):
            e = e.this
        if isinstance(e, exp.And):
            stack.extend((e.this, e.expression))
        else:
            tests.append(e)
    return tests
