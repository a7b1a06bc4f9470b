"""Code that opens what a check kept shut, for ``auth_weakened``: CSRF protection turned off,
routes that matter opened to anyone, a request header or parameter that skips authentication
or auditing, and CORS that lets any website call the API as the signed-in user.

Each reader is a pure function of the added text (and, for what replaced a check, of the
removed text too); each answers a severity, a title and why.
"""

from __future__ import annotations

import re

from humangr.contracts import Severity

from .base import snippet

__all__ = [
    "Opened",
    "any_origin_with_credentials",
    "audit_dropped",
    "bypass_header",
    "opens_access",
    "opens_line",
]

Opened = tuple[Severity, str, str]
"""What an opening is: its severity, a title and why."""

_CSRF_OFF = re.compile(
    r"csrf\(\)\s*\.disable\(\)|\.csrf\(\s*(?:\w+\s*->\s*\w+\.disable\(\)|"
    r"AbstractHttpConfigurer::disable|\{\s*it\.disable\(\)\s*\})\s*\)|csrf\s*\{\s*disable\(\)|"
    r"\bskip_forgery_protection\b|protect_from_forgery\s+with:\s*:null_session|"
    r"\[IgnoreAntiforgeryToken\]|\bWTF_CSRF_ENABLED\s*=\s*False|"
    r"\bCSRF_(?:ENABLED|PROTECTION)\s*=\s*(?:False|false)|"
    r"protected\s+\$except\s*=\s*\[\s*['\"]\*['\"]",
)
_SENSITIVE_ROUTES = re.compile(r"admin|actuator/\*|/api/\*|^\s*[\"']/\*\*[\"']|internal|manage")
_PERMIT = re.compile(
    r"\b(?:requestMatchers|antMatchers|mvcMatchers|pathMatchers|regexMatchers)\(([^()]*)\)"
    r"\s*\.permitAll\(\)|\banyRequest\(\)\s*\.permitAll\(\)|\banyExchange\(\)\s*\.permitAll\(\)"
)
_OPENER = re.compile(
    r"\bAllowAny\b|\.permitAll\(\)|\[AllowAnonymous\]|@PermitAll\b|@AllowAnonymous\b|"
    r"skip_before_action\s+:authenticate|\bauth(?:enticate|orize)?\s*:\s*false\b",
    re.IGNORECASE,
)
"""A line that grants access rather than checking it (never counted as a check kept)."""

_BYPASS_WORDS = (
    r"admin|override|bypass|skip|debug[-_]?user|impersonat|superuser|staff|sudo|backdoor|"
    r"trusted|no[-_]?auth|no[-_]?audit|elevat|god[-_]?mode|root|support|break[-_]?glass|"
    r"partner|service[-_]?account"
)
_BYPASS_HEADER = re.compile(
    rf"[\"'`]x-[\w-]*(?:{_BYPASS_WORDS})[\w-]*[\"'`]|\bHTTP_X_\w*(?:{_BYPASS_WORDS})\w*|"
    rf"\bhttp_x_\w*(?:{_BYPASS_WORDS})\w*",
    re.IGNORECASE,
)
_GUARDED = re.compile(
    r"authenticat|authoriz|\brole\b|\broles\b|is_?admin|superuser|\bstaff\b|permission|audit|"
    r"\bjwt\b|verify|login|\bnext\(\)|current_?user",
    re.IGNORECASE,
)
_SKIP_AUTH = re.compile(r"(?i)authenticat|authoriz|login_required|require_?auth|audit")
_SKIP_IF = re.compile(r"(?i)\b(?:unless|if)\b")
_SKIP_HEADER = re.compile(r"(?i)headers?\b|getHeader|get_req_header|Header\.Get|http_x_")
_MAX_LINE = 2_000

_ANY_ORIGIN = re.compile(
    r"\borigin\s*:\s*(?:true\b|[\"']\*[\"'])|\(\s*_?\w*\s*,\s*(?:cb|callback|done)\s*\)\s*=>\s*"
    r"(?:cb|callback|done)\(\s*null\s*,\s*true\s*\)|allowedOriginPatterns\(\s*[\"']\*[\"']|"
    r"AllowOriginFunc\b[^\n]{0,200}?return\s+true|AllowAllOrigins\s*:\s*true|"
    r"CORS_(?:ALLOW_ALL_ORIGINS|ORIGIN_ALLOW_ALL)\s*=\s*True|SetIsOriginAllowed\(\s*_?\w*\s*=>\s*"
    r"true\s*\)|Access-Control-Allow-Origin[\"']?(?:\s*,\s*value\s*:|\s*[,:=]|\s)\s*[\"']?\*[\"']?"
    r"(?![\w.])|Access-Control-Allow-Origin[\"']?\s*[,:=]\s*(?:req\b|request\b|origin\b|"
    r"\$http_origin|r\.Header\.Get\(\s*\"Origin\"|headers?\[[\"']origin[\"']\])",
    re.IGNORECASE,
)
_CREDENTIALS = re.compile(
    r"\bcredentials\s*:\s*true\b|allowCredentials\(\s*true\s*\)|AllowCredentials\s*[:=]\s*true|"
    r"AllowCredentials\(\)|CORS_ALLOW_CREDENTIALS\s*=\s*True|supports_credentials\s*=\s*True|"
    r"Access-Control-Allow-Credentials[\"']?(?:\s*,\s*value\s*:|\s*[,:=]|\s)\s*[\"']?true",
    re.IGNORECASE,
)


_AUDIT = re.compile(r"(?i)audit")
_WRITES = re.compile(
    r"(?i)\b(?:insert|save|create|write|append|emit|publish|record|log|put|persist|store|send|"
    r"track|add|push|enqueue)\w*!?\s*\(|\bRepo\.\w+|\.(?:insert|save|create|add)\w*!?\b"
)


def audit_dropped(removed: str, added: str) -> Opened | None:
    """An edit that takes out the writing of audit records and writes none instead (the
    function left as a no-op, the call deleted)."""
    if not (_AUDIT.search(removed) and _WRITES.search(removed)):
        return None
    if _AUDIT.search(added) and _WRITES.search(added):
        return None
    return (
        Severity.HIGH,
        "audit records no longer written",
        "the change removes the code that wrote audit records and writes none instead: who "
        "did what stops being recorded.",
    )


def opens_line(text: str) -> Opened | None:
    """What an added line opens: CSRF protection off, or routes that matter (admin, actuator,
    every API route, every request) opened to anyone."""
    if _CSRF_OFF.search(text):
        return (
            Severity.HIGH,
            "CSRF protection turned off",
            f"`{snippet(text)}` lets any website submit requests as the signed-in user.",
        )
    permit = _PERMIT.search(text)
    if permit is not None and (
        permit.group(1) is None or _SENSITIVE_ROUTES.search(permit.group(1))
    ):
        return (
            Severity.HIGH,
            "routes that matter opened to anyone",
            f"`{snippet(text)}` serves them with no authentication.",
        )
    return None


def opens_access(text: str) -> bool:
    """Whether a line grants access (``AllowAny``, ``permitAll()``, ``[AllowAnonymous]``…)
    rather than checking it: such a line does not count as a check kept."""
    return bool(_OPENER.search(text))


def _header_skips(text: str) -> tuple[int, str] | None:
    """A line on which a check runs only if (or unless) a request header says so
    (``before_action :authenticate_user!, unless: -> { request.headers[…] }``): where it
    starts and the line. Each line is searched three times from left to right (linear)."""
    start = 0
    for line in text.split("\n")[:5_000]:
        head = line[:_MAX_LINE]
        auth = _SKIP_AUTH.search(head)
        cond = _SKIP_IF.search(head, auth.end()) if auth is not None else None
        if auth and cond and _SKIP_HEADER.search(head, cond.end()) is not None:
            return start + auth.start(), line
        start += len(line) + 1
    return None


def bypass_header(added: str, whole: str) -> tuple[int, Opened] | None:
    """Where the added text lets a request header (or one named like a way around: admin,
    override, bypass, skip, debug user…) decide authentication, roles or auditing — in code
    that checks them (``whole``: the file as far as it is known) — and what that is."""
    place = _header_skips(added)
    if place is None:
        found = _BYPASS_HEADER.search(added)
        if found is None or not _GUARDED.search(whole):
            return None
        place = found.start(), found.group(0)
    at, shown = place
    return at, (
        Severity.HIGH,
        "a request header decides authentication or auditing",
        f"`{snippet(shown)}` is sent by the caller: whoever sends it is let through "
        "as someone else, or goes unrecorded (a backdoor shape).",
    )


def any_origin_with_credentials(text: str) -> tuple[int, Opened] | None:
    """Where the text lets any origin call with the user's cookies (CORS), and what that is."""
    origin = _ANY_ORIGIN.search(text)
    if origin is None or not _CREDENTIALS.search(text):
        return None
    return origin.start(), (
        Severity.HIGH,
        "any website may call this API as the signed-in user",
        f"`{snippet(origin.group(0))}` accepts every origin while credentials are allowed: "
        "any page a user visits can read and act on their data.",
    )
