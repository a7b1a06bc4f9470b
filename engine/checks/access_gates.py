"""More ways an edit opens what a check kept shut, for ``auth_weakened`` (beside
``access_opened``):

- a request's input (a header, a query or form parameter, a cookie) compared with a fixed
  token-like literal, and what follows grants a login, an administrator or a role: whoever
  knows the value is let in (a magic-value backdoor);
- routes that matter (``/admin``, ``/api``, ``/account``…) taken out of a middleware's or an
  authentication guard's list of routes it protects, and no longer named there;
- an audit logger silenced: its handlers emptied, it disabled, or its level raised to
  ``CRITICAL``/``OFF``.

Pure functions of the added (and removed) text; each reads at most ``_MAX`` characters with
bounded patterns.
"""

from __future__ import annotations

import re

from humangr.contracts import Severity

from .base import snippet

__all__ = ["audit_silenced", "guard_narrowed", "magic_input_grants"]

Opened = tuple[Severity, str, str]
_MAX = 200_000
_INPUT = (
    r"(?:\b(?:self\.)?(?:request|req|ctx|context|c|r)\.(?:headers|GET|POST|args|query|params"
    r"|cookies|form|query_params|META|values)(?:\.get\(\s*|\[\s*)[\"'][^\"'\n]{1,64}[\"']\s*"
    r"(?:,[^)\n]{0,40})?[\])]"
    r"|\b(?:req|request|c|ctx)\.(?:get|header|getHeader|GetHeader|Query|param|cookie)\(\s*"
    r"[\"'][^\"'\n]{1,64}[\"']\s*\)"
    r"|\br\.(?:Header\.Get|URL\.Query\(\)\.Get|FormValue)\(\s*\"[^\"\n]{1,64}\"\s*\)"
    r"|\$_(?:GET|POST|REQUEST|COOKIE|SERVER)\[\s*[\"'][^\"'\n]{1,64}[\"']\s*\])"
)
_LITERAL = r"[\"']([^\"'\s]{4,64})[\"']"
_COMPARE = re.compile(
    _INPUT + r"\s*(?:===?|\.equals\(|\.Equals\()\s*" + _LITERAL
    + r"|" + _LITERAL + r"\s*(?:===?|\.equals\(|\.Equals\()\s*" + _INPUT
)  # fmt: skip
_GRANTS = re.compile(
    r"(?i)admin|superuser|is_staff|\bstaff\b|\broot\b|\bsudo\b|\blogin\(|log_?in_?user|"
    r"sign_?in\(|authenticate|impersonat|principal|\broles?\b|session\[|set_cookie|"
    r"grant|elevat|privileg|bypass"
)
_WINDOW = 400


def _token_like(value: str) -> bool:
    """A value chosen to be secret: letters with digits, six characters or more (not a plain
    word such as ``csv`` or ``admin``, nor a number alone)."""
    return (
        len(value) >= 6
        and any(c.isdigit() for c in value)
        and any(c.isalpha() for c in value)
        and not re.fullmatch(r"v?\d+(?:\.\d+)*[a-z]?", value)
    )


def magic_input_grants(added: str) -> tuple[int, Opened] | None:
    """Where the added text compares a request's input with a fixed secret-like literal and
    then grants access, and what that is."""
    text = added[:_MAX]
    if "==" not in text and "quals(" not in text:
        return None  # no comparison at all: skip the search
    for n, m in enumerate(_COMPARE.finditer(text)):
        if n >= 200:
            break
        literal = m.group(1) or m.group(2) or ""
        if not _token_like(literal):
            continue
        if _GRANTS.search(text, m.end(), m.end() + _WINDOW) is None:
            continue
        return m.start(), (
            Severity.HIGH,
            "a fixed value in a request lets the caller in (backdoor shape)",
            f"`{snippet(m.group(0))}` is chosen by whoever sends the request: anyone who knows "
            "the value is logged in or given rights.",
        )
    return None


_GUARD_FILE = re.compile(r"(?i)(?:^|/)[\w.-]*(?:middleware|auth|guard|security|permission)[\w.-]*$")
_GUARD_WORDS = re.compile(r"(?i)matcher|protect|require_?auth|login_?required|authenticat|guard")
_ROUTE = re.compile(r"[\"'`](/[\w/:*.()|+?\[\]-]{1,120})[\"'`]")
_MATTERS = re.compile(r"(?i)^/(?:admin|api|account|dashboard|internal|manage|settings|billing|cms)")


def guard_narrowed(path: str, removed: str, added: str) -> Opened | None:
    """Routes that matter dropped from an authentication guard's list in a middleware or auth
    file (``matcher: ['/admin/:path*', …]`` losing ``/admin``)."""
    if not _GUARD_FILE.search(path) or not _GUARD_WORDS.search(removed[:_MAX]):
        return None
    kept = added[:_MAX].lower()
    dropped = []
    for m in list(_ROUTE.finditer(removed[:_MAX]))[:500]:
        route = m.group(1)
        first = route.strip("/").split("/")[0].lower()
        if _MATTERS.match(route) and first and first not in kept:
            dropped.append(route)
    if not dropped:
        return None
    return (
        Severity.HIGH,
        "routes that matter taken out of the authentication guard",
        f"`{snippet(', '.join(dropped[:3]))}` no longer pass the check: they are served to anyone.",
    )


_SILENCED = re.compile(
    r"(?i)[\"']?handlers[\"']?\s*[:=]\s*\[\s*\]|[\"']?disabled[\"']?\s*[:=]\s*(?:True|true)\b|"
    r"[\"']?level[\"']?\s*[:=]\s*(?:logging\.)?[\"']?(?:CRITICAL|OFF|FATAL)\b"
)
_AUDIT_NAME = re.compile(r"(?i)audit")


def audit_silenced(removed: str, added: str) -> Opened | None:
    """An audit logger's configuration changed so that it records nothing (its handlers
    emptied, it disabled or raised to ``CRITICAL``), where it recorded before."""
    text = added[:_MAX]
    if "audit" not in removed[:_MAX].lower() or "audit" not in text.lower():
        return None
    for n, m in enumerate(_SILENCED.finditer(text)):
        if n >= 200:
            break
        before = text[max(0, m.start() - 300) : m.start()]
        if _AUDIT_NAME.search(before) and _AUDIT_NAME.search(removed[:_MAX]):
            if _SILENCED.search(removed[:_MAX]) and m.group(0) in removed:
                continue  # it was already so
            return (
                Severity.HIGH,
                "the audit log silenced",
                f"`{snippet(m.group(0))}` for an audit logger: who did what stops being recorded.",
            )
    return None
