"""A protection switched off through data rather than a settings file: a feature flag
``checkout.require_3ds`` set ``{"enabled": false}``, a PagerDuty service given
``"status": "disabled"``, a sign-on rule set to one factor, a ``fraud_check_enabled`` row
updated to ``'0'``.

The *subject* of a switch is what the call names around it: the tool's name, the request's
path, the keys above the switch and its siblings' names (``name``, ``key``, ``flag``…). A
switch (``enabled``, ``on``, ``active``, ``status``, ``state``, or a key that is itself a
protection) set to an off value turns the protection off when its subject names one —
authentication, MFA, CSRF, fraud or 3-D Secure checks, verification, audit, alerting or paging
— outside development, test or staging. Pure.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from typing import Any

from .business_words import switched_off

__all__ = ["PROTECTION", "approves_itself", "not_live", "switched_protections"]

_SWITCHES = frozenset(
    {"enabled", "enable", "on", "active", "status", "state", "is_enabled", "is_active",
     "value", "factor_mode", "factormode", "enforced", "enforcement", "mode"}
)  # fmt: skip
_NAMES = frozenset(
    {"name", "key", "flag", "flag_key", "id", "title", "setting", "policy", "full_name",
     "display_name", "type", "policy_name", "rule_name", "table"}
)  # fmt: skip
PROTECTION = re.compile(
    r"(?:^|[^a-z0-9])(?:auth(?!or(?!i[sz]))\w*|mfa|2fa|two_?factor|multi_?factor|csrf|xsrf|fraud\w*|3ds|"
    r"three_?d_?secure|sca|\w*captcha|turnstile|double_?opt_?in|verification|verify\w*|"
    r"signature\w*|audit\w*|"
    r"alert\w*|alarm\w*|paging|pager\w*|on_?call|guardduty|cloudtrail|siem|waf|firewall|"
    r"rate_?limit\w*|encryption|sso|sign_?on|password_policy|lockout|risk_?check\w*|"
    r"moderation|spam_?filter|antivirus|malware\w*|dlp|backup\w*|detection\w*|detector\w*|"
    r"correlation\w*|intrusion\w*|unauthori[sz]ed|threat\w*|\w*approval|approval\w*|"
    r"validation_?rules?|\w+_validation|tolerance\w*|safeguard\w*|guard_?rails?|cab|retention\w*|"
    r"legal_?holds?)(?:[^a-z0-9]|$)"
)
_AUTO_APPROVAL = re.compile(r"auto_?approv|(?:^|\s)requires_approval(?:\s|$)")
"""Approving by itself: switching that off makes a person look, the opposite of a risk; and
an agent tool's own ``requires_approval`` flag, which asks its host, not a business."""
_DISABLED_KEYS = frozenset({"disabled", "is_disabled", "paused", "muted", "bypassed"})
"""Keys whose *true* value switches off what they belong to (``"disabled": 1``)."""
_TRUE = (True, 1, "1", "true", "yes", "on")
_OVERRIDE = re.compile(r"(?:^|[^a-z])(?:override|bypass|waive|break_?(?:the_?)?glass)")
"""A key that, set true, sets a check aside (``tolerance-override``, ``breakTheGlass``)."""
_NOT_ENFORCING = re.compile(
    r"^(?:test\w*|audit(?:_?only)?|simulat\w*|report_?only|monitor(?:_?only)?|detect_?only|"
    r"log_?only|permissive|dry_?run|evaluat\w*)$"
)
"""A policy's mode that watches without blocking (``TestWithoutNotifications``)."""
_MODES = frozenset({"mode", "enforcement", "enforcement_mode", "enforcement_level", "state"})
_NOT_LIVE = re.compile(
    r"(?:^|[^a-z])(?:dev|development|test|testing|staging|sandbox|local)(?:[^a-z]|$)"
)
_ONE_FACTOR = frozenset({"1fa", "single_factor", "password_only"})
_MAX_NODES = 2_000


def approves_itself(subject: str) -> bool:
    """Whether ``subject`` names approving by itself (``Auto_Approval_Small_Orders``) or an
    agent tool's own ``requires_approval``: switching it off makes a person look."""
    return bool(_AUTO_APPROVAL.search(subject))


def not_live(subject: str) -> bool:
    """Whether ``subject`` names development, test, staging or a sandbox."""
    return bool(_NOT_LIVE.search(subject))


def _words(text: str) -> str:
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", text).lower()


def _off(key: str, value: object) -> bool:
    if isinstance(value, str) and value.strip().lower() in _ONE_FACTOR:
        return True
    if key in _DISABLED_KEYS:
        return value in _TRUE and value is not False
    if key in _MODES and isinstance(value, str) and _NOT_ENFORCING.match(_words(value.strip())):
        return True
    return switched_off(value) and (key in _SWITCHES or bool(PROTECTION.search(key)))


def switched_protections(name: str, url_path: str, arguments: Mapping[str, Any]) -> Iterator[str]:
    """The subject of each protection the call switches off (at most one per call)."""
    todo: list[tuple[tuple[str, ...], Mapping[str, Any]]] = [((), arguments)]
    seen = 0
    while todo and seen < _MAX_NODES:
        above, node = todo.pop()
        seen += 1
        labels = [
            _words(str(v)[:200])
            for k, v in node.items()
            if _words(str(k)) in _NAMES and isinstance(v, str)
        ]
        for key, value in node.items():
            k = _words(str(key))
            if isinstance(value, Mapping):
                todo.append(((*above, *labels, k), value))  # the settings' names go down
            elif isinstance(value, list):
                todo.extend(((*above, k), v) for v in value[:50] if isinstance(v, Mapping))
            elif _OVERRIDE.search(k) and value in _TRUE and value is not False:
                words = [_words(name), url_path.lower(), *above, k, *labels]
                if not not_live(" ".join(words)):
                    yield " ".join(words)[:200]
                    return
            elif _off(k, value):
                words = [_words(name), url_path.lower(), *above, k, *labels]
                subject = " ".join(words)
                live = not not_live(subject) and not _AUTO_APPROVAL.search(subject)
                if PROTECTION.search(subject) and live:
                    yield subject[:200]
                    return
