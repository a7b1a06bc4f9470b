"""Money posted to a ledger by hand: an ``INSERT … VALUES`` into a ledger, journal or wallet's
entries (``ledger.postings``, ``journal_entries``, ``wallet_transactions``) with an amount typed
in, whose rows do not balance — a credit with no matching debit makes money from nothing, the
shape of a "manual adjustment" no process or approver made.

A double entry that balances (a debit and a credit of the same amount, or amounts that sum to
zero), bound parameters and rows computed by a query (``INSERT … SELECT``) are what
applications and jobs do, and pass. Nothing here fires in a throwaway database (the caller
filters ``change`` findings there). Pure."""

from __future__ import annotations

import re
from collections.abc import Iterator

from sqlglot import exp

from .sql_issue import H, Issue, fragment
from .sql_money import snake
from .sql_parse import Parsed

__all__ = ["ledger_postings"]

_LEDGER_WORDS = frozenset(
    {"ledger", "ledgers", "postings", "posting", "journal", "journals", "gl", "bookkeeping"}
)
"""Words of a table's or its schema's name that make its rows money's postings."""
_ENTRY_TABLE = re.compile(
    r"(?:^|_)(?:wallet|account|balance|credit|points|loyalty)_?(?:transactions?|entries|"
    r"movements?|adjustments?|postings?|txns?)$"
)
"""Tables of an account's or a wallet's money movements (``wallet_transactions``)."""
_AMOUNT = re.compile(r"^(?:amount|amt|value|sum|delta)(?:_\w+)?$|_(?:amount|cents|minor)$")
_SIDED = re.compile(r"^(debit|credit|dr|cr)(?:_\w+)?$")
"""A double entry's two amount columns (``debit``, ``credit_amount``)."""
_DIRECTION = re.compile(r"^(?:direction|side|type|kind|entry_type|dr_cr|drcr|sign)$")
_OUT = frozenset({"debit", "dr", "d", "out", "withdrawal", "outflow"})
_IN = frozenset({"credit", "cr", "c", "in", "deposit", "inflow"})
_MAX_ROWS = 200
_MAX_NODES = 20


def _ledger_table(name: str) -> bool:
    parts = [p for p in re.split(r"\.", re.sub(r"[`\"\[\]]", "", name)) if p][-2:]
    words = {w for p in parts for w in re.split(r"[^a-z0-9]+", snake(p)) if w}
    return bool(words & _LEDGER_WORDS) or bool(parts and _ENTRY_TABLE.search(snake(parts[-1])))


def _number(e: exp.Expression) -> float | None:
    neg = isinstance(e, exp.Neg)
    inner = e.this if neg else e
    if not isinstance(inner, exp.Literal):
        return None
    try:
        value = float(str(inner.this).strip())
    except ValueError:
        return None
    return -value if neg else value


def _signed(columns: list[str], row: exp.Tuple) -> float | None:
    """The row's amount, negative when its direction says money out; None when the row has no
    typed amount (a parameter, an expression)."""
    amount: float | None = None
    sign = 1.0
    for column, value in zip(columns, row.expressions, strict=False):
        sided = _SIDED.match(column)
        if sided is not None and (number := _number(value)) is not None:
            out = sided.group(1) in ("debit", "dr")
            amount = (amount or 0.0) + (-number if out else number)
        elif _AMOUNT.search(column) and amount is None:
            amount = _number(value)
        elif _DIRECTION.match(column) and isinstance(value, exp.Literal) and value.is_string:
            word = value.name.strip().lower()
            sign = -1.0 if word in _OUT else sign
            sign = 1.0 if word in _IN else sign
    return None if amount is None else sign * amount


def ledger_postings(p: Parsed) -> Iterator[Issue]:
    """An INSERT of ``p`` that posts typed-in amounts to a ledger without balancing them."""
    if p.tree is None:
        return
    for n, node in enumerate(p.tree.find_all(exp.Insert)):
        if n >= _MAX_NODES:
            return
        schema, values = node.this, node.expression
        if not isinstance(schema, exp.Schema) or not isinstance(values, exp.Values):
            continue
        name = schema.this.sql()[:60] if isinstance(schema.this, exp.Expression) else "?"
        if not _ledger_table(name):
            continue
        columns = [
            snake(c.name) for c in schema.expressions if isinstance(c, exp.Identifier | exp.Column)
        ]
        amounts = [
            _signed(columns, row)
            for row in values.expressions[:_MAX_ROWS]
            if isinstance(row, exp.Tuple)
        ]
        typed = [a for a in amounts if a is not None and a != 0]
        if not typed or len(typed) != len(amounts):
            continue  # parameters or computed values: an application's or a job's posting
        if len(typed) >= 2 and abs(sum(typed)) < 1e-6:
            continue  # a double entry that balances
        yield Issue(
            H,
            f"posts money to a ledger by hand without a balancing entry ({name})",
            fragment(p),
            "change",
        )
        return
