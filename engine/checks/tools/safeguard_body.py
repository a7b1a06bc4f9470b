"""A safeguard switched off through an API's body or parameters, whatever the API.

Beyond the plain switches ``protection_off`` reads (``enabled: false`` under an MFA setting),
a request turns a safeguard off when it

- pauses, mutes or disables it (``isPaused: true``, ``disabled: 1``) and nothing in the object
  says when that ends (``until``, ``endsAt``, ``duration``…);
- turns an enforcement off (``hardLimitsEnforced: false``, ``enforced: false``);
- asks to skip or bypass a check (``skip_address_whitelist: true``, ``bypass_review``, a node
  or setting named a bypass written ``true``);
- sets a safeguard's state to off (``softDeleteFeatureState: "Disabled"``) or an enforcing
  policy to a test, audit or report-only mode on an update.

The subject — the tool's name, the path, the keys above and the labels of the object — must
name a safeguard (checks, limits, alerts, detections, backups, protections), and nothing of
development, test or staging. Turning a safeguard on never matches. Pure.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from typing import Any

from .body_walk import Node, key_words, nodes, truthy
from .business_words import switched_off
from .protection_off import PROTECTION, approves_itself, not_live
from .threshold_body import huge_threshold

__all__ = ["safeguards_off"]

SAFEGUARD = re.compile(
    r"(?:^|_)(?:velocity\w*|spend_?limits?|limits?|interlocks?|safety|detections?|detect|"
    r"monitors?|monitoring|alerts?|alerting|alarms?|saved_?search(?:es)?|soft_?delete|"
    r"tamper\w*|immutab\w*|protection|security|dlp|edr|defender|quarantine|validation\w*|"
    r"approvals?|kyc|aml|sanctions?|screening|whitelist|allowlist|allow_?list|blocklist|"
    r"checks?|verification|signing|unauthori[sz]ed|intrusion|threat\w*|anomal\w*|"
    r"guardrails?|(?:policy_?)?enforcement|duplicates?|dedup\w*|idempoten\w*|retention_?lock|legal_?hold|"
    r"risk_?scor\w*|three_?ds|3_?d_?secure|anti_[a-z]+|collision\w*)(?:_|$)"
)
"""Words that name a safeguard, read on ``_``-joined words."""
_INVERTED = re.compile(r"^(?:is_)?(?:paused|disabled|muted|silenced|snoozed|suspended)$")
_ENDS = frozenset(
    {"until", "ends_at", "end", "end_time", "end_date", "expires", "expires_at", "expiry",
     "duration", "mute_until", "snooze_until", "silence_until", "end_date_time", "ttl"}
)  # fmt: skip
_ENFORCE = re.compile(r"(?:^|_)enforc(?:e|ed|es|ing|ement)(?:_|$)")
_SKIP = re.compile(r"^(?:skip|bypass|disable|ignore|no|without|override)_(\w+)$")
_BYPASS_KEY = re.compile(r"(?:^|_)bypass(?:_|$)")
_STATE = re.compile(r"^(\w+?)_(?:feature_)?(?:state|status|enabled|required|setting|mode)$")
_BYPASSED = frozenset(
    {"bypass", "bypassed", "override", "overridden", "suspend", "suspended", "inhibit", "inhibited"}
)
"""Values that set a safeguard aside (``"anti_collision": "bypass"``), read under a safeguard."""
_WEAK_MODE = re.compile(
    r"^(?:test|testing|audit|audit_?only|report|report_?only|detect|detect_?only|log|log_?only|"
    r"monitor|monitor_?only|simulat\w*|dry_?run|permissive|learning|count)(?:_|$)"
)
_FORCE_DUPLICATE = re.compile(
    r"^(?:force|allow|permit)_(?:duplicates?|dupes?|resubmit\w*|reprocess\w*)$"
)
_MODE_KEYS = frozenset(
    {"mode", "enforcement", "enforcement_mode", "policy_mode", "action_mode", "state"}
)
_UPDATES = re.compile(r"(?:^|_)(?:update|set|patch|put|modify|change|edit|configure)(?:_|$)")
_SWITCHES = frozenset(
    {"enabled", "enable", "active", "is_active", "is_enabled", "status", "state", "on"}
)  # fmt: skip


_STOPPED = re.compile(r"(?:^|_)(?:stopped|disabled|paused|suspended|off)$")
"""A state named by its end (``ProtectionStopped``, ``MonitoringPaused``)."""


def _stopped(value: object) -> bool:
    return isinstance(value, str) and bool(_STOPPED.search(key_words(value[:80])))


def _names_safeguard(subject: str) -> bool:
    return bool(SAFEGUARD.search(subject) or PROTECTION.search(subject))


def _subject(name: str, path: str, node: Node, key: str) -> str:
    parts = [key_words(name), key_words(path), *node.above, *map(key_words, node.labels), key]
    return "_".join(p for p in parts if p)[:400]


def _why(node: Node, key: str, value: object, name: str, path: str, method: str) -> str | None:
    """Why ``key: value`` of ``node`` switches a safeguard off, or ``None``."""
    if _INVERTED.match(key) and truthy(value):
        if any(k in _ENDS and v not in (None, "", 0) for k, v in node.items):
            return None
        return "paused or disabled, with no end"
    if _ENFORCE.search(key) and (switched_off(value) or value == 0):
        return "its enforcement turned off"
    skip = _SKIP.match(key)
    if truthy(value) and (
        _BYPASS_KEY.search(key) or (skip is not None and _names_safeguard(skip.group(1)))
    ):
        return f"`{key}` asks to skip a check"
    if key == "value" and truthy(value):
        label = "_".join(map(key_words, node.labels))
        if _BYPASS_KEY.search(label) or re.search(r"(?:^|_)override(?:_|$)", label):
            return "a bypass switched on"
    state = _STATE.match(key)
    if (
        (switched_off(value) or _stopped(value))
        and state is not None
        and _names_safeguard(state.group(1))
    ):
        return f"`{key}` set to off"
    if key in _SWITCHES and switched_off(value):
        return "switched off"
    if isinstance(value, str) and value.strip().lower() in _BYPASSED:
        return f"`{key}` set to {value[:20]!r}"
    if _FORCE_DUPLICATE.match(key) and truthy(value):
        return f"`{key}` overrides the guard against doing it twice"
    if huge_threshold(key, value, _subject(name, path, node, key)):
        return f"`{key}` raised to {value}: no real amount reaches it"
    if key in _MODE_KEYS and isinstance(value, str) and _WEAK_MODE.match(key_words(value)):
        updates = method in ("PATCH", "PUT") or _UPDATES.search(key_words(name))
        return f"moved to {value[:40]!r} mode" if updates else None
    return None


def safeguards_off(
    name: str, path: str, method: str, arguments: Mapping[str, Any]
) -> Iterator[str]:
    """What the call does to a safeguard it switches off, with its subject (at most one)."""
    for node in nodes(arguments):
        for key, value in node.items:
            if isinstance(value, (Mapping, list)):
                continue
            why = _why(node, key, value, name, path, method)
            if why is None:
                continue
            subject = _subject(name, path, node, key)
            spaced = subject.replace("_", " ")
            if _names_safeguard(subject) and not not_live(spaced) and not approves_itself(subject):
                yield f"{why} ({subject[:160]})"
                return
