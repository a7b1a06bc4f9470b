"""Whole datasets exported, whole audiences messaged, monitoring muted and audit trails
stopped, read from a business tool's name and arguments for ``business``: an export of every
record, of people's records named by an argument (``objectType="contacts"``), of sensitive
fields (``ssn``, ``date_of_birth``) or to any address (``s3://``, ``sftp://``, a personal
mailbox); a send to a whole list or segment; every monitor muted, or one for more than a
week (a downtime's or a silence's start and end, or its duration); a monitor or an alert rule
deleted; an audit trail stopped."""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from datetime import datetime

from .business_words import DELETE_VERBS, PERSONAL_MAIL, Finding, Pair, acts

__all__ = ["bulk_out", "mute_span"]

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
_MUTES = frozenset(
    {
        "mute",
        "silence",
        "silences",
        "snooze",
        "maintenance",
        "pause",
        "suppress",
        "disable",
        "downtime",
        "downtimes",
    }
)
_MONITORS = frozenset(
    {"monitor", "monitors", "alert", "alerts", "alerting", "service", "services", "pagerduty",
     "datadog", "opsgenie", "logging", "audit", "trail", "logs", "window", "incident"}
)  # fmt: skip

_SILENCES = frozenset({"downtime", "downtimes", "silence", "silences"})
"""Words that are monitoring's own (a Datadog downtime, an Alertmanager silence)."""
_RULES = frozenset({"rule", "rules", "policy", "policies", "condition", "conditions"})
_LONG_MUTE = 7 * 86_400
_STARTS = re.compile(r"^(?:start|starts_?at|start_?time|start_?date|from|begin\w*)$")
_ENDS = re.compile(r"^(?:end|ends_?at|end_?time|end_?date|until|to|expires?_?at)$")
_DURATION = re.compile(r"^(?:duration|duration_?s(?:ec(?:ond)?s)?|mute_?for|snooze_?for)$")
_SPAN_TEXT = re.compile(r"^\s*(\d{1,7})\s*(s|m|h|d|w)\s*$", re.IGNORECASE)
_UNITS = {"s": 1, "m": 60, "h": 3_600, "d": 86_400, "w": 604_800}
_MATCH_ALL = frozenset({".*", ".+", "*", "~.*", "=~.*"})


def _when(value: object) -> float | None:
    """A time as epoch seconds: a number (seconds or milliseconds) or an ISO 8601 text."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return float(value) / (1000 if value > 10**11 else 1)
    if isinstance(value, str) and len(value) < 40:
        try:
            return datetime.fromisoformat(value.strip().replace("Z", "+00:00")).timestamp()
        except ValueError:
            return None
    return None


def mute_span(pairs: Sequence[Pair]) -> float | None:
    """How many seconds a mute, downtime or silence lasts, by its start and end or its
    duration (``"30d"``, ``2592000``); None when the call does not say."""
    starts = [t for k, v in pairs if _STARTS.match(k) and (t := _when(v)) is not None]
    ends = [t for k, v in pairs if _ENDS.match(k) and (t := _when(v)) is not None]
    if starts and ends:
        return max(ends) - min(starts)
    for key, value in pairs:
        if not _DURATION.match(key):
            continue
        if isinstance(value, int | float) and not isinstance(value, bool):
            return float(value)
        m = _SPAN_TEXT.match(value) if isinstance(value, str) else None
        if m is not None:
            return int(m.group(1)) * _UNITS[m.group(2).lower()]
    return None


def _matches_all(pairs: Sequence[Pair]) -> bool:
    """A silence's matcher that matches every alert (``{"value": ".*", "isRegex": true}``)."""
    return any(
        k in ("value", "matcher", "matchers") and isinstance(v, str) and v.strip() in _MATCH_ALL
        for k, v in pairs
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
    if words & DELETE_VERBS and (
        words & {"monitor", "monitors"} or (words & {"alert", "alerts"} and words & _RULES)
    ):
        yield (
            "deletes a monitor",
            "what it watched goes unwatched from now on, with nobody told: an incident or an "
            "attack then goes unnoticed.",
            "Mute the monitor for a stated time, or let its owner delete it.",
        )
        return
    if not (words & _MUTES and (words & _MONITORS or words & _SILENCES)):
        return
    if _everything(pairs) or "all" in words or _matches_all(pairs):
        yield (
            "mutes monitoring everywhere",
            "alerts of every service stop: an incident or an attack then goes unnoticed.",
            "Mute one monitor for a short, stated time.",
        )
    elif (span := mute_span(pairs)) is not None and span > _LONG_MUTE:
        yield (
            f"mutes monitoring for {span / 86_400:.0f} days",
            "alerts stay silent long after the work they were muted for: an incident or an "
            "attack then goes unnoticed.",
            "Mute one monitor for a short, stated time.",
        )
