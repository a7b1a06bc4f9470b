"""Watching stopped, read from a business tool's name words and its argument pairs (for
``business_ops``), each high: an audit trail stopped; a monitor or an alert rule deleted; a
monitor or an on-call service switched off; every monitor muted, or one for more than a week
(a downtime's, a silence's or a maintenance window's start and end, or its duration); audit
logs excluded from collection. Muting one monitor for a stated, short time is everyday."""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from datetime import datetime

from .business_words import DELETE_VERBS, Finding, Pair, acts, everything, switched_off

__all__ = ["mute_span", "watching_stopped"]

_AUDIT = frozenset(
    {"cloudtrail", "audit", "auditlog", "auditlogs", "audit_log", "trail", "trails", "flowlogs",
     "guardduty", "securityhub", "defender", "sentinel", "detector", "recorder"}
)  # fmt: skip
_STOPS = frozenset({"stop", "disable", "delete", "deactivate", "pause", "suspend", "remove"})
_MUTES = frozenset(
    {"mute", "silence", "silences", "snooze", "maintenance", "pause", "suppress", "disable",
     "downtime", "downtimes"}
)  # fmt: skip
_MONITORS = frozenset(
    {"monitor", "monitors", "alert", "alerts", "alerting", "service", "services", "pagerduty",
     "datadog", "opsgenie", "logging", "audit", "trail", "logs", "window", "incident",
     "maintenance"}
)  # fmt: skip
_SILENCES = frozenset({"downtime", "downtimes", "silence", "silences"})
"""Words that are monitoring's own (a Datadog downtime, an Alertmanager silence)."""
_RULES = frozenset({"rule", "rules", "policy", "policies", "condition", "conditions"})
_PAGING = frozenset({"pagerduty", "opsgenie", "oncall", "victorops", "paging", "pager"})
_STATE_KEYS = frozenset({"status", "state", "enabled", "active"})
_EXCLUSIONS = frozenset({"exclusion", "exclusions", "exclude"})
_AUDIT_LOGS = re.compile(
    r"(?i)audit|cloudtrail|data_access|access[_-]?log|auth(?!or)|login|sign[_-]?in|sshd|sso\b|"
    r"okta|identity|\biam\b|security|waf\b|firewall"
)
"""Logs that record who got in and what they did: audit trails and sign-in, identity and
security services' logs (``service:auth-gateway``)."""
_SILENCED_KEYS = frozenset({"silenced", "muted", "mute", "silence", "snoozed"})
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


def _silenced_everywhere(pairs: Sequence[Pair]) -> bool:
    """A monitor's silenced scopes that hold ``*`` (Datadog's ``{"silenced": {"*": null}}``)."""
    return any(
        k in _SILENCED_KEYS and isinstance(v, dict) and "*" in list(v)[:50] for k, v in pairs
    )


def watching_stopped(words: set[str], pairs: Sequence[Pair]) -> Iterator[Finding]:
    """Each way above that a call stops watching (at most one finding)."""
    if acts(words) and words & _AUDIT and words & _STOPS:
        yield (
            "stops audit logging",
            "what anyone does from now on goes unrecorded: an attacker's first step.",
            "Let a security administrator change audit logging.",
        )
    elif words & DELETE_VERBS and (
        words & {"monitor", "monitors"} or (words & {"alert", "alerts"} and words & _RULES)
    ):
        yield (
            "deletes a monitor",
            "what it watched goes unwatched from now on, with nobody told: an incident or an "
            "attack then goes unnoticed.",
            "Mute the monitor for a stated time, or let its owner delete it.",
        )
    elif (
        acts(words)
        and words & (_PAGING | _AUDIT | {"monitor", "monitors"})
        and any(k in _STATE_KEYS and switched_off(v) for k, v in pairs)
    ):
        yield (
            "switches monitoring, paging or auditing off",
            "alerts that would have told people something is wrong stop being raised.",
            "Let the on-call team change its own monitors and paging.",
        )
    elif (
        acts(words)
        and (words & _EXCLUSIONS or any("exclusion" in k for k, _ in pairs))
        and not any(k in ("is_enabled", "enabled") and v is False for k, v in pairs)
        and any(
            k in ("filter", "name", "query") and isinstance(v, str) and _AUDIT_LOGS.search(v[:400])
            for k, v in pairs
        )
    ):
        yield (
            "stops collecting audit logs",
            "activity the audit logs would have recorded goes unrecorded.",
            "Let the security team change what is logged.",
        )
    elif acts(words) and words & _MONITORS and _silenced_everywhere(pairs):
        yield (
            "mutes a monitor for every scope",
            "the monitor's alerts are silenced wherever it fires, with no end: an outage or "
            "an attack then goes unnoticed.",
            "Mute one scope for a short, stated time.",
        )
    elif words & _MUTES and (words & _MONITORS or words & _SILENCES):
        if everything(pairs) or "all" in words or _matches_all(pairs):
            yield (
                "mutes monitoring everywhere",
                "alerts of every service stop: an incident or an attack then goes unnoticed.",
                "Mute one monitor for a short, stated time.",
            )
        elif (span := mute_span(pairs)) is not None and span > _LONG_MUTE:
            yield (
                f"mutes monitoring for {span / 86_400:.0f} days",
                "alerts stay silent long after the work they were muted for: an incident or "
                "an attack then goes unnoticed.",
                "Mute one monitor for a short, stated time.",
            )
