"""Authentication, authorisation, CSRF and audit checks a change removes or opens, for the
``auth-weakened`` check: a check's line removed with none added instead, a check's condition
made constant (``if (false && …)``), a view exempted from CSRF, a token's signature no longer
verified (critical), and what ``access_opened`` reads — CSRF turned off, routes opened to
anyone, a request header deciding authentication, CORS open with credentials, audit records
no longer written. Read on added and removed lines of every code file of the change (test
files aside), tool writes and edits included."""

from __future__ import annotations

import re
from collections.abc import Iterator

from humangr.contracts import Severity

from .access_gates import audit_silenced, guard_narrowed, magic_input_grants
from .access_opened import (
    any_origin_with_credentials,
    audit_dropped,
    bypass_header,
    opens_access,
    opens_line,
)
from .base import CheckInput, Hit, is_test_path, snippet
from .diff import FileDiff
from .diff_model import DiffLine

__all__ = ["auth_weakened"]

_CODE = (
    ".py",
    ".js",
    ".jsx",
    ".ts",
    ".tsx",
    ".mjs",
    ".cjs",
    ".rb",
    ".go",
    ".java",
    ".kt",
    ".php",
    ".cs",
    ".rs",
    ".scala",
    ".ex",
    ".exs",
    ".swift",
    ".lua",
    ".groovy",
    ".clj",
    ".dart",
    ".vue",
    ".svelte",
)
_CHECK_LINE = re.compile(
    r"^\s*(?:if\b|elif\b|unless\b|@|assert\b|before_action\b|guard\b|\w+\.use\()"
    r"|^\s*[\"'][\w.]*Middleware[\"'],?\s*$|\baudit\w*\.\w+\("
    r"|(?:login_required|requires?_?auth|authenticate|authorize|check_password|verify_password|"
    r"bcrypt\.compare|compare_digest|has_perm|verifyToken|jwt\.verify|ensureAuth|"
    r"constructEvent|construct_event|verify_?signature|verifySignature|timingSafeEqual|"
    r"verify_?webhook|validate_?signature|verify_?hmac|ConstantTimeCompare|secure_compare|"
    r"constant_time_compare|hmac\.Equal|MessageDigest\.isEqual|verify_?(?:turnstile|captcha|"
    r"recaptcha|hcaptcha)|(?:re|h)?captcha\w*\.verify)\w*\s*\("
    r"|^\s*[\"'][\w.]*(?:IsAuthenticated|IsAdminUser|IsAuthenticatedOrReadOnly|"
    r"DjangoModelPermissions\w*)[\"'],?\s*$",
    re.IGNORECASE,
)
_AUTH_WORDS = re.compile(
    r"is_authenticated|login_required|requires?_?auth|require_?(?:role|admin|login|user|"
    r"permission)|authenticate|authoriz|permission|is_?logged_?in|"
    r"check_password|verify_password|bcrypt\.compare|compare_digest|csrf|has_perm|"
    r"\bis_admin\b|isAuthenticated|ensureAuth|verifyToken|jwt\.verify|passport\.authenticate|"
    r"CsrfViewMiddleware|SecurityMiddleware|AuthenticationMiddleware|limiter\.limit|"
    r"rate_?limit|throttle|helmet\(|csurf|audit_?log|\baudit\.\w+\(|record_audit|"
    r"require_?mfa|mfa_?required|two_?factor|verify_?otp|\.roles?\b[^\n]{0,40}\b(?:includes|"
    r"contains|has|include\?)\b|has_?role|hasRole|hasAuthority|is_?superuser|\b403\b|"
    r"forbidden|constructEvent|construct_event|verify_?signature|verifySignature|"
    r"timingSafeEqual|verify_?webhook|validate_?signature|verify_?hmac|ConstantTimeCompare|"
    r"secure_compare|constant_time_compare|hmac\.Equal|MessageDigest\.isEqual|IsAdminUser|"
    r"turnstile|recaptcha|hcaptcha|captcha",
    re.IGNORECASE,
)
_COMMENTED = re.compile(r"^\s*(?://|#|/\*|\*|--|;|<!--)")
"""A line that is a comment: a check commented out is a check removed."""
_SHORTED = re.compile(
    r"\bif\s*\(?\s*(?:false\s*&&|False\s+and\b|true\s*\|\||True\s+or\b|0\s*&&|1\s*\|\|)"
)
_EXEMPTED = re.compile(
    r"^\s*@(?:csrf_exempt|csrf\.exempt|skip_before_action\s+:verify_authenticity)"
)
_TOKEN_UNCHECKED = re.compile(
    r"[\"']?verify_signature[\"']?\s*:\s*False|verify\s*=\s*False.*\bjwt\b|\bjwt\b.*verify\s*="
    r"\s*False|algorithms\s*=\s*\[\s*[\"']none[\"']|ignoreExpiration\s*:\s*true|"
    r"jwt\.decode\([^)]*complete\s*=\s*True[^)]*verify|\bverify\s*:\s*false\b|"
    r"insecure_disable_signature_validation|dangerous_insecure_decode|"
    r"\bvalidate_exp\s*=\s*false\b|[\"']verify_exp[\"']\s*:\s*False|"
    r"\b(?:ValidateLifetime|ValidateIssuerSigningKey|RequireSignedTokens|RequireExpirationTime)"
    r"\s*=\s*false\b",
    re.IGNORECASE,
)


def auth_weakened(ctx: CheckInput) -> Iterator[Hit]:
    """An authentication or authorisation check removed by a change (its line removed and no
    such check added), short-circuited (``if (false && …)``), or a token's signature no longer
    verified (critical)."""
    for f in ctx.files:
        path = f.path or ""
        if not path.endswith(_CODE) or is_test_path(path):
            continue
        added = f.added[:5_000]
        for line in added:
            found = _weakening(line.text) or opens_line(line.text)
            if found is not None:
                yield _hit(path, line.number, *found)
                break
        yield from _opened(f, path, added)
        removed = [
            line
            for line in f.removed[:5_000]
            if _AUTH_WORDS.search(line.text) and _CHECK_LINE.search(line.text)
        ]
        kept_words = {
            m.group(0).lower()
            for line in added
            if not opens_access(line.text) and not _COMMENTED.match(line.text)
            for m in _AUTH_WORDS.finditer(line.text)
        }
        gone = [
            line
            for line in removed
            if {m.group(0).lower() for m in _AUTH_WORDS.finditer(line.text)} - kept_words
        ]  # a check is kept only by the same check added back, not by any other one
        if gone:
            first = gone[0]
            yield _hit(
                path,
                f.added[0].number if f.added else None,
                Severity.HIGH,
                "security check removed",
                f"the change removes `{snippet(first.text)}` and adds no check instead.",
            )


def _opened(f: FileDiff, path: str, added: tuple[DiffLine, ...]) -> Iterator[Hit]:
    """A request header let decide authentication or auditing, and CORS open to any origin
    with credentials, in the added lines (read with the file's other known lines)."""
    text = "\n".join(line.text for line in added)
    whole = "\n".join(ln.text for h in f.hunks for ln in h.lines if ln.kind != "-")
    for found in (
        bypass_header(text, whole),
        any_origin_with_credentials(text),
        magic_input_grants(text),
    ):
        if found is not None:
            offset, (severity, title, why) = found
            number = added[text.count("\n", 0, offset)].number
            yield _hit(path, number, severity, title, why)
    removed = "\n".join(line.text for line in f.removed[:5_000])
    first = added[0].number if added else None
    for gone in (audit_dropped(removed, text), audit_silenced(removed, text)):
        if gone is not None:
            yield _hit(path, first, *gone)
    narrowed = guard_narrowed(path, removed, text)
    if narrowed is not None:
        yield _hit(path, first, *narrowed)


def _weakening(text: str) -> tuple[Severity, str, str] | None:
    """What an added line does to a check: a token's signature unchecked (critical), a view
    exempted from CSRF, a check's condition made constant."""
    if _TOKEN_UNCHECKED.search(text):
        return (
            Severity.CRITICAL,
            "token signature not verified",
            (f"`{snippet(text)}` accepts tokens anyone can forge."),
        )
    if _EXEMPTED.search(text):
        return (
            Severity.HIGH,
            "CSRF protection turned off",
            (f"`{snippet(text)}` exempts a view from CSRF checks."),
        )
    if _SHORTED.search(text) and _AUTH_WORDS.search(text):
        return (
            Severity.HIGH,
            "authentication check disabled",
            (f"`{snippet(text)}` makes the check's condition constant."),
        )
    return None


def _hit(path: str, line: int | None, severity: Severity, title: str, why: str) -> Hit:
    return Hit(
        severity=severity,
        title=title,
        description=f"{path}: {why}",
        suggestion="Keep the check; if it must change, have a person review the new one.",
        file=path,
        line=line,
    )
