"""Hard-coded secrets on one line: detect-secrets' detectors plus a few patterns it lacks.

Only the detectors' ``analyze_string`` is used: it is pure (no settings, no verification
over the network). A line yields at most one hit, the most specific kind. Secret values never
leave this module.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from detect_secrets.filters import heuristic
from detect_secrets.plugins.aws import AWSKeyDetector
from detect_secrets.plugins.azure_storage_key import (
    AzureStorageKeyDetector,
)
from detect_secrets.plugins.basic_auth import BasicAuthDetector
from detect_secrets.plugins.discord import DiscordBotTokenDetector
from detect_secrets.plugins.github_token import GitHubTokenDetector
from detect_secrets.plugins.gitlab_token import GitLabTokenDetector
from detect_secrets.plugins.jwt import JwtTokenDetector
from detect_secrets.plugins.keyword import (
    QUOTES_REQUIRED_DENYLIST_REGEX_TO_GROUP,
    REGEX_BY_FILETYPE,
    KeywordDetector,
)
from detect_secrets.plugins.mailchimp import MailchimpDetector
from detect_secrets.plugins.npm import NpmDetector
from detect_secrets.plugins.openai import OpenAIDetector
from detect_secrets.plugins.private_key import PrivateKeyDetector
from detect_secrets.plugins.pypi_token import PypiTokenDetector
from detect_secrets.plugins.sendgrid import SendGridDetector
from detect_secrets.plugins.slack import SlackDetector
from detect_secrets.plugins.square_oauth import SquareOAuthDetector
from detect_secrets.plugins.stripe import StripeDetector
from detect_secrets.plugins.twilio import TwilioKeyDetector
from detect_secrets.util.filetype import determine_file_type

from .secrets_ast import looks_random, name_like

__all__ = ["SecretHit", "looks_random", "scan_secrets"]

_MAX_LINE = 20_000
_MAX_ASSIGN_LINE = 4_000


@dataclass(frozen=True, slots=True)
class SecretHit:
    kind: str
    severity: str
    origin: str
    """``detect-secrets`` or ``humangr``: which detector found it."""


_TOKEN_DETECTORS: tuple[tuple[str, Any], ...] = (
    ("GitHub token", GitHubTokenDetector()),
    ("GitLab token", GitLabTokenDetector()),
    ("Slack token", SlackDetector()),
    ("Stripe live key", StripeDetector()),
    ("OpenAI API key", OpenAIDetector()),
    ("npm token", NpmDetector()),
    ("PyPI token", PypiTokenDetector()),
    ("SendGrid API key", SendGridDetector()),
    ("Twilio API key", TwilioKeyDetector()),
    ("Discord bot token", DiscordBotTokenDetector()),
    ("Azure storage key", AzureStorageKeyDetector()),
    ("Mailchimp API key", MailchimpDetector()),
    ("Square OAuth secret", SquareOAuthDetector()),
)
_AWS = AWSKeyDetector()
_PRIVATE = PrivateKeyDetector()
_JWT = JwtTokenDetector()
_BASIC = BasicAuthDetector()
_KEYWORD = KeywordDetector()

_OWN_TOKENS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("Anthropic API key", re.compile(r"\bsk-ant-[a-z]{3,6}\d{0,3}-[A-Za-z0-9_-]{20,}")),
    ("OpenAI API key", re.compile(r"\bsk-(?:proj|svcacct|admin)-[A-Za-z0-9_-]{20,}")),
    ("GitHub token", re.compile(r"\bgithub_pat_[A-Za-z0-9_]{40,}")),
    ("Google API key", re.compile(r"\bAIza[0-9A-Za-z_-]{35}\b")),
    ("Slack token", re.compile(r"\bxox[abposr]-[A-Za-z0-9-]{10,}")),
)
_JWT_CANDIDATE = re.compile(r"eyJ[A-Za-z0-9_=.+/-]+")
_OWN_PRIVATE = re.compile(r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----")
_TOKEN_ASSIGN = re.compile(
    r"(?i)(?:token|apikey|api[_-]key|access[_-]?key|secret|passw(?:or)?d|pwd|auth[_-]?key)"
    r"[\w.-]{0,40}[\"']?\s{0,8}(?:=|:=|=>|:)\s{0,8}([\"'])([^\s\"']{8,200})\1"
)
_ENV_ASSIGN = re.compile(
    r"^\s{0,16}(?:export\s+)?[A-Za-z0-9_]{0,60}"
    r"(?:TOKEN|SECRET|PASSWORD|PASSWD|API_?KEY|ACCESS_?KEY|AUTH_?KEY)"
    r"[A-Za-z0-9_]{0,60}\s{0,8}[=:]\s{0,8}([^\s\"'#]{8,200})\s*$",
    re.IGNORECASE,
)
_CODE_EXT = re.compile(
    r"\.(?:py|pyi|pyw|js|jsx|mjs|cjs|ts|tsx|go|java|kt|rb|rs|c|h|cc|cpp|hpp|cs|php|swift|scala"
    r"|json|ya?ml|toml|xml|html|md|rst)$",
    re.IGNORECASE,
)
_KEYWORD_HINT = re.compile(r"(?i)key|pass|pwd|secret|token|contrase")
_FIELD_WORDS = frozenset(
    [
        "password",
        "passwd",
        "pwd",
        "secret",
        "token",
        "api_key",
        "apikey",
        "api-key",
        "access_token",
        "secret_key",
        "private_key",
        "auth_token",
        "client_secret",
    ]
)
_PLACEHOLDER = re.compile(
    r"(?i)^(?:x+|\*+|\.+|-+|#+|<[^>]*>|\{[^}]*\}|\$\{?[\w.]*\}?|%\([^)]*\)s|%s|"
    r"your[\w-]*|redacted|placeholder|dummy|none|null|nil|true|false|undefined|"
    r"example[\w-]*|(?:os\.)?environ.*|getenv.*|env\..*)$"
)


def _is_placeholder(value: str, line: str) -> bool:
    v = value.strip()
    if len(v) < 6 or _PLACEHOLDER.match(v) or v.lower() in _FIELD_WORDS:
        return True
    if any(c.isspace() for c in v) or "%20" in v:
        return True
    try:
        return bool(
            heuristic.is_templated_secret(v)
            or heuristic.is_prefixed_with_dollar_sign(v)
            or heuristic.is_indirect_reference(line)
            or heuristic.is_sequential_string(v)
            or heuristic.is_likely_id_string(v, line)
        )
    except Exception:
        return False


def _assigned(path: str | None, line: str) -> Iterator[tuple[str, str]]:
    line = line[:_MAX_ASSIGN_LINE]
    filetype = determine_file_type(path or "")
    regexes = REGEX_BY_FILETYPE.get(filetype, QUOTES_REQUIRED_DENYLIST_REGEX_TO_GROUP)
    for value in _KEYWORD.analyze_string(line, denylist_regex_to_group=regexes):
        yield str(value), "detect-secrets"
    for m in _TOKEN_ASSIGN.finditer(line):
        yield m.group(2), "humangr"
    if not _CODE_EXT.search(path or ""):
        env = _ENV_ASSIGN.match(line)
        if env:
            yield env.group(1), "humangr"


_FAKE = re.compile(r"(?i)example|fake|test|dummy|sample|x{4}|0{4}|1234|abcd|(.)\1{5}")


def _token(kind: str, values: list[str], origin: str, test_file: bool) -> SecretHit:
    """A provider key or token: critical; in a test file low when it looks fake, else high."""
    if not test_file:
        return SecretHit(kind, "critical", origin)
    fake = any(_FAKE.search(v) for v in values) or not values
    return SecretHit(kind, "low" if fake else "high", origin)


_URL_PASSWORD = re.compile(
    r"\b[a-z][a-z0-9+.-]{1,20}://[^\s:/@'\"<>]{1,128}:([^\s/@'\"<>]{4,128})@[\w.-]{3,}"
)
_TEMPLATED = re.compile(r"[{}$%<>*]|^x+$|^(?:pass(?:word)?|secret|changeme|pw|pwd)$", re.I)


def scan_secrets(path: str | None, line: str, *, test_file: bool) -> SecretHit | None:
    """The most specific secret on ``line``, or None.

    In test files (``test_file``) private keys (test certificates), JWTs, passwords and URL
    credentials are low, provider keys and tokens low when they look fake and high otherwise.
    """
    line = line[:_MAX_LINE]
    key_sev = "low" if test_file else "critical"
    if any(True for _ in _PRIVATE.analyze_string(line)):
        return SecretHit("private key", key_sev, "detect-secrets")
    if _OWN_PRIVATE.search(line):
        return SecretHit("private key", key_sev, "humangr")
    found = [str(v) for v in _AWS.analyze_string(line)]
    if found:
        return _token("AWS credential", found, "detect-secrets", test_file)
    for kind, det in _TOKEN_DETECTORS:
        found = [str(v) for v in det.analyze_string(line)]
        if found:
            return _token(kind, found, "detect-secrets", test_file)
    for kind, rx in _OWN_TOKENS:
        m = rx.search(line)
        if m:
            return _token(kind, [m.group(0)], "humangr", test_file)
    if any(
        "." in tok and any(True for _ in _JWT.analyze_string(tok))
        for tok in _JWT_CANDIDATE.findall(line)
    ):
        return SecretHit("JSON Web Token", "low" if test_file else "high", "detect-secrets")
    for value in _BASIC.analyze_string(line):
        if not _is_placeholder(str(value), line):
            sev = "low" if test_file else "high"
            return SecretHit("credentials in a URL", sev, "detect-secrets")
    for m in _URL_PASSWORD.finditer(line):  # reserved characters detect-secrets leaves out
        value = m.group(1)
        if not _TEMPLATED.search(value) and not _is_placeholder(value, line):
            return SecretHit("credentials in a URL", "low" if test_file else "high", "humangr")
    if not _KEYWORD_HINT.search(line):
        return None
    best: SecretHit | None = None
    for value, origin in _assigned(path, line):
        if _is_placeholder(value, line) or name_like(value):
            continue
        if looks_random(value):
            sev = "low" if test_file else "critical"
        elif origin == "humangr":
            continue
        else:
            sev = "low" if test_file else "high"
        hit = SecretHit("hard-coded credential", sev, origin)
        if best is None or sev == "critical":
            best = hit
    return best
