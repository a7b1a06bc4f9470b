"""Guards a statement weakens by writing rows or settings, each a class any schema spells its
own way (for ``sql_values``):

- a role with unbounded rights written into a table of roles or permissions
  (``INSERT INTO user_roles … 'PAYMENTS_UNLIMITED'``, ``'super_admin'``, ``'*'``), or a grant
  whose grantor is its grantee (an account granting itself);
- a key or token row minted with no expiry or with wildcard or administrator scopes
  (``INSERT INTO api_keys (…, scopes, expires_at) VALUES (…, 'admin:*', NULL)``);
- the database's own sign-in policy weakened (``ALTER PROFILE … FAILED_LOGIN_ATTEMPTS
  UNLIMITED``, ``PASSWORD_LOCK_TIME 0``, ``CHECK_POLICY = OFF``, ``validate_password`` turned
  down);
- a recovery or retention window cut to hours or nothing (``version_retention_period = '1h'``,
  ``DATA_RETENTION_TIME_IN_DAYS = 0``, ``partition_expiration_days = 1``).

Each is high: a person confirms. Gated on a keyword of the statement's text, so other SQL
costs one substring test. Pure.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from sqlglot import exp

from .sql_issue import H, Issue, fragment
from .sql_money import snake
from .sql_parse import Parsed

__all__ = ["guard_rows"]

_WINDOW = 4_000
_MAX_ROWS = 64
_ROLE_TABLE = re.compile(r"role|permission|privilege|grant|entitlement|authorit|acl|access")
_ROLE_COLUMN = re.compile(
    r"(?:^|_)(?:role|roles|role_\w+|permission\w*|privilege\w*|authority\w*|scope\w*|"
    r"access_level|level|group|group_\w+|right\w*)$"
)
_BROAD_ROLE = re.compile(
    r"(?:^|[^a-z0-9])(?:unlimited|unrestricted|super_?admin|superuser|super_?user|"
    r"administrator|admin|root|owner|god_?mode|full_?access|all_?access)(?:[^a-z0-9]|$)"
    r"|(?:^|[\s:,])\*(?:$|[\s,])|:\*"
)
_GRANTEE = re.compile(r"^(?:user|account|member|principal|grantee|subject)(?:_id|_name)?$")
_GRANTOR = re.compile(r"^(?:granted_by|grantor\w*|approved_by|assigned_by|created_by)$")
_KEY_TABLE = re.compile(r"(?:api_?keys?|access_?keys?|tokens?|credentials?|secrets?)$")
_EXPIRY = re.compile(r"(?:^|_)(?:expires?|expir\w*|valid_until|not_after)(?:_|$)")
_SCOPE = re.compile(r"(?:^|_)(?:scopes?|permissions?|roles?|rights|access)$")
_PROFILE = re.compile(
    r"\b(?:failed_login_attempts|password_\w+)\s+(?:unlimited|0|null|default)\b"
    r"|\bcheck_(?:policy|expiration)\s*=\s*off\b"
    r"|\bvalidate_password[._]\w+\s*=\s*'?(?:low|0|off)\b"
)
_SCRATCH = re.compile(
    r"(?:^|[^a-z0-9])(?:dev|test|testing|staging|sandbox|scratch|tmp|temp)(?:[^a-z0-9]|$)"
)
_RETENTION = re.compile(r"retention\w{0,40}\s*=\s*'?\s*(\d{1,12}(?:\.\d{1,6})?)\s*([a-z]{0,12})")
_EXPIRY_DAYS = re.compile(r"\b(?:partition_)?expiration_days\s*=\s*(\d{1,9}(?:\.\d{1,6})?)\b")
"""A table's or its partitions' expiry in days (BigQuery): ``1`` deletes all but today's."""


def _literal(value: exp.Expression) -> str | None:
    if isinstance(value, exp.Null):
        return "null"
    if isinstance(value, exp.Boolean):
        return "true" if value.this else "false"
    if isinstance(value, exp.Literal):
        return str(value.this).strip().lower()
    return None


def _rows(node: exp.Insert) -> Iterator[dict[str, str]]:
    """An INSERT's rows of literal values by their column names."""
    if not isinstance(node.this, exp.Schema) or node.expression is None:
        return
    names = [snake(c.name) for c in node.this.expressions[:_MAX_ROWS]]
    for row in node.expression.expressions[:_MAX_ROWS]:
        values = [_literal(v) for v in getattr(row, "expressions", [])[:_MAX_ROWS]]
        yield {n: v for n, v in zip(names, values, strict=False) if v is not None}


def _row_issue(table: str, row: dict[str, str]) -> str | None:
    if _KEY_TABLE.search(table):
        if any(_EXPIRY.search(c) and v == "null" for c, v in row.items()):
            return "mints a key or token that never expires"
        if any(_SCOPE.search(c) and _BROAD_ROLE.search(v) for c, v in row.items()):
            return "mints a key or token with wildcard or administrator scopes"
        return None
    if not _ROLE_TABLE.search(table):
        return None
    if any(_ROLE_COLUMN.search(c) and _BROAD_ROLE.search(v) for c, v in row.items()):
        return "writes a role with unlimited or administrator rights"
    grantees = {v for c, v in row.items() if _GRANTEE.match(c) and v}
    if any(_GRANTOR.match(c) and v in grantees for c, v in row.items()):
        return "writes a grant whose grantor is its own grantee"
    return None


def _small_window(amount: float, unit: str) -> bool:
    """Whether a retention of ``amount`` ``unit`` is hours or less (``0``, ``'1h'``)."""
    if amount == 0:
        return True
    return unit.startswith(("h", "m", "s")) and not unit.startswith("mo")


def _text_issue(text: str) -> str | None:
    lower = text[:_WINDOW].lower()
    if ("profile" in lower or "check_" in lower or "validate_password" in lower) and (
        _PROFILE.search(lower)
    ):
        return "weakens the database's sign-in policy (lockout, password expiry or checks)"
    if "retention" in lower and ("alter" in lower or "set" in lower) and not _SCRATCH.search(lower):
        for m in _RETENTION.finditer(lower):
            if _small_window(float(m.group(1)), m.group(2)):
                return f"cuts a recovery or retention window to {m.group(1)}{m.group(2)}"
    if "expiration_days" in lower and "alter" in lower and not _SCRATCH.search(lower):
        days = _EXPIRY_DAYS.search(lower)
        if days is not None and float(days.group(1)) <= 1:
            return f"cuts a recovery or retention window to {days.group(1)} day"
    return None


def guard_rows(p: Parsed) -> Iterator[Issue]:
    """The guards ``p`` weakens (see the module's docstring), at most one issue."""
    found = _text_issue(p.text)
    if found is None and p.tree is not None:
        for n, node in enumerate(p.tree.find_all(exp.Insert)):
            if n >= 8 or found is not None:
                break
            target = node.find(exp.Table)
            table = snake(target.name) if target is not None else ""
            for row in _rows(node):
                found = _row_issue(table, row)
                if found is not None:
                    break
        for n, upd in enumerate(p.tree.find_all(exp.Update)):
            if n >= 8 or found is not None:
                break
            target = upd.find(exp.Table)
            table = snake(target.name) if target is not None else ""
            row = {
                snake(e.this.name): v
                for e in upd.expressions[:_MAX_ROWS]
                if isinstance(e, exp.EQ)
                and isinstance(e.this, exp.Column)
                and (v := _literal(e.expression)) is not None
            }
            if _ROLE_TABLE.search(table) and any(
                _ROLE_COLUMN.search(c) and _BROAD_ROLE.search(v) for c, v in row.items()
            ):
                found = "writes a role with unlimited or administrator rights"
    if found is not None:
        yield Issue(H, found, fragment(p), "change")
