"""Safeguards a business call takes away quietly, by one flag or one field (for
``business``), each high (a person confirms):

- a secret kept as plain text: a variable named for a password, token or key with its secret
  flag set false (``{"DB_PASSWORD": {"value": "…", "isSecret": false}}``), so pipelines and
  pages show it;
- auditing or logging switched off by a negative flag (``AuditDisabled=true``,
  ``disable_audit_log=true``);
- an internal note posted as a public reply: a ticket comment with ``public: true`` whose
  text says it is internal (a fraud review, an investigation, "do not refund");
- access given to anyone: a grant or access list whose principal is everyone (``User:*``,
  ``*``, ``anonymous``, ``allUsers``) and that allows, or a profile given every record
  (``viewAllRecords=true``, ``modifyAllData=true``);
- people put back on a mailing list in bulk: members set ``subscribed`` with the existing
  records overwritten (``update_existing=true``), which undoes their unsubscribing;
- money owed settled without money: an invoice marked paid out of band, a receivable written
  off.

Pure functions of the name's words and the argument pairs; every text read is bounded.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from typing import Any

from .business_words import Finding, Pair, acts

__all__ = ["quiet_changes"]

_SECRET_NAME = re.compile(
    r"(?i)pass(?:word|wd|phrase)?(?:$|[\W_])|secret|token|api[\W_]?key|private[\W_]?key|"
    r"credential|(?:^|[\W_])pwd(?:$|[\W_])"
)
_SECRET_FLAGS = frozenset(
    {"issecret", "is_secret", "secret", "masked", "sensitive", "secure", "encrypted", "hidden"}
)
_NAME_KEYS = frozenset({"name", "key", "variable", "variable_name"})
_OFF_FLAG = re.compile(
    r"^(?:is_?)?(?:audit\w{0,12}|logging|log_?collection|monitoring|alerting|tracing|"
    r"mailbox_?audit\w{0,8})_?disabled$|^disable_?(?:audit\w{0,12}|logging|monitoring|"
    r"alerting)$"
)
"""A negative flag over auditing or logging (``AuditDisabled``, ``disable_audit_log``)."""
_INTERNAL = re.compile(
    r"(?i)^\W{0,4}(?:internal|fraud|siu|investigation|agent[- ]only|staff[- ]only|private note)"
    r"\b|\b(?:do not|don't|dont) (?:refund|tell|share with|disclose|inform)\b|"
    r"\binternal (?:only|use only|note)\b"
)
"""Text that says it is for staff: it starts as an internal or fraud note, or tells staff not
to refund or tell the customer."""
_BODY_KEYS = frozenset({"body", "html_body", "text", "content", "message", "note", "comment"})
_ANYONE = frozenset(
    {"*", "user:*", "group:*", "allusers", "allauthenticatedusers", "anonymous", "everyone",
     "anyone", "public", "guest", "guests", "all"}
)  # fmt: skip
_PRINCIPAL_KEYS = frozenset(
    {"principal", "principals", "grantee", "subject", "identifier", "member", "members",
     "who", "identity", "user", "users"}
)  # fmt: skip
_GRANT_WORDS = frozenset(
    {"acl", "acls", "grant", "grants", "permission", "permissions", "policy", "access",
     "role", "roles", "binding", "bindings", "share", "sharing"}
)  # fmt: skip
_ALL_RECORDS = re.compile(
    r"^(?:view|modify|read|edit|manage)_?all_?(?:records|data|users|objects)?$"
)
_SUBSCRIBED = frozenset({"subscribed", "active", "opted_in", "opt_in"})
_OVERWRITE = frozenset({"update_existing", "updateexisting", "upsert", "overwrite"})
_LIST_WORDS = frozenset(
    {"list", "lists", "members", "member", "subscribers", "subscriber", "audience",
     "contacts", "subscribe"}
)  # fmt: skip
_WRITE_OFF = re.compile(r"(?i)write[\W_]?offs?|writeoffs?|(?:^|[\W_])forgive")
_FUNCTION_KEYS = frozenset({"function", "function_name", "bapi", "program", "transaction"})


def _secret_plain(pairs: Sequence[Pair]) -> str | None:
    """A secret-named variable whose secret flag is set false: its name."""
    for key, value in pairs:
        if not isinstance(value, dict):
            continue
        inner = {str(k).lower(): v for k, v in list(value.items())[:20]}
        if not any(k in _SECRET_FLAGS and v is False for k, v in inner.items()):
            continue
        name = key if key else ""
        named = next((v for k, v in inner.items() if k in _NAME_KEYS and isinstance(v, str)), "")
        label = named or name
        if label and len(label) < 120 and _SECRET_NAME.search(label):
            given = inner.get("value")
            if given is None or (isinstance(given, str) and given.strip()):
                return label
    return None


def _internal_public(pairs: Sequence[Pair]) -> bool:
    """A comment with ``public: true`` whose text says it is internal."""
    for _, value in pairs:
        if not isinstance(value, dict) or value.get("public") is not True:
            continue
        for k, text in list(value.items())[:20]:
            if (
                str(k).lower() in _BODY_KEYS
                and isinstance(text, str)
                and _INTERNAL.search(text[:2000])
            ):
                return True
    return False


def _anyone_granted(words: set[str], pairs: Sequence[Pair]) -> bool:
    """A grant whose principal is everyone, in a call about access that does not deny."""
    if not (words & _GRANT_WORDS or any(k in ("permission", "operation") for k, _ in pairs)):
        return False
    if any(
        isinstance(v, str) and v.strip().lower() == "deny"
        for k, v in pairs
        if k in ("effect", "permission", "permission_type", "permissiontype", "access")
    ):
        return False
    return any(
        k in _PRINCIPAL_KEYS and isinstance(v, str) and v.strip().lower() in _ANYONE
        for k, v in pairs
    )


def _resubscribed(pairs: Sequence[Pair]) -> bool:
    """Two or more members set subscribed with existing records overwritten."""
    if not any(k in _OVERWRITE and v is True for k, v in pairs):
        return False
    subscribed = sum(
        1 for k, v in pairs if k == "status" and isinstance(v, str) and v.lower() in _SUBSCRIBED
    )
    return subscribed >= 2


def _settled_without_money(words: set[str], pairs: Sequence[Pair]) -> bool:
    """An invoice marked paid out of band, or receivables written off."""
    if any(k in ("paid_out_of_band", "paidoutofband") and v is True for k, v in pairs):
        return True
    texts: list[Any] = [" ".join(sorted(words))]
    texts += [v for k, v in pairs if k in _FUNCTION_KEYS and isinstance(v, str)]
    return any(isinstance(t, str) and _WRITE_OFF.search(t[:200]) for t in texts)


def quiet_changes(words: set[str], pairs: Sequence[Pair]) -> Iterator[Finding]:
    """Each safeguard above taken away (one finding each)."""
    if _resubscribed(pairs):  # a mailing list's tool reads as ``list``, yet this writes
        yield (
            "puts people back on a mailing list",
            "members are set subscribed over their existing records: anyone who unsubscribed "
            "is mailed again, against their choice and the law on consent.",
            "Add new members as pending (double opt-in) without updating existing ones.",
        )
    if not acts(words):
        return
    secret = _secret_plain(pairs)
    if secret is not None:
        yield (
            "stores a secret as plain text",
            f"`{secret[:60]}` is marked not secret: pipelines, logs and pages show its value "
            "to everyone who can see them.",
            "Keep the variable secret, or let its owner decide.",
        )
    flag = next((k for k, v in pairs if v is True and _OFF_FLAG.match(k)), None)
    if flag is not None:
        yield (
            "switches auditing or logging off",
            f"`{flag}` stops recording what people do: an attacker's first step.",
            "Let a security administrator change auditing.",
        )
    if _internal_public(pairs):
        yield (
            "posts an internal note as a public reply",
            "the comment is public, so the requester sees text written for staff (fraud "
            "reviews, investigations, other customers' details).",
            "Post it as an internal note, or let a person confirm.",
        )
    if _anyone_granted(words, pairs):
        yield (
            "grants access to anyone",
            "the grant's principal is everyone or anonymous: any user, or anyone on the "
            "internet, gets the access.",
            "Grant named principals, or let a person confirm.",
        )
    elif any(_ALL_RECORDS.match(k) and v is True for k, v in pairs):
        yield (
            "grants access to every record",
            "the profile or role can now read or change all records, whoever owns them.",
            "Grant access to the records needed, or let an administrator confirm.",
        )
    if _settled_without_money(words, pairs):
        yield (
            "settles money owed without payment",
            "an invoice marked paid out of band or receivables written off: the money is no "
            "longer collected.",
            "Let finance confirm.",
        )
