"""Values an UPDATE writes that matter even in one row, typed in by hand rather than passed by an
application (a literal, not a bound parameter):

- an account's login identity re-pointed (``UPDATE customers SET email = 'x@proton.me'``): who
  receives the password reset owns the account — the step of an account takeover;
- stored money set or raised (``SET balance = 5000``, ``balance_cents = balance_cents +
  500000``): a gift card, wallet or ledger balance created from nothing;
- a recorded amount of an order, invoice or payment rewritten (``SET total = 0.01``).

Nothing here fires in a throwaway database (the caller filters ``change`` findings there)."""

from __future__ import annotations

import re
from collections.abc import Iterator

from sqlglot import exp

from .sql_decisions import decisions
from .sql_issue import H, Issue, fragment
from .sql_ledger import ledger_postings
from .sql_mass_status import marks_verified
from .sql_money import snake
from .sql_parse import Parsed

__all__ = ["STORED_TITLE", "balanced_transfer", "value_changes"]

_PEOPLE = re.compile(
    r"(?:^|_)(?:users?|customers?|accounts?|members?|profiles?|logins?|admins?|employees?|"
    r"identities|people|persons?|principals?|subscribers?|patients?|clients?|staff|players?|"
    r"students?|learners?|drivers?|riders?|sellers?|buyers?|shoppers?)$"
)
"""Tables whose rows are accounts someone signs in to (``auth_user``, ``customers``)."""
_IDENTITY = re.compile(
    r"^(?:(?:user|account|member|customer|login|primary|recovery|backup|auth|signin|sign_in)_)?"
    r"(?:e_?mail(?:_address)?|login(?:_(?:email|name|id))?|user_?name)$"
    r"|^(?:recovery|backup|primary|login)_phone$|^(?:mfa|otp|two_factor|2fa|sms)_\w*phone\w*$"
)
"""Columns that say where an account's resets and codes go, or what one signs in with
(``email``, WordPress's ``user_email`` and ``user_login``, ``recovery_phone``). A plain
``phone`` and a ``contact_``/``billing_``/``notification_`` address are contact data: a
customer's new number or invoice address is an everyday update."""
_RESERVED = re.compile(r"(?i)@(?:[\w.-]+\.)?(?:example\.\w+|invalid|test|localhost|example)$")
"""Addresses that reach nobody (RFC 2606): an account scrubbed, not taken over."""
_STORED = re.compile(
    r"(?:^|_)(?:balance|balances|credits?|store_credit|funds|wallet)"
    r"(?:_(?:cents|minor|amount|usd|eur|gbp))?$"
)
"""Columns that hold money an account or card can spend."""
_RECORDED = re.compile(
    r"^(?:(?:grand_|sub_?|order_|invoice_|amount_)?total|amount|amount_(?:paid|due|cents|minor)|"
    r"total_(?:cents|amount|price|paid)|price_paid|paid_amount|charge_amount)$"
)
_MONEY_RECORDS = re.compile(
    r"(?:^|_)(?:orders?|invoices?|payments?|transactions?|charges?|refunds?|receipts?|"
    r"bills?|settlements?|purchases?)$"
)
"""Tables whose rows record money that changed hands: their amounts are not edited by hand."""
_MAX_NODES = 20


def _number(e: exp.Expression) -> bool:
    inner = e.this if isinstance(e, exp.Neg) else e
    return isinstance(inner, exp.Literal) and not inner.is_string


def _by_hand(column: str, value: exp.Expression) -> bool:
    """A number typed in, or the column moved or scaled by one (``balance + 500000``,
    ``credit * 10``)."""
    while isinstance(value, exp.Paren):
        value = value.this
    if _number(value):
        return True
    if isinstance(value, exp.Literal) and value.is_string:
        return bool(re.fullmatch(r"-?\d+(?:\.\d+)?", value.name.strip()))
    if isinstance(value, exp.Add | exp.Sub | exp.Mul):
        sides = (value.this, value.expression)
        own = any(isinstance(s, exp.Column) and snake(s.name) == column for s in sides)
        return own and any(_number(s) for s in sides)
    return False


STORED_TITLE = "sets stored money by hand"


def _delta(column: str, value: exp.Expression) -> float | None:
    """``balance + 10`` → 10, ``balance - 10`` → -10; None for anything else."""
    if not isinstance(value, exp.Add | exp.Sub) or not isinstance(value.this, exp.Column):
        return None
    amount = value.expression
    if snake(value.this.name) != column or not isinstance(amount, exp.Literal) or amount.is_string:
        return None
    try:
        number = float(amount.this)
    except ValueError:
        return None
    return number if isinstance(value, exp.Add) else -number


def balanced_transfer(parsed: list[Parsed]) -> bool:
    """The script's stored-money changes only move an amount between rows: every one is the
    column moved by a number (``balance - 10`` here, ``balance + 10`` there), and they sum to
    zero — a transfer, no money made."""
    deltas: list[float] = []
    for p in parsed[:_MAX_NODES]:
        if p.tree is None:
            continue
        for node in list(p.tree.find_all(exp.Update))[:_MAX_NODES]:
            for e in node.expressions[:64]:
                if isinstance(e, exp.EQ) and isinstance(e.this, exp.Column):
                    column = snake(e.this.name)
                    if not _STORED.search(column):
                        continue
                    delta = _delta(column, e.expression)
                    if delta is None:
                        return False
                    deltas.append(delta)
    return len(deltas) >= 2 and abs(sum(deltas)) < 1e-9


def _table(node: exp.Update) -> str:
    t = node.this
    return t.sql()[:60] if isinstance(t, exp.Expression) else "?"


def value_changes(p: Parsed) -> Iterator[Issue]:
    """What ``p``'s UPDATEs write by hand into login identities, balances and recorded
    amounts (see the module's docstring), and what it posts to a ledger by hand
    (``sql_ledger``)."""
    if p.tree is None:
        return
    yield from ledger_postings(p)
    yield from decisions(p)
    for n, node in enumerate(p.tree.find_all(exp.Update)):
        if n >= _MAX_NODES:
            return
        name = _table(node)
        table = snake(name)
        account = bool(_PEOPLE.search(table)) or marks_verified(node)
        for e in node.expressions[:64]:
            if not isinstance(e, exp.EQ) or not isinstance(e.this, exp.Column):
                continue
            column, value = snake(e.this.name), e.expression
            typed = isinstance(value, exp.Literal) and value.is_string
            if (
                account
                and _IDENTITY.match(column)
                and typed
                and value.name.strip()
                and not _RESERVED.search(value.name.strip())
            ):
                yield Issue(
                    H,
                    f"re-points an account's sign-in ({column} of {name}): account takeover shape",
                    fragment(p),
                    "change",
                )
                return
            if _STORED.search(column) and _by_hand(column, value):
                yield Issue(
                    H, f"sets stored money by hand ({column} of {name})", fragment(p), "change"
                )
                return
            if _MONEY_RECORDS.search(table) and _RECORDED.match(column) and _by_hand(column, value):
                yield Issue(
                    H, f"rewrites a recorded amount ({column} of {name})", fragment(p), "change"
                )
                return
