"""Business calls whose reach is a whole population rather than named records, read from a
tool's name words and its argument pairs (for ``business``), each high:

- consent granted for a whole tenant: an OAuth grant with ``consentType: AllPrincipals`` or an
  admin-consent flag, so an app reads every user's data without asking any of them;
- records changed by a selector instead of by name: an update, close, cancel, archive,
  reversal, enrol, assignment or delete whose records are chosen by a
  ``where``/``filter``/``query`` condition, or a flag that says all of them (``enrollAll``,
  ``applyToAll``, ``all: true``);
- devices wiped or accounts locked out by a group, a collection, a filter's condition or
  "all" rather than one by one.

Everyday counterparts run: one user's consent (``consentType: Principal``), a grant revoked,
an update of one record by its id or of a literal list of ids, a search with a query, one
lost device wiped by its id, a group's devices synchronised.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence

from .business_words import Finding, Pair, acts, everything

__all__ = ["group_lockout", "mass_change", "population_reach", "tenant_consent"]

_WITHDRAWS = frozenset({"delete", "remove", "revoke", "withdraw", "deny", "reject"})
_ADMIN_CONSENT = re.compile(r"^(?:grant_?)?admin_?consent(?:_?granted)?$|^tenant_?wide$")


def tenant_consent(words: set[str], pairs: Sequence[Pair]) -> Iterator[Finding]:
    """An app given consent on behalf of every user of the tenant."""
    if not acts(words) or words & _WITHDRAWS:
        return
    whole = any(
        (k == "consenttype" and isinstance(v, str) and v.strip().lower() == "allprincipals")
        or (_ADMIN_CONSENT.match(k) is not None and v is True)
        for k, v in pairs
    )
    if whole:
        yield (
            "grants an app consent for the whole tenant",
            "the app reads what its scopes allow for every user, none of whom is asked.",
            "Consent for one user, or let an administrator review the app and its scopes.",
        )


_CHANGES = frozenset(
    {"update", "modify", "edit", "patch", "set", "change", "close", "resolve", "enroll",
     "enrol", "assign", "apply", "transition", "mark", "upsert", "reassign", "move",
     "approve", "complete", "cancel", "cancellation", "cancellations", "archive", "void",
     "reverse", "reversal", "terminate", "solve", "expire", "perform"}
)  # fmt: skip
_DELETES = frozenset({"delete", "remove", "destroy", "purge", "erase"})
"""Deletes by a selector reach as far as changes do, when the tool names its records
(``delete_records`` with ``sysparm_query``); a document store's ``delete_many`` is
``docstore``'s."""
_SELECTOR_KEYS = frozenset(
    {"where", "filter", "filters", "filtergroups", "query", "criteria", "conditions",
     "condition", "selector", "soql", "jql", "encoded_query", "sysparm_query", "where_clause"}
)  # fmt: skip
_MANY = frozenset({"bulk", "batch", "many", "multiple", "mass", "all"})
_RECORDS = frozenset(
    {"record", "row", "item", "entry", "object", "contact", "deal", "opportunity",
     "opportunitie", "lead", "account", "customer", "user", "member", "ticket", "incident",
     "case", "issue", "task", "order", "invoice", "document", "subscriber", "employee",
     "patient", "student", "player", "asset", "device"}
)  # fmt: skip
"""What a change by a selector must name (a tool's words) to reach records: a filter nested in
a setting (an index's exclusion filter) selects nothing to change."""
_ALL_FLAGS = re.compile(
    r"^(?:enroll_?all|enrol_?all|apply_?to_?all|update_?all|select_?all|all|all_?records|"
    r"all_?items|all_?matching)$"
)
_CONDITION = re.compile(
    r"[=<>^~]|\b(?:AND|OR|IN|LIKE|IS|NOT)\b|:\S|\s(?:eq|ne|gt|ge|lt|le)\s", re.IGNORECASE
)
_CODE_QUERY = re.compile(r"(?i)^\s*(?:mutation\b|query\b|subscription\b|\{|select\b|\w+\s*\()")
"""A ``query`` argument that is a GraphQL document, an SQL statement or a call (read by their
own checks), not a condition."""
_ONE = re.compile(
    r"(?i)^\s*(?:where\s+)?\(?\s*['\"]?\w{0,30}(?:id|number|key|email|name)['\"]?\s*"
    r"(?:=|==|:)\s*['\"]?:?[\w@.+-]{1,80}['\"]?\s*\)?\s*$"
)
_ID_LIST = re.compile(
    r"(?i)^\s*(?:where\s+)?\w{0,30}(?:id|number|key)\s+in\s*\(\s*['\"]?[\w-]{1,64}['\"]?"
    r"(?:\s*,\s*['\"]?[\w-]{1,64}['\"]?){0,199}\s*\)\s*$"
)
_ONE_KEY = re.compile(r"^(?:_?id|\w+_id|\w+id|key|number|email|name)$")


def _selects(value: object) -> bool:
    """A selector that chooses records by a condition (not one or a list of named ids)."""
    if isinstance(value, str):
        text = value[:400]
        if not text.strip() or _CODE_QUERY.match(text):
            return False
        if _ONE.match(text) or _ID_LIST.match(text):
            return False
        return _CONDITION.search(text) is not None
    if isinstance(value, dict):
        keys = [str(k).lower() for k in list(value)[:8]]
        if not keys:
            return False
        return not (len(keys) == 1 and _ONE_KEY.match(keys[0]))
    if isinstance(value, list):
        return bool(value)
    return False


_CAP_KEYS = re.compile(r"^(?:max_?records|max_?count|limit|max_?rows)$")
"""Keys an API applies as a bound. An ``expected_count`` is a statement, not a bound: the
change still reaches every record the selector matches."""
_CAP = 50


def _capped(pairs: Sequence[Pair]) -> bool:
    """A bulk change the call bounds to a small count (``limit=37``)."""
    return any(
        _CAP_KEYS.match(k) and isinstance(v, int) and not isinstance(v, bool) and 0 < v <= _CAP
        for k, v in pairs
    )


def mass_change(words: set[str], pairs: Sequence[Pair]) -> Iterator[Finding]:
    """Records changed by whatever a condition selects, or all of them by a flag."""
    records = {w.rstrip("s") for w in words} & _RECORDS
    if not acts(words) or not (words & _CHANGES or (words & _DELETES and records)):
        return
    flag = next((k for k, v in pairs if _ALL_FLAGS.match(k) and v is True), None)
    many = words & _MANY or {w.rstrip("s") for w in words} & _RECORDS
    selector = flag or next(
        (k for k, v in pairs if many and k in _SELECTOR_KEYS and _selects(v)),
        None,
    )
    if selector is None or _capped(pairs):
        return
    yield (
        "changes every record a selector matches",
        f"`{selector[:40]}` chooses the records, not their ids: the change reaches however "
        "many match, now and at once.",
        "Name the records by id, or let a person confirm the bulk change.",
    )


_LOCKOUTS = frozenset(
    {"wipe", "retire", "erase", "lock", "lockout", "suspend", "disable", "block",
     "deactivate", "factoryreset", "reset", "signout", "brick"}
)  # fmt: skip
_TARGETS = frozenset(
    {"device", "devices", "account", "accounts", "user", "users", "mailbox", "mailboxes",
     "endpoint", "endpoints", "machine", "machines", "laptop", "laptops", "phone", "phones",
     "member", "members", "employee", "employees"}
)  # fmt: skip
_GROUP_KEYS = re.compile(
    r"^(?:\w*_)?(?:group|groups|collection|ou|org_?unit|department|fleet)"
    r"(?:_?(?:id|ids|name|names|path))?$|^\w*(?:group|collection)(?:id|ids|name)$"
)


def group_lockout(words: set[str], pairs: Sequence[Pair]) -> Iterator[Finding]:
    """Devices wiped or accounts locked out by a group, a collection or all at once."""
    if not acts(words) or not words & _LOCKOUTS or not words & _TARGETS:
        return
    group = next(
        (k for k, v in pairs if _GROUP_KEYS.match(k) and v not in ("", None, [], {})), None
    ) or next((k for k, v in pairs if k in _SELECTOR_KEYS and _selects(v)), None)
    if group is None and everything(pairs):
        group = "all"
    if group is None:
        return
    verb = sorted(words & _LOCKOUTS)[0]
    yield (
        f"{verb}s every device or account of a group",
        f"`{group[:40]}` selects them: every member is hit at once, however many it holds.",
        "Act on named devices or accounts, or let a person confirm the group action.",
    )


def population_reach(words: set[str], pairs: Sequence[Pair]) -> Iterator[Finding]:
    """Every reading above."""
    yield from tenant_consent(words, pairs)
    yield from mass_change(words, pairs)
    yield from group_lockout(words, pairs)
