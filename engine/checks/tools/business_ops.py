"""What business tools do to the company's own safety nets, read from the tool's name words and
its argument pairs (for ``business``), each high:

- watching stopped (``business_watch``): audit trails, monitors and paging stopped, deleted,
  switched off or muted for long, audit logs excluded from collection;
- privacy scrubbing switched off (``scrub_data=false``, ``sensitive_fields=[]``);
- a password or passcode removed (set to nothing) from what it protects;
- an action over every record a filter, query or segment selects — banning, refunding,
  granting, or deleting people's and business records — rather than over named records;
- a credential minted for an administrator (a root token, an admin's access key);
- clinical records deleted (FHIR resources: allergies, conditions, medications…).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence

from .business_watch import watching_stopped
from .business_words import DELETE_VERBS, Finding, Pair, acts, everything

__all__ = ["root_bound", "safety_nets"]

_SCRUB_KEYS = re.compile(
    r"(?i)(?:^|[:_.])(?:scrub\w*|redact\w*|mask\w*|anonymi[sz]\w*|pii\w*|data_?scrubber\w*|"
    r"sensitive_?fields)$"
)
_SECRET_KEYS = frozenset({"password", "passcode", "passphrase", "pin", "branch_password"})
_SETS = frozenset({"set", "update", "modify", "edit", "change", "patch", "put", "configure"})
_BULK_VERBS = frozenset(
    {"ban", "kick", "refund", "grant", "credit", "suspend", "deactivate", "revoke", "reset"}
)  # fmt: skip
"""Verbs that act on people or money whatever records they reach."""
_BULK_REMOVALS = frozenset({"delete", "remove", "purge", "archive", "cancel", "close", "erase"})
_RECORD_NOUNS = frozenset(
    {"players", "player", "users", "customers", "accounts", "members", "tickets", "records",
     "contacts", "patients", "employees", "subscribers", "orders", "transactions", "leads",
     "people", "students", "invoices", "cases", "incidents", "reviews", "ratings", "comments",
     "posts", "messages", "feedback", "responses", "submissions"}
)  # fmt: skip
"""What a removal over a filter must name to matter (a delete of expired sessions is
housekeeping; a delete of every player a segment selects is not)."""
_ONE_WHERE = re.compile(r"(?i)^\s*\w{0,30}id\s*=\s*['\"]?[\w-]{1,64}['\"]?\s*$")
_SELECTORS = frozenset(
    {"filter", "query", "segment", "segmentid", "segment_id", "where", "criteria", "search",
     "selector", "conditions", "date_from", "since", "before", "after", "older_than",
     "inactive_days", "joined_after"}
)  # fmt: skip
_ONE_RECORD = re.compile(r"^(?:id|_id|\w+_id|\w+id|key|name|email|number)$")
_MINTS = frozenset({"create", "generate", "mint", "issue", "new"})
_CREDENTIALS = frozenset({"token", "tokens", "key", "keys", "accesskey", "credential", "secret"})
_POWERFUL = re.compile(
    r"(?i)(?:^|[\W_])(?:root|admin\w*|break[\W_]?glass|superuser|owner)(?:$|[\W_])"
)
_CLINICAL = frozenset(
    {"allergyintolerance", "condition", "medicationrequest", "medicationstatement",
     "observation", "diagnosticreport", "procedure", "immunization", "encounter", "patient",
     "careplan", "documentreference", "medicationadministration"}
)  # fmt: skip


def privacy_off(words: set[str], pairs: Sequence[Pair]) -> Iterator[Finding]:
    """Privacy scrubbing switched off, or a password removed from what it protects."""
    scrub = next(
        (k for k, v in pairs if _SCRUB_KEYS.search(k) and (v is False or v == [] or v == "")), None
    )
    if scrub is not None:
        yield (
            "switches privacy scrubbing off",
            f"`{scrub[:60]}` removed personal data before it was stored; now it is kept.",
            "Keep scrubbing on; let the privacy owner change it.",
        )
        return
    if words & _SETS or words & _SECRET_KEYS or "password" in words:
        removed = next((k for k, v in pairs if k in _SECRET_KEYS and v in ("", None)), None)
        if removed is not None:
            yield (
                "removes a password",
                f"`{removed}` is set to nothing: what it protected opens to anyone who finds it.",
                "Keep the password; share access with named people instead.",
            )


def _selected(pairs: Sequence[Pair]) -> str | None:
    """The selector an action runs over (a filter, query or segment), unless a single record
    is named as well."""
    selector = next((k for k, v in pairs if k in _SELECTORS and v not in ("", None, {}, [])), None)
    if selector is None:
        return None
    value = dict(pairs[:200]).get(selector)
    keys = list(value)[:2] if isinstance(value, dict) else []
    if len(keys) == 1 and _ONE_RECORD.match(str(keys[0]).lower()):
        return None  # ``filter={"_id": …}``: one record
    if isinstance(value, str) and _ONE_WHERE.match(value[:200]):
        return None  # ``where="OBJECTID = 8812"``
    return selector


_CLOSED = frozenset(
    {"closed", "solved", "resolved", "cancelled", "canceled", "archived", "spam", "deleted"}
)
_QUERY = re.compile(r"[:<>=*]|\b(?:AND|OR)\b")
"""A text that selects records by a search, not by naming them (``tags:fraud status<solved``)."""


def _closes(pairs: Sequence[Pair]) -> bool:
    return any(
        k in ("status", "state") and isinstance(v, str) and v.strip().lower() in _CLOSED
        for k, v in pairs
    )


def _searched_ids(pairs: Sequence[Pair]) -> str | None:
    """Ids given as a search (``ids="search:tags:fraud"``) rather than named one by one."""
    return next(
        (
            "search"
            for k, v in pairs
            if k in ("ids", "id", "records", "items")
            and isinstance(v, str)
            and _QUERY.search(v[:400])
        ),
        None,
    )


def over_many(words: set[str], pairs: Sequence[Pair]) -> Iterator[Finding]:
    """A delete, ban, refund or grant over every record a filter, query or segment selects."""
    named = (
        v.lower() for k, v in pairs if k in ("action", "operation", "op") and isinstance(v, str)
    )
    stems = {w[:-1] if w.endswith("s") else w for w in words}  # ``/bans/bulk``: bans
    verbs = stems & _BULK_VERBS | {b for v in named for b in _BULK_VERBS if v.startswith(b)}
    if words & _BULK_REMOVALS and words & _RECORD_NOUNS:
        verbs |= words & _BULK_REMOVALS
    searched = _searched_ids(pairs)
    bulk = words & _RECORD_NOUNS and words & {"many", "bulk", "batch"}
    if bulk and searched is not None and _closes(pairs):
        verbs.add("close")  # ``update_many(ids="search:…", status="solved")``
    if not verbs:
        return
    selector = _selected(pairs) or searched
    if selector is None and (everything(pairs) or words & {"bulk", "mass"}):
        selector = "bulk request"
    if selector is not None:
        yield (
            f"{sorted(verbs)[0]}s every record a {selector} selects",
            "the action reaches however many records match, now and at once; the agent cannot "
            "take it back.",
            "Name the records one by one, or let a person confirm the bulk action.",
        )


_POLICY_KEYS = re.compile(r"^(?:\w*_)?polic(?:y|ies)(?:_names?)?$")


def _names_root(value: object) -> bool:
    """A policy list (a list, or a comma-separated text) that names ``root``."""
    items = value[:50] if isinstance(value, list) else [value]
    return any(
        isinstance(i, str) and "root" in (p.strip().lower() for p in i[:400].split(","))
        for i in items
    )


def root_bound(pairs: Sequence[Pair]) -> Iterator[Finding]:
    """A login or token bound to the root policy (``token_policies="root"``), whatever the
    tool's name (``mcp__vault__write`` is read as a file write)."""
    root = next((k for k, v in pairs if _POLICY_KEYS.match(k) and _names_root(v)), None)
    if root is not None:
        yield (
            "binds a login or token to the root policy",
            f"`{root[:40]}` names `root`: whoever signs in with it can do everything, "
            "including covering their tracks.",
            "Bind logins to the narrow policies their work needs.",
        )


def credentials_minted(words: set[str], pairs: Sequence[Pair]) -> Iterator[Finding]:
    """A token or access key created for an administrator, a root policy or a break-glass
    account."""
    root = list(root_bound(pairs))
    if root:
        yield root[0]
        return
    if not (words & _MINTS and words & _CREDENTIALS):
        return
    subject = next(
        (v for k, v in pairs if isinstance(v, str) and len(v) < 120 and _POWERFUL.search(v)), None
    )
    if subject is not None:
        yield (
            "mints a credential with administrator rights",
            f"a new token or key for `{subject[:60]}` works until someone finds and revokes it.",
            "Let an administrator issue administrator credentials.",
        )


def clinical_deleted(words: set[str], pairs: Sequence[Pair]) -> Iterator[Finding]:
    """A clinical record deleted (a FHIR resource of a patient's care)."""
    if not words & DELETE_VERBS:
        return
    kind = next(
        (
            v
            for k, v in pairs
            if k in ("resourcetype", "resource_type", "type")
            and isinstance(v, str)
            and v.lower() in _CLINICAL
        ),
        None,
    )
    if kind is not None:
        yield (
            "deletes a clinical record",
            f"a {kind} is part of a patient's record; care decisions rely on it.",
            "Correct clinical records through the clinical workflow, never by deleting them.",
        )


def safety_nets(words: set[str], pairs: Sequence[Pair]) -> Iterator[Finding]:
    """Every finding above."""
    if not acts(words):
        return
    for reader in (watching_stopped, privacy_off, over_many, credentials_minted, clinical_deleted):
        found = list(reader(words, pairs))
        if found:
            yield found[0]
            return
