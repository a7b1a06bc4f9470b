"""Administrator rights granted without the word for them, for the business readers.

The plain form names the role (``AdministratorAccess``, ``cluster-admin``, ``role: admin``);
the same rights come from:

- an IAM policy written inline that allows every action on every resource
  (``{"Effect": "Allow", "Action": "*", "Resource": "*"}``, as an object or JSON text);
- a Kubernetes role whose rules allow every verb on every resource (``verbs: ["*"]``,
  ``resources: ["*"]``): ``cluster-admin`` under another name;
- a SCIM ``PatchOp`` that adds or replaces a user's ``roles`` or ``entitlements`` with one
  naming an administrator or owner (``{"op": "replace", "path": "roles", "value":
  [{"value": "Owner"}]}``);
- a tool or endpoint named for making someone an administrator (Slack's
  ``admin.users.setAdmin``/``setOwner``, ``make_admin``, ``promote_to_superuser``).

Bounded: 200 pairs, policy texts of at most 65,536 characters, 50 statements or rules.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Sequence
from typing import Any

__all__ = ["admin_equivalent", "named_admin"]

Pair = tuple[str, Any]
Finding = tuple[str, str, str]

_POLICY_KEYS = frozenset(
    {"policydocument", "policy_document", "policy", "document", "inline_policy", "statement"}
)
_RULE_KEYS = frozenset({"rules"})
_OPS_KEYS = frozenset({"operations"})
_ROLE_PATHS = re.compile(r"(?i)^(?:roles|entitlements|groups)\b")
_ADMIN = re.compile(
    r"(?i)(?:^|[\W_])(?:super[\W_]?admins?|admins?|administrators?|owners?|superusers?|"
    r"root)(?:$|[\W_])"
)
_NAMED = re.compile(
    r"(?i)(?:^|[._/\-])(?:set|make|promote|grant|assign|add)[._\-]?(?:to[._\-]?)?(?:as[._\-]?)?"
    r"(super[._\-]?admin|admin|administrator|superuser|owner)s?"
    r"(?:$|[/?]|[._\-](?:role|rights|privileges?|access|status|to|for)(?:$|[._/\-?]))"
)
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")
_PEOPLE = re.compile(r"(?i)(?:^|[._/\-])(?:users?|members?|accounts?)(?:$|[._/\-])")


def _as_object(value: Any) -> Any:
    if isinstance(value, str) and value.lstrip()[:1] == "{" and len(value) <= 65_536:
        try:
            return json.loads(value)
        except ValueError:
            return None
    return value


def _every(value: Any) -> bool:
    items = value[:50] if isinstance(value, list) else [value]
    return any(isinstance(i, str) and i.strip() in ("*", "*:*") for i in items)


def _allows_all(policy: Any) -> bool:
    """An IAM policy (or one statement) allowing every action on every resource."""
    policy = _as_object(policy)
    if not isinstance(policy, dict):
        return False
    statements = policy.get("Statement", policy.get("statement", policy))
    for item in (statements if isinstance(statements, list) else [statements])[:50]:
        if not isinstance(item, dict):
            continue
        effect = str(item.get("Effect", item.get("effect", ""))).lower()
        action = item.get("Action", item.get("action"))
        resource = item.get("Resource", item.get("resource"))
        if effect == "allow" and _every(action) and _every(resource):
            return True
    return False


def _rules_all(rules: Any) -> bool:
    """Kubernetes RBAC rules allowing every verb on every resource."""
    if not isinstance(rules, list):
        return False
    return any(
        isinstance(rule, dict) and _every(rule.get("verbs")) and _every(rule.get("resources"))
        for rule in rules[:50]
    )


def _admin_text(value: Any, depth: int = 0) -> str | None:
    if isinstance(value, str):
        return value if len(value) < 200 and _ADMIN.search(value) else None
    if depth > 3:
        return None
    items = list(value.values()) if isinstance(value, dict) else value
    if isinstance(items, list):
        for item in items[:50]:
            found = _admin_text(item, depth + 1)
            if found is not None:
                return found
    return None


def _scim_admin(ops: Any) -> str | None:
    """A SCIM PatchOp adding or replacing roles, entitlements or groups with an admin one."""
    if not isinstance(ops, list):
        return None
    for op in ops[:50]:
        if not isinstance(op, dict) or str(op.get("op", "")).lower() not in ("add", "replace"):
            continue
        path, value = op.get("path"), op.get("value")
        if isinstance(path, str) and _ROLE_PATHS.match(path.strip()):
            found = _admin_text(value)
        elif path is None and isinstance(value, dict):
            found = next(
                (
                    f
                    for k, v in list(value.items())[:50]
                    if _ROLE_PATHS.match(str(k)) and (f := _admin_text(v)) is not None
                ),
                None,
            )
        else:
            found = None
        if found is not None:
            return found
    return None


def admin_equivalent(pairs: Sequence[Pair]) -> Iterator[Finding]:
    """Administrator rights granted by a policy, role or patch that never names them."""
    for key, value in pairs[:200]:
        if key in _POLICY_KEYS and _allows_all(value):
            granted = "Action * on Resource *"
        elif key in _RULE_KEYS and _rules_all(value):
            granted = "every verb on every resource"
        elif key in _OPS_KEYS and (role := _scim_admin(value)) is not None:
            granted = role
        else:
            continue
        yield (
            "grants administrator rights",
            f"`{granted[:60]}` gives the account control over the whole system.",
            "Let an administrator grant administrator rights; grant the actions needed.",
        )
        return


def named_admin(name: str, path: str) -> Iterator[Finding]:
    """A tool's name or an endpoint's path that says it makes someone an administrator
    (``setAdmin``, ``make_admin``, ``admin.users.setOwner``); an owner only when the name is
    about users or members (a ticket's or record's owner is everyday)."""
    for text in (name[:128], path[:512]):
        spaced = _CAMEL.sub("_", text)
        match = _NAMED.search(spaced)
        if match is None:
            continue
        role = match.group(1).lower()
        if role != "owner" or _PEOPLE.search(spaced):
            yield (
                "grants administrator rights",
                f"the call makes someone {role}: control over the whole workspace or account.",
                "Let an administrator grant administrator rights.",
            )
            return
