"""IAM statements in Terraform (``config_terraform``), in every spelling: HCL
``aws_iam_policy_document`` statements, ``jsonencode({...})`` objects, JSON in heredocs and
JSON inside a string (``.tf.json``). A statement is the block that holds its ``Action`` /
``actions``; an explicit ``Deny`` allows nothing.

- every action on every resource (administrator): critical;
- all of IAM (``iam:*``): critical on every resource, high on named ones;
- ``*`` on named resources: high (``change_risks`` already reports it in the HCL list and JSON
  string spellings; ``config_terraform`` leaves those lines to it);
- a resource policy open to anyone (``Principal: "*"`` with no condition): high, critical when
  it lets anyone write or delete;
- a role anyone may assume: high, critical when ``AdministratorAccess`` is attached in the
  file and no condition narrows it; ``AdministratorAccess`` for a role another account's
  principal may assume: high (a human confirms the account is the company's).
"""

from __future__ import annotations

import re

from humangr.contracts import Severity

__all__ = ["ACTION_KEY", "ADMIN_POLICY", "STRINGS", "statement_risk"]

ACTION_KEY = re.compile(r"(?i)\bactions?[\"\\]*\s*[=:]")
"""A statement's ``Action`` / ``actions`` key, in HCL, JSON or escaped JSON."""
_KEY = r"(?i)\b{}[\"\\]*\s*[=:]\s*"
STRINGS = re.compile(r"\\?\"([^\"\\\n]*+(?:\\[^\"\n][^\"\\\n]*+)*+)\\?\"")
"""A quoted string, or one quoted with escaped quotes (a JSON policy inside a string)."""
ADMIN_POLICY = re.compile(r"arn:aws[\w-]*:iam::aws:policy/AdministratorAccess\b")
"""AWS's managed administrator policy (attached somewhere in the file)."""
_ACCOUNT = re.compile(r"arn:aws[\w-]*:iam::(\d{12}):|^(\d{12})$")
_WRITE_ACTION = re.compile(r"(?i)^\*$|:\*$|:(?:Put|Delete|Create|Update|Write|Attach)")


def _values(body: str, key: str) -> list[str] | None:
    """The strings a statement gives ``key`` (one, or a list or object of them); None when the
    statement has no such key."""
    m = re.search(_KEY.format(key), body)
    if m is None:
        return None
    rest = body[m.end() : m.end() + 2_000]
    if rest[:1] in ("[", "{"):
        closer = "]" if rest[0] == "[" else "}"
        rest = rest[: rest.find(closer) + 1 or len(rest)]
    else:
        rest = rest.split("\n", 1)[0].split(",", 1)[0]
    return STRINGS.findall(rest)


def statement_risk(body: str, admin: bool) -> tuple[Severity, str, str] | None:
    """What an IAM statement (the block holding ``Action``/``actions``) allows that matters."""
    effect = _values(body, "effect")
    if effect and effect[0].lower() == "deny":
        return None
    actions = [a.lower() for a in _values(body, r"actions?") or []]
    resources = _values(body, r"resources?") or []
    principals = _values(body, r"(?:principals?|identifiers)")
    condition = re.search(_KEY.format("conditions?") + r"|\bcondition\s*\{", body) is not None
    every_resource = "*" in resources
    if principals is None:
        if "*" in actions and every_resource:
            return (
                Severity.CRITICAL,
                "grants every action on every resource (administrator)",
                '`"Action": "*"` on `"Resource": "*"` makes whoever holds it an administrator.',
            )
        if "iam:*" in actions:
            return (
                Severity.CRITICAL if every_resource else Severity.HIGH,
                "grants full control of IAM",
                "iam:* lets its holder create users, keys and policies: it can make itself "
                "administrator.",
            )
        if "*" in actions:
            return (Severity.HIGH, "grants every action", '`"Action": "*"` allows everything.')
        return None
    anyone = "*" in principals
    accounts = {a or b for p in principals for a, b in _ACCOUNT.findall(p)}
    if any(a.startswith("sts:assumerole") for a in actions):
        if anyone:
            severity = Severity.CRITICAL if admin and not condition else Severity.HIGH
            what = " with AdministratorAccess" if admin else ""
            return (
                severity,
                f"a role anyone may assume{what}",
                "Its trust policy lets any AWS account take the role"
                + (" and its administrator rights." if admin else "."),
            )
        if admin and accounts:
            return (
                Severity.HIGH,
                f"administrator rights for account {sorted(accounts)[0]}",
                "AdministratorAccess is attached to a role another account's principal may "
                "assume: confirm the account is yours.",
            )
        return None
    if anyone and not condition:
        writes = any(_WRITE_ACTION.search(a) for a in actions)
        return (
            Severity.CRITICAL if writes else Severity.HIGH,
            "a resource policy open to anyone" + (" (write or delete)" if writes else ""),
            'Its `Principal: "*"` with no condition grants every internet user these actions.',
        )
    return None
