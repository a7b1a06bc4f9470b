"""Access handed out through an API's body or parameters, whatever the API.

- An administrator made: a ``makeAdmin`` call, ``isAdmin: true``, or a role, profile or group
  naming an administrator, owner or superuser given to someone; or, in a role assignment, a
  role shown only by an id that is not a known reader role (a person must look it up).
- A long-lived credential minted: a key, token or app password created with no expiry, an
  expiry more than a year away, or scopes that reach everything or make more keys.
- Mail forwarded to an address outside the mailbox's own domain.
- A wildcard or everyone added to an allow list, an origin list, or a rule letting traffic in.

Reader roles, a key with a near expiry and narrow scopes, forwarding inside the domain and a
named origin or address run. Pure.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from datetime import date
from typing import Any

from .body_walk import Node, key_words, nodes, truthy
from .business_words import PERSONAL_MAIL, REVOKE_VERBS, switched_off

__all__ = ["grants"]

_ADMIN = re.compile(
    r"(?:^|[^a-z])(?:admin\w*|administrator|owners?|super_?users?|super_?admin|root|"
    r"sys_?adm\w*|global_?admin\w*|sap_all|db_owner|dba|full_?control|full_?access)(?:[^a-z]|$)"
)
_ADMIN_INSIDE = re.compile(r"(?i)sysadm|superuser|globaladmin")
_PRIVILEGED_IDS = frozenset(
    {"8e3af657-a8ff-443c-a75c-2fe8c4bcb635", "b24988ac-6180-42a0-ab88-20f7382dd24c",
     "18d7d88d-d35e-4fb5-a5c3-7773c20a72d9", "62e90394-69f5-4237-9190-012177145e10",
     "e8611ab8-c189-46e8-94e1-60213ab1f814", "194ae4cb-b126-40b2-bd5b-6091b380977d",
     "9b895d92-2cd3-44c7-9d02-a6ac2d5ea5c3", "f2ef992c-3afb-46b9-b7cf-a126ee74c451"}
)  # fmt: skip
"""Built-in cloud roles that are administrators (Owner, Contributor, User Access
Administrator; directory Global, Privileged Role, Security and Application Administrator)."""
_ROLE_KEYS = re.compile(
    r"^(?:\w+_)?(?:roles?|role_?ids?|role_definition_id|role_template_id|profiles?|profile_?id|"
    r"bapiprof|access_?level|permission_?level|group_?name|groups?)$"
)
_ASSIGNING = re.compile(
    r"(?:^|_)(?:role_?assignments?|has_roles?|role_?members?|assign\w*|add_\w*members?|"
    r"members?|grant\w*|make_?admin|promote|invite\w*|user_?roles?|directory_?roles?|"
    r"profiles?_?assign|collaborators?|permissions?|memberships?|\w*role_?bindings?)(?:_|$)"
)
_TAKES = re.compile(r"(?:^|_)(?:remove|revoke|delete|unassign|deactivate|demote|disable)(?:_|$)")
_READS = re.compile(r"(?:^|_)(?:get|list|search|read|find|query|describe|count|show)(?:_|$)")
_PERSON = re.compile(
    r"(?:^|_)(?:users?|members?|accounts?|principals?|people|persons?|employees?)(?:_|$)"
)
_OPAQUE = re.compile(
    r"^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$|^[0-9a-f]{24,40}$"
)
_IS_ADMIN = re.compile(r"^(?:is_|make_|site_|org_)?(?:admin|administrator|super_?user|superadmin)$")
_CRED_PATH = re.compile(
    r"(?:^|_)(?:api_?keys?|access_?keys?|personal_?access_?tokens?|access_?tokens|api_?tokens|"
    r"deploy_?tokens|auth_?tokens|password_?credentials?|add_?password|add_?key|client_?secrets|"
    r"app_?passwords?)(?:_|$)"
)
_KEYS_OF = re.compile(
    r"(?:^|_)(?:service_?accounts?|users?|applications?|apps|clients)_.*(?:keys|tokens)$"
)
"""A key or a token minted for a named account (``…/users/<name>/tokens``)."""
_MINTS = re.compile(r"(?:^|_)(?:create|add|generate|issue|mint|new|rotate)(?:_|$)")
_EXPIRY = re.compile(
    r"^(?:\w+_)?(?:expires?(?:_at|_in|_on)?|expiration\w*|expiry\w*|ttl|"
    r"end_date_time|end_date|valid_until|validity\w*|lifetime\w*|expire_time)$"
)
_BROAD_SCOPE = re.compile(
    r"(?:^|[^a-z])(?:\*|admin\w*|all|full\w*|owner|[a-z_]*keys?\.create|"
    r"write:org|delete\w*)(?:[^a-z]|$)"
)
_EMAIL = re.compile(r"[\w.+-]{1,64}@([\w-]{1,63}(?:\.[\w-]{1,63}){1,5})")
_FORWARDING = re.compile(
    r"(?:^|_)(?:auto_?forward\w*|forward\w*|message_?rules?|inbox_?rules?|"
    r"mail_?rules?|redirect_?to)(?:_|$)"
)
_ALLOW_CTX = re.compile(
    r"(?:^|_)(?:allow\w*|whitelist\w*|trusted\w*|origins?|cors|"
    r"value_?lists?|ip_?ranges?|policies|policy|firewall\w*|ingress\w*|"
    r"security_?groups?|rules?|sharing|shares?)(?:_|$)"
)
_WILD_KEYS = re.compile(
    r"^(?:\w+_)?(?:src\w*|source\w*|cidr\w*|ip\w*|origins?|value|values|"
    r"entries|items|domains?|emails?|addresses|allowed\w*|from|remote\w*|"
    r"type|audience|scope)$"
)
_WILD = re.compile(
    r"^(?:\*|\*@[\w.-]+|\*\.[a-z]{2,}|all|any|everyone|anyone|public|"
    r"0\.0\.0\.0(?:/0)?|::/0|0/0)$"
)


def _hosts(text: str) -> set[str]:
    return {m.group(1).lower() for m in _EMAIL.finditer(text[:20_000])}


def _base(domain: str) -> str:
    return ".".join(domain.lower().rstrip(".").split(".")[-2:])


def _far(value: object, today: date) -> bool:
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return value > 400 * 86_400 or value <= 0  # seconds; none or over a year
    if isinstance(value, str):
        year = re.match(r"^\s*(\d{4})-\d{2}", value)
        if year:
            return int(year.group(1)) > today.year + 1
        days = re.match(r"^\s*(\d{1,6})\s*d(?:ays?)?\s*$", value)
        return days is not None and int(days.group(1)) > 400
    return value is None


def _credential(
    name: str, path: str, method: str, all_nodes: list[Node], today: date
) -> str | None:
    words, where = key_words(name), key_words(path)
    by_path = method in ("POST", "PUT") and (_CRED_PATH.search(where) or _KEYS_OF.search(where))
    by_name = (
        _MINTS.search(words)
        and (_CRED_PATH.search(words) or re.search(r"(?:^|_)(?:key|token|credential)$", words))
        and not re.search(r"(?:^|_)(?:payment|card|upload|invite|session|csrf)(?:_|$)", words)
    )
    if _TAKES.search(where) or _TAKES.search(words):
        return None  # a key revoked, deleted or disabled: access taken away
    if not (by_path or by_name) or re.search(
        r"(?:^|_)(?:deploy|ssh|gpg|public)_?keys?(?:_|$)", words + "_" + where
    ):
        return None  # a public key the caller brings is judged by the deploy-key rules
    if any(k in ("read_only", "readonly") and truthy(v) for n in all_nodes for k, v in n.items):
        return None
    expiry: list[object] = [v for n in all_nodes for k, v in n.items if _EXPIRY.match(k)]
    scopes = [v for n in all_nodes for k, v in n.items if k in ("scopes", "scope", "permissions")]
    text = " ".join(str(s) for s in scopes)[:2_000].lower()
    if _BROAD_SCOPE.search(text):
        return "a key whose scopes reach everything or make more keys"
    if not expiry:
        return "a key that never expires"
    if all(_far(v, today) for v in expiry):
        return "a key that lasts for years"
    return None


def _admin_made(name: str, path: str, method: str, node: Node) -> str | None:
    where = key_words(f"{name} {path}")
    if method == "DELETE" or _TAKES.search(where):
        return None  # access taken away is the safe direction
    if re.search(r"(?:^|_)make_?admin(?:_|$)", where) and not any(
        switched_off(v) for _, v in node.items
    ):
        return "makes someone an administrator"
    for key, value in node.items:
        if _IS_ADMIN.match(key) and truthy(value):
            return f"`{key}` set true"
    context = "_".join((where, *node.above, *map(key_words, node.labels)))
    assigning = bool(_ASSIGNING.search(context))
    if not assigning and (
        method == "GET" or _READS.search(key_words(name)) or not _PERSON.search(context)
    ):
        return None  # a role with no one given it: the role the call itself runs as
    for key, value in node.items:
        if not _ROLE_KEYS.match(key) and not (key == "name" and node.above[-1:] == ("role_ref",)):
            continue
        for one in value[:20] if isinstance(value, list) else [value]:
            text = str(one)[:300] if isinstance(one, str) else ""
            low = text.lower().rsplit("/", 1)[-1]
            if (
                low in _PRIVILEGED_IDS
                or _ADMIN.search(key_words(text))
                or _ADMIN_INSIDE.search(text)
            ):
                return f"gives an administrator role ({text[:80]})"
            if assigning and _OPAQUE.match(low) and re.search(r"role", key + context):
                return f"assigns a role shown only by its id ({low[:40]})"
    return None


def _forward(name: str, path: str, node: Node, owners: set[str]) -> str | None:
    context = key_words(f"{name} {path}") + "_" + "_".join(node.above)
    if not _FORWARDING.search(context) or any(
        k in ("enabled", "is_enabled") and switched_off(v) for k, v in node.items
    ):
        return None
    for key, value in node.items:
        if key in ("email_address", "address", "forward_to", "forwarding_email", "to", "email"):
            for host in _hosts(str(value)):
                if PERSONAL_MAIL.search("@" + host) or (owners and _base(host) not in owners):
                    return f"forwards mail to an address at {host[:60]}"
    return None


def _wildcard(name: str, path: str, node: Node) -> str | None:
    context = key_words(f"{name} {path}") + "_" + "_".join(node.above)
    if not _ALLOW_CTX.search(context + "_" + "_".join(k for k, _ in node.items)):
        return None
    if REVOKE_VERBS & set(key_words(name).split("_")):
        return None  # ``revoke_security_group_ingress``: the range named is taken away
    if any(
        k == "action" and str(v).lower() in ("deny", "drop", "reject", "block")
        for k, v in node.items
    ):
        return None
    for key, value in node.items:
        if not _WILD_KEYS.match(key):
            continue
        for one in value[:50] if isinstance(value, list) else [value]:
            if isinstance(one, str) and _WILD.match(one.strip().lower()):
                if key == "type" and not re.search(
                    r"(?:^|_)(?:permissions?|sharing|shares?)(?:_|$)", context
                ):
                    continue
                return f"lets {one.strip()[:40]!r} in through `{key}`"
    return None


def grants(
    name: str, path: str, method: str, arguments: Mapping[str, Any], today: date | None = None
) -> Iterator[tuple[str, str]]:
    """(title, why) of each grant the call makes: at most one of each kind."""
    all_nodes = list(nodes(arguments))
    found = _credential(name, path, method, all_nodes, today or date.today())
    if found:
        yield "creates a long-lived credential", found
    owners = {_base(h) for h in _hosts(path)} | {
        _base(h)
        for n in all_nodes
        for k, v in n.items
        if k in ("user_id", "user", "mailbox", "user_principal_name", "owner")
        and isinstance(v, str)
        for h in _hosts(v)
    }
    done: set[str] = set()
    for node in all_nodes:
        for title, why in (
            ("makes an administrator", _admin_made(name, path, method, node)),
            ("forwards mail outside", _forward(name, path, node, owners)),
            ("lets anyone in through an allow list", _wildcard(name, path, node)),
        ):
            if why and title not in done:
                done.add(title)
                yield title, why
