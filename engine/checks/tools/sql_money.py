"""Changes of records whose harm is in money or in what must be kept, whatever the WHERE:

- where money is paid changed (``SET bank_account = …``, ``stripe_account_id = $1``): the
  step of payment-redirection fraud, even for one payee;
- money owed written off for many rows (``SET balance_due = 0 WHERE client_id = 7``);
- money recorded as leaving an account (a ledger, trust or escrow row with a negative amount or
  a disbursement, withdrawal or transfer);
- something made free (``percent_off = 100``);
- legal holds and retention rules changed or removed (``UPDATE legal_holds SET active =
  false``, ``retention_policies SET retain_years = 0``).

Columns and tables are compared in snake case (``BankRouting`` is ``bank_routing``). Nothing
here fires in a throwaway database (the caller's ``Target``)."""

from __future__ import annotations

import re
from collections.abc import Iterator

from sqlglot import exp

from .sql_issue import H, Issue, fragment
from .sql_parse import Parsed

__all__ = ["HOLD_TABLE", "money_changes", "snake"]

_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")
_PAYEE = re.compile(
    r"(?:^|_)(?:bank(?:_\w+)?|routing(?:_\w+)?|iban|swift(?:_\w+)?|bic|sort_code|"
    r"account_number|acct_(?:no|num|number)|payout_\w+|stripe_(?:account|connect)\w*|"
    r"paypal\w*|payee\w*|remit\w*|wire_\w+|ach_\w+|beneficiary\w*|deposit_account\w*)$"
)
"""Columns that say where money is paid (``bank_routing``, ``payout_account``, ``iban``)."""
_OWED = re.compile(
    r"(?:^|_)(?:balance|balance_due|amount_due|amount_owed|outstanding\w*|total_due|"
    r"due_amount|arrears)$"
)
_WRITTEN_OFF = re.compile(r"(?i)^(?:written_?off|write_?off|waived|void(?:ed)?|forgiven)$")
_LEDGER = re.compile(
    r"(?:^|_)(?:ledger|ledgers|trust\w*|escrow\w*|disbursements?|payouts?|withdrawals?|"
    r"transfers?|journal_entries|gl_entries)$"
)
_OUTFLOW = re.compile(r"(?i)^(?:disbursement|withdrawal|transfer(?:_out)?|payout|wire)$")
_PERCENT = re.compile(r"(?:^|_)(?:percent_off|discount_(?:percent|pct|rate)|pct_off|off_percent)$")
HOLD_TABLE = re.compile(
    r"(?:^|_)(?:legal_holds?|litigation_holds?|retention\w*|preservation\w*|"
    r"compliance_holds?|records_holds?)$"
)
"""Tables that keep records from deletion for a matter or a rule."""
_MAX_NODES = 20


def snake(name: str) -> str:
    """``BankRouting`` as ``bank_routing``, without quotes or schema."""
    base = name.rsplit(".", 1)[-1].strip('`"[]')
    return _CAMEL.sub("_", base).lower()


def _table(node: exp.Expression) -> str:
    t = node.this
    if isinstance(t, exp.Schema):
        t = t.this
    return t.sql()[:60] if isinstance(t, exp.Expression) else "?"


def _number(e: exp.Expression) -> float | None:
    neg = isinstance(e, exp.Neg)
    inner = e.this if neg else e
    if isinstance(inner, exp.Literal) and not inner.is_string:
        try:
            value = float(str(inner.this))
        except ValueError:
            return None
        return -value if neg else value
    return None


def _sets(node: exp.Update) -> list[tuple[str, exp.Expression]]:
    return [
        (snake(e.this.name), e.expression)
        for e in node.expressions[:64]
        if isinstance(e, exp.EQ) and isinstance(e.this, exp.Column)
    ]


def _inserted(node: exp.Insert) -> list[tuple[str, exp.Expression]]:
    """(column, value) of an ``INSERT … (cols) VALUES (…)``'s first row."""
    schema = node.this
    values = node.expression
    if not isinstance(schema, exp.Schema) or not isinstance(values, exp.Values):
        return []
    rows = values.expressions
    if not rows or not isinstance(rows[0], exp.Tuple):
        return []
    cols = [snake(c.name) for c in schema.expressions if isinstance(c, exp.Identifier | exp.Column)]
    return list(zip(cols, rows[0].expressions, strict=False))[:64]


def _issue(title: str, p: Parsed) -> Issue:
    return Issue(H, title, fragment(p), "change")


def money_changes(p: Parsed, narrow: bool) -> Iterator[Issue]:
    """What ``p`` does to money or kept records (see the module's docstring). ``narrow``:
    every UPDATE and DELETE of ``p`` picks its rows by key."""
    if p.tree is None:
        return
    for n, node in enumerate(p.tree.find_all(exp.Update, exp.Delete, exp.Insert)):
        if n >= _MAX_NODES:
            return
        name = _table(node)
        table = snake(name)
        if isinstance(node, exp.Update | exp.Delete) and HOLD_TABLE.search(table):
            verb = "UPDATE" if isinstance(node, exp.Update) else "DELETE"
            yield _issue(f"{verb} of a legal hold or retention rule ({name})", p)
            return
        pairs = _sets(node) if isinstance(node, exp.Update) else []
        if isinstance(node, exp.Insert):
            pairs = _inserted(node)
        payee = [c for c, _ in pairs if _PAYEE.search(c)]
        if isinstance(node, exp.Update) and payee:
            yield _issue(f"changes where money is paid ({', '.join(payee)[:50]} of {name})", p)
            return
        free = [c for c, v in pairs if _PERCENT.search(c) and (_number(v) or 0) >= 100]
        if free:
            yield _issue(f"makes something free ({free[0]} = 100 in {name})", p)
            return
        if isinstance(node, exp.Update) and not narrow:
            owed = [c for c, v in pairs if _OWED.search(c) and _number(v) == 0]
            off = [
                c
                for c, v in pairs
                if isinstance(v, exp.Literal) and v.is_string and _WRITTEN_OFF.match(v.name)
            ]
            if owed or off:
                yield _issue(f"writes off money owed on many rows of {name}", p)
                return
        if isinstance(node, exp.Insert) and _LEDGER.search(table):
            out = any((_number(v) or 0) < 0 for _, v in pairs) or any(
                isinstance(v, exp.Literal) and v.is_string and _OUTFLOW.match(v.name)
                for _, v in pairs
            )
            if out:
                yield _issue(f"records money leaving an account ({name})", p)
                return
