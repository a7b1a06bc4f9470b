"""Decisions an UPDATE or INSERT types in that a process or a person should make (for
``sql_values``), read on the statement's tree:

- an approval, a verification or a payment status set (``SET kyc_status = 'verified'``,
  ``SET status = 'approved' WHERE status = 'pending'``);
- consent recorded for people (``SET consent_marketing = 1``);
- administrator rights written into a row (``SET is_superuser = true``, ``role = 'admin'``,
  a capabilities value naming ``administrator``);
- a safeguard's setting switched off (``SET value = '0' WHERE name = 'fraud_check_enabled'``,
  ``SET mfa_required = false``, a rule's ``…_enforced`` setting, a ``credit_hold`` or a
  ``custody_restriction`` cleared), outside development, test or staging.

Each is high: a person confirms."""

from __future__ import annotations

import re
from collections.abc import Iterator

from sqlglot import exp

from .protection_off import PROTECTION, not_live
from .sql_issue import H, Issue, fragment
from .sql_mass import narrow_where
from .sql_money import snake
from .sql_parse import Parsed
from .sql_verdicts import DONE_BY_HAND, more_decision

__all__ = ["decisions"]

_MAX_NODES = 20
_APPROVAL_COLUMN = re.compile(r"(?:^|_)(?:status|state|approval\w*|verification\w*)$|^kyc_\w+$")
_APPROVED = frozenset({"approved", "verified", "cleared", "paid", "whitelisted", "allowlisted"})
_CONSENT_COLUMN = re.compile(r"consent|opt_?in|opted_?in|^marketing_|^gdpr_")
_TRUE = frozenset({"1", "true", "yes", "y", "granted", "given"})
_ADMIN_FLAG = re.compile(r"^is_?(?:admin|staff|superuser|super_?admin)$")
_ADMIN_ROLE = re.compile(r"(?:^|_)role\w*$")
_ADMIN_WORD = re.compile(r"(?i)administrator|superuser|super_?admin")
_PEOPLE_TABLE = re.compile(r"user|member|account|profile|meta|role|capabilit")
_OFF = frozenset({"0", "false", "off", "disabled", "no"})
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")
_ENFORCING = re.compile(
    r"(?:^|[^a-z0-9])(?:enforce\w*|\w+_enforced|\w+_enforcement|sanctions?\w*|screening\w*|"
    r"kyc\w*|aml|\w*(?:credit|compliance|quality|qa|qc|safety|regulatory|risk|payment|fraud)"
    r"_?holds?)(?:[^a-z0-9]|$)"
)
"""Settings and row flags that keep a rule in force or a hold on (``…_optout_enforced``,
``credit_hold``, ``sanctions_screening``): switched off, the rule or the hold is gone."""
_RESTRICTION = re.compile(r"(?:^|[^a-z0-9])\w*restrict(?:ed|ion|ions)?(?:[^a-z0-9]|$)")
"""A restriction put on a row (``custody_restriction``, ``age_restricted``); lifting one from a
person's own account (an unlock, an unban) is account care, read elsewhere."""


def _words(text: str) -> str:
    """``Name = 'TrustPayEnabled'`` as ``name = 'trust_pay_enabled'``."""
    return _CAMEL.sub("_", text).lower()


def _text(value: exp.Expression) -> str | None:
    """A literal's or a boolean's text, lower-cased; None for anything computed."""
    if isinstance(value, exp.Boolean):
        return "true" if value.this else "false"
    if isinstance(value, exp.Literal):
        return str(value.this).strip().lower()
    return None


def _decision(table: str, column: str, value: str, where: str) -> tuple[str, str] | None:
    if _APPROVAL_COLUMN.search(column) and value in _APPROVED:
        return "records an approval or a verification by hand", (
            "the row now says a check passed or a payment was approved that no process or "
            "person did."
        )
    if _CONSENT_COLUMN.search(column) and value in _TRUE:
        return "records people's consent by hand", (
            "consent is set for people who never gave it: messages sent on it break the law "
            "that asks for it."
        )
    admin = (_ADMIN_FLAG.match(column) and value in _TRUE) or (
        _ADMIN_ROLE.search(column) and value in ("admin", "owner", "root")
    )
    if admin or (_PEOPLE_TABLE.search(table) and _ADMIN_WORD.search(value)):
        return "writes administrator rights into a row", (
            "the account gets full control of the application, past its own role management."
        )
    subject = f"{column} {where}"
    guarded = (
        PROTECTION.search(subject)
        or _ENFORCING.search(subject)
        or (_RESTRICTION.search(column) and not _PEOPLE_TABLE.search(table))
    )
    if value in _OFF and guarded and not not_live(subject):
        return "switches a protection off", (
            f"the statement sets a safeguard to off ({subject[:120]}): checks it kept stop "
            "without anyone being told."
        )
    return None


def _assignments(node: exp.Expression) -> Iterator[tuple[str, str, str]]:
    """``(column, value, where)`` of an UPDATE's literal assignments, or of an INSERT's
    literal values by their column names."""
    if isinstance(node, exp.Update):
        where = node.args.get("where")
        text = _words(where.sql()[:2_000]) if isinstance(where, exp.Expression) else ""
        for e in node.expressions[:64]:
            if isinstance(e, exp.EQ) and isinstance(e.this, exp.Column):
                value = _text(e.expression)
                if value is not None:
                    yield snake(e.this.name), value, text
    elif isinstance(node, exp.Insert) and isinstance(node.this, exp.Schema):
        names = [snake(c.name) for c in node.this.expressions[:64]]
        rows = node.expression.expressions[:64] if node.expression is not None else []
        for row in rows:
            values = [_text(v) for v in getattr(row, "expressions", [])[:64]]
            for name, value in zip(names, values, strict=False):
                if value is not None:
                    yield name, value, ""


def _by_key(node: exp.Expression, table: str) -> bool:
    """An UPDATE whose WHERE picks its rows by the table's key (``WHERE matter_no = '…'``)."""
    where = node.args.get("where") if isinstance(node, exp.Update) else None
    return isinstance(where, exp.Expression) and narrow_where(where, table)


def decisions(p: Parsed) -> Iterator[Issue]:
    """The first decision of each kind ``p`` types in by hand (see the module's docstring)."""
    if p.tree is None:
        return
    seen: set[str] = set()
    nodes = [*p.tree.find_all(exp.Update), *p.tree.find_all(exp.Insert)][:_MAX_NODES]
    for node in nodes:
        target = node.find(exp.Table)
        table = snake(target.name) if target is not None else ""
        qualified = target.sql()[:120].lower() if target is not None else ""
        for column, value, where in _assignments(node):
            found = _decision(table, column, value, where) or more_decision(
                qualified, column, value, where
            )
            if found is not None and found[0] == DONE_BY_HAND and _by_key(node, qualified):
                found = None  # one record closed by its key: the everyday close of one case
            if found is not None and found[0] not in seen:
                seen.add(found[0])
                yield Issue(H, found[0], fragment(p), "change")
