"""What business tools of any name do (``stripe_create_coupon``, ``gdrive_share_file``,
``okta_update_policy``): read from the words of the tool's name and its arguments, for the
tools no kind covers. Each reading is one small function of the name's words and the
argument pairs; all yield high findings (a person confirms).

- money: a payment, payout, refund, credit, gift card, coupon or price set, with an amount;
  a payee's bank details changed;
- exposure: a file, page, dashboard or repository made public or shared by an anonymous link,
  or shared with a personal mailbox;
- sign-in: multi-factor, SSO or password policies turned off or weakened; a user's factors or
  password reset; administrator rights granted;
- people and places deleted (users, customers, channels…), and bulk or hard deletes;
- whole datasets exported, and messages sent to a whole audience;
- monitoring muted or paused everywhere, audit trails stopped;
- security controls switched off (``business_guards``): branch protection deleted, a port
  opened to the whole internet, secret scanning, encryption or a firewall turned off.

Reads (``get``, ``list``, ``search``…) get no finding, whatever their nouns.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from typing import Any

from .business_access import sign_in
from .business_guards import guards_off
from .business_words import DELETE_VERBS, Finding, Pair, acts
from .egress_mail import ADDRESS

__all__ = ["PERSONAL_MAIL", "Pair", "business_consequences"]

_MONEY_NOUNS = frozenset(
    {
        "refund", "refunds", "payout", "payouts", "payment", "payments", "transfer",
        "transfers", "wire", "money", "credit", "credits", "coupon", "coupons", "discount",
        "discounts", "giftcard", "gift", "price", "prices", "pricing", "payroll", "charge",
        "charges", "withdraw", "withdrawal", "disbursement", "remittance", "plan", "balance",
        "bonus", "reimbursement", "payment_intent",
    }
)  # fmt: skip
_MONEY_KEYS = re.compile(
    r"^(?:amount\w*|\w*_amount|total\w*|value|unit_amount\w*|price\w*|\w*_price|balance|"
    r"percent_off|amount_off|initial_value|credit\w*|sum|net_pay)$"
)
_AMOUNT = re.compile(r"^amount\w*$")
"""What a tool that only says "send" moves money with (``send(amount=…)``)."""
_BANK_KEYS = re.compile(r"bank_?account|routing|iban|swift|bic$|account_?number|sort_?code")
_NUMBER = re.compile(r"^-?\d[\d,]*(?:\.\d+)?$")
_PUBLIC_VALUES = frozenset(
    {
        "public", "public-read", "public-read-write", "publicread", "anyone", "anyonewithlink",
        "anyone_with_link", "anonymous", "everyone", "world", "internet", "unlisted", "open",
    }
)  # fmt: skip
_PUBLIC_KEYS = frozenset(
    {"acl", "access", "visibility", "scope", "type", "audience", "link_type", "link_scope",
     "permission", "sharing", "share_type", "access_level", "public_access"}
)  # fmt: skip
_PUBLIC_FLAGS = frozenset({"public", "is_public", "publicly_accessible", "allowfilediscovery"})
_PRIVATE_FLAGS = frozenset({"private", "is_private", "requiresignin", "require_sign_in"})
_SHARED_THINGS = frozenset(
    {
        "share", "sharing", "link", "permission", "permissions", "visibility", "repository",
        "repo", "gist", "dashboard", "view", "page", "space", "bucket", "object", "file",
        "folder", "document", "doc", "site", "report", "board", "publish", "access", "item",
        "drive", "container", "blob", "notebook", "sheet", "spreadsheet", "workbook",
    }
)  # fmt: skip
_CONVERSATION = frozenset({"comment", "reply", "ticket", "message", "channel", "conversation"})
_SHARE_VERBS = frozenset({"share", "sharing", "permission", "permissions"})
"""Words of sharing a thing (an invitation of a person to an app is everyday)."""
PERSONAL_MAIL = re.compile(
    r"@(?:gmail|googlemail|outlook|hotmail|live|msn|yahoo|ymail|aol|icloud|me|mac|proton|"
    r"protonmail|pm|gmx|web|mail|yandex|zoho|tutanota|tuta|fastmail|hey|qq|163|126|naver|"
    r"libero|seznam|wp|orange|free|laposte)\.[a-z.]{2,10}$"
)
"""Addresses at free personal mailboxes: data shared there leaves the company's control."""
_PEOPLE_PLACES = frozenset(
    {
        "user", "users", "account", "accounts", "customer", "customers", "channel", "channels",
        "conversation", "conversations", "workspace", "org", "organization", "team", "tenant",
        "site", "space", "mailbox", "group", "project", "vault", "backup", "backups",
        "subscription", "subscriptions", "employee", "employees", "domain", "app", "course",
        "courses", "classroom", "gradebook", "enrollment", "enrollments",
    }
)  # fmt: skip
_MANY = frozenset({"bulk", "batch", "all", "mass"})
"""Words of a delete of many records at once (``delete_many`` with a filter is everyday)."""
_EVERYTHING = frozenset({"all", "*", "everything", "everyone", "all_users", "all_contacts"})
_EXPORTS = frozenset({"export", "exports", "dump", "extract", "backup"})
_DATA = frozenset(
    {"contact", "contacts", "customer", "customers", "user", "users", "lead", "leads",
     "patient", "patients", "employee", "employees", "member", "members", "subscriber",
     "subscribers", "account", "accounts", "people", "person", "crm", "data"}
)  # fmt: skip
_WHAT_KEYS = frozenset(
    {"object", "objecttype", "object_type", "type", "resource", "report", "entity", "dataset",
     "table", "collection", "list"}
)  # fmt: skip
"""Arguments that say what a generic export exports (``objectType="contacts"``)."""
_URL_SCHEME = re.compile(r"^[a-z][a-z0-9+.-]{1,15}://", re.IGNORECASE)
"""A destination given as an address (``https://``, ``s3://``, ``sftp://``): it leaves."""
_SENSITIVE_FIELD = re.compile(
    r"(?i)^(?:ssn|social_?security\w*|date_?of_?birth|dob|birth_?date|passport\w*|"
    r"national_?id|tax_?id|bank_?\w*|iban|routing\w*|salary|diagnos\w*|medical\w*|"
    r"password\w*|card_?number)$"
)
"""Fields of a person's record that an export should not carry in bulk."""
_AUDIENCE = frozenset(
    {"bulk", "broadcast", "blast", "campaign", "campaigns", "marketing", "mass", "newsletter"}
)
_SENDS = frozenset(
    {"send", "message", "messages", "email", "emails", "sms", "notification", "notify", "push"}
)
_AUDIENCE_KEYS = re.compile(r"segment\w*|audience\w*|list\w*|recipients?|to_list|to")
_WHOLE_LIST = re.compile(
    r"(?i)(?:^|[\s:_\W])all[_-]?(?:contacts|users|customers|subscribers|members|leads|"
    r"recipients)\b|^list:"
)
"""A recipient that is a whole list (``list:all_contacts_48213``, ``segment all_users``);
addresses and mentions (``all-customers@…``, ``@all``) are the ``data-egress`` check's."""
_AUDIT = frozenset(
    {"cloudtrail", "audit", "auditlog", "auditlogs", "audit_log", "trail", "trails", "flowlogs",
     "guardduty", "securityhub", "defender", "sentinel"}
)  # fmt: skip
_STOPS = frozenset({"stop", "disable", "delete", "deactivate", "pause", "suspend", "remove"})
_LIVE = re.compile(r"(?i)(?:^|[-_.\s])(?:prod|production|prd|live)(?:$|[-_.\s\d])")
_ALWAYS = re.compile(
    r"(?i)^\s*\(?\s*(?:1\s*=\s*1|0\s*=\s*0|1\s*>\s*0|true|1|'(\w*)'\s*=\s*'\1'|\*)\s*\)?\s*$"
)
"""A filter that keeps every record (``where="1=1"``): a delete with it deletes them all."""
_NAMED_BY = re.compile(r"^(?:\w*id|\w*_?name|target|resource|environment|env|stage|slug)$")
"""Arguments that name what a tool deletes (``deploymentId="starfall-live"``)."""
_MUTES = frozenset(
    {"mute", "silence", "snooze", "maintenance", "pause", "suppress", "disable", "downtime"}
)
_MONITORS = frozenset(
    {"monitor", "monitors", "alert", "alerts", "alerting", "service", "services", "pagerduty",
     "datadog", "opsgenie", "logging", "audit", "trail", "logs", "window", "incident"}
)  # fmt: skip


def _number(value: Any) -> float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, str) and _NUMBER.match(value.strip()):
        return float(value.strip().replace(",", ""))
    return None


def money(words: set[str], pairs: Sequence[Pair]) -> Iterator[Finding]:
    """Money paid, credited or priced by a tool that acts, and a payee's bank details set."""
    if not acts(words):
        return
    named = words & _MONEY_NOUNS or words & {"pay", "send", "tip"}
    if named:
        keys = _MONEY_KEYS if words & _MONEY_NOUNS or "pay" in words else _AMOUNT
        if any(_number(v) is not None for k, v in pairs if keys.match(k)):
            yield (
                "moves money or sets a price",
                "a payment, payout, refund, credit, discount or price change takes effect at "
                "once and the agent cannot take it back.",
                "Let a person confirm payments, credits and price changes.",
            )
            return
    if any(_BANK_KEYS.search(k) and isinstance(v, str | int) and v != "" for k, v in pairs):
        yield (
            "changes where money is paid",
            "bank details of a payee are set: later payments go to that account (a common "
            "fraud asks for exactly this by e-mail).",
            "Confirm the change with the payee by a known channel first.",
        )


def _anyone(principal: Any) -> bool:
    """A policy statement's principal that is everyone (``"*"``, ``{"AWS": "*"}``)."""
    if isinstance(principal, dict):
        return any(_anyone(v) for v in list(principal.values())[:8])
    if isinstance(principal, list):
        return any(_anyone(v) for v in principal[:8])
    return isinstance(principal, str) and principal == "*"


def exposure(words: set[str], pairs: Sequence[Pair]) -> Iterator[Finding]:
    """Something made public or reachable by anyone with a link, or shared with a personal
    mailbox."""
    if not acts(words):
        return
    things = words & _SHARED_THINGS and not words & _CONVERSATION
    public = any(
        (k in _PUBLIC_FLAGS and v is True and things)
        or (k in _PRIVATE_FLAGS and v is False and things)
        or (k in _PUBLIC_KEYS and isinstance(v, str) and v.strip().lower() in _PUBLIC_VALUES)
        or (k == "anonymous" and (v is True or (isinstance(v, dict) and True in v.values())))
        or (k == "public_access" and isinstance(v, dict) and v.get("enabled") is True)
        or (k == "principal" and _anyone(v) and things and ("effect", "Deny") not in pairs)
        for k, v in pairs
    )
    if public:
        yield (
            "makes data public",
            "what it shares becomes readable by anyone with the link or on the internet.",
            "Share with named people, or let a person confirm publishing.",
        )
        return
    if words & _SHARE_VERBS:
        personal = [
            a
            for _, v in pairs
            if isinstance(v, str) and len(v) < 400
            for a in ADDRESS.findall(v)
            if PERSONAL_MAIL.search(a.lower())
        ]
        if personal:
            yield (
                "shares with a personal mailbox",
                f"{personal[0][:80]} is a personal address: what is shared leaves the "
                "company's control.",
                "Share with work addresses, or let a person confirm.",
            )


def deletes(words: set[str], pairs: Sequence[Pair]) -> Iterator[Finding]:
    """People and places deleted, bulk and hard deletes (a delete of every document of a
    collection is the ``tool-sql`` check's: ``docstore``)."""
    if not (words & DELETE_VERBS or ("archive" in words and words & _MANY)):
        return
    live = any(
        _NAMED_BY.match(k) and isinstance(v, str) and len(v) < 200 and _LIVE.search(v)
        for k, v in pairs
    )
    every = any(
        k in ("where", "filter", "condition", "where_clause")
        and isinstance(v, str)
        and _ALWAYS.match(v[:80]) is not None
        for k, v in pairs
    )
    if (
        words & _PEOPLE_PLACES
        or words & _MANY
        or live
        or every
        or any(k in ("hard_delete", "permanent", "purge") and v is True for k, v in pairs)
    ):
        yield (
            "deletes accounts, records or places" + (" in production" if live else ""),
            "a user, customer, channel, many records or a production service go with their "
            "history; the agent cannot bring them back.",
            "Let a person confirm the delete.",
        )


def _everything(pairs: Sequence[Pair], keys: re.Pattern[str] | None = None) -> bool:
    return any(
        (
            isinstance(v, str)
            and v.strip().lower() in _EVERYTHING
            and (keys is None or keys.fullmatch(k) is not None)
        )
        or (
            isinstance(v, list)
            and any(isinstance(i, str) and i.strip().lower() in _EVERYTHING for i in v[:50])
        )
        for k, v in pairs
    )


def bulk_out(words: set[str], pairs: Sequence[Pair]) -> Iterator[Finding]:
    """A whole dataset exported, a message sent to a whole audience, monitoring muted
    everywhere."""
    sensitive = any(
        isinstance(v, str) and _SENSITIVE_FIELD.search(v[:80]) for k, v in pairs if k == "fields"
    ) or any(isinstance(v, str) and _SENSITIVE_FIELD.search(v[:80]) for k, v in pairs if not k)
    named = any(
        k in _WHAT_KEYS and isinstance(v, str) and set(re.split(r"[^a-z]+", v[:80].lower())) & _DATA
        for k, v in pairs
    )
    if words & _EXPORTS and (words & _DATA or sensitive or named):
        outside = any(
            isinstance(v, str)
            and (_URL_SCHEME.match(v) is not None or PERSONAL_MAIL.search(v.lower()))
            for k, v in pairs
            if k
        )
        if outside or sensitive or _everything(pairs):
            yield (
                "exports a whole dataset",
                "every record (or one sent outside) leaves the system it is kept in.",
                "Export only what the task needs, to a place the company controls.",
            )
            return
    if (
        acts(words)
        and words & _SENDS
        and (
            words & _AUDIENCE
            or _everything(pairs, _AUDIENCE_KEYS)
            or any(
                isinstance(v, str) and "@" not in v and _WHOLE_LIST.search(v[:400])
                for _, v in pairs
            )
            or any(k.startswith("ignore_unsub") and v is True for k, v in pairs)
        )
    ):
        yield (
            "messages a whole audience",
            "one call reaches every customer or user of a list; a wrong or hostile "
            "message cannot be recalled.",
            "Let a person confirm mass sends.",
        )
        return
    if acts(words) and words & _AUDIT and words & _STOPS:
        yield (
            "stops audit logging",
            "what anyone does from now on goes unrecorded: an attacker's first step.",
            "Let a security administrator change audit logging.",
        )
        return
    if words & _MUTES and words & _MONITORS and (_everything(pairs) or "all" in words):
        yield (
            "mutes monitoring everywhere",
            "alerts of every service stop: an incident or an attack then goes unnoticed.",
            "Mute one monitor for a short, stated time.",
        )


def business_consequences(words: set[str], pairs: Sequence[Pair]) -> Iterator[Finding]:
    """Every consequence above: its title, why it matters and what to do (each high)."""
    yield from money(words, pairs)
    yield from exposure(words, pairs)
    yield from sign_in(words, pairs)
    yield from guards_off(words, pairs)
    yield from bulk_out(words, pairs)
    yield from deletes(words, pairs)
