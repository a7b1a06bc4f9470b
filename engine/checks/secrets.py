"""Hard-coded secrets on one line: detect-secrets' detectors plus a few patterns it lacks.

Only the detectors' ``analyze_string`` is used: it is pure (no settings, no verification
over the network). A line yields at most one hit, the most specific kind. Secret values never
leave this module.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from detect_secrets.filters import heuristic
from detect_secrets.plugins.azure_storage_key import (
    AzureStorageKeyDetector,
)
from detect_secrets.plugins.basic_auth import BasicAuthDetector
from detect_secrets.plugins.discord import DiscordBotTokenDetector
from detect_secrets.plugins.github_token import GitHubTokenDetector
from detect_secrets.plugins.gitlab_token import GitLabTokenDetector
from detect_secrets.plugins.keyword import (
    QUOTES_REQUIRED_DENYLIST_REGEX_TO_GROUP,
    REGEX_BY_FILETYPE,
    KeywordDetector,
)
from detect_secrets.plugins.mailchimp import MailchimpDetector
from detect_secrets.plugins.private_key import PrivateKeyDetector
from detect_secrets.plugins.pypi_token import PypiTokenDetector
from detect_secrets.plugins.sendgrid import SendGridDetector
from detect_secrets.plugins.slack import SlackDetector
from detect_secrets.plugins.square_oauth import SquareOAuthDetector
from detect_secrets.plugins.stripe import StripeDetector
from detect_secrets.plugins.twilio import TwilioKeyDetector
from detect_secrets.util.filetype import determine_file_type

from .remember import CleanTexts
from .secrets_ast import looks_random, name_like
from .secrets_scan import (
    KEYWORD_OVERLAP,
    KEYWORD_WINDOW,
    aws_keys,
    jwt_tokens,
    keyword_regexes,
    npm_tokens,
    openai_keys,
    trimmed,
    windows,
)

__all__ = ["SecretHit", "looks_random", "scan_secrets"]


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
    ("PyPI token", PypiTokenDetector()),
    ("SendGrid API key", SendGridDetector()),
    ("Twilio API key", TwilioKeyDetector()),
    ("Discord bot token", DiscordBotTokenDetector()),
    ("Azure storage key", AzureStorageKeyDetector()),
    ("Mailchimp API key", MailchimpDetector()),
    ("Square OAuth secret", SquareOAuthDetector()),
)
_PRIVATE = PrivateKeyDetector()
_BASIC = BasicAuthDetector()
_KEYWORD = KeywordDetector()

_OWN_TOKENS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("Anthropic API key", re.compile(r"\bsk-ant-[a-z]{3,6}\d{0,3}-[A-Za-z0-9_-]{20,}")),
    ("OpenAI API key", re.compile(r"\bsk-(?:proj|svcacct|admin)-[A-Za-z0-9_-]{20,}")),
    ("GitHub token", re.compile(r"\bgithub_pat_[A-Za-z0-9_]{40,}")),
    ("Google API key", re.compile(r"\bAIza[0-9A-Za-z_-]{35}\b")),
    ("Slack token", re.compile(r"\bxox[abposr]-[A-Za-z0-9-]{10,}")),
)
_OWN_PRIVATE = re.compile(r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----")
_TOKEN_ASSIGN = re.compile(
    r"(?i)(?:token|apikey|api[_-]key|access[_-]?key|secret|passw(?:or)?d|pwd|auth[_-]?key)"
    r"[\w.-]{0,40}[\"']?\s{0,8}(?:=|:=|=>|:)\s{0,8}([\"'])([^\s\"']{8,200})\1"
)
_ENV_ASSIGN = re.compile(
    r"^\s{0,16}(?:export\s+)?[A-Za-z0-9_]{0,60}"
    r"(?:TOKEN|SECRET|PASSWORD|PASSWD|API_?KEY|ACCESS_?KEY|AUTH_?KEY)"
    r"[A-Za-z0-9_.-]{0,60}\s{0,8}[=:]\s{0,8}([^\s\"'#][^\s\"']{7,199})\s*$",
    re.IGNORECASE,
)
_ENV_LINE = re.compile(r"^\s{0,16}(?:ENV|ARG|export|set)\s+\w+=", re.IGNORECASE)
_ENV_PAIR = re.compile(
    r"(?<!\S)[A-Za-z0-9_]{0,60}(?:TOKEN|SECRET|PASSWORD|PASSWD|API_?KEY|ACCESS_?KEY|AUTH_?KEY)"
    r"[A-Za-z0-9_]{0,60}=([^\s\"']{8,200})(?=\s|$)",
    re.IGNORECASE,
)
"""Each secret-named pair of a line that sets several (a Dockerfile's ``ENV``)."""
_SETTINGS_EXT = re.compile(r"\.(?:ya?ml|toml|properties|ini|conf|cfg)$", re.IGNORECASE)
"""Settings files: ``password: value`` there is an assignment, read like an env file's."""
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
    r"example[\w-]*|(?:os\.)?environ.*|getenv.*|env\..*|"
    r"(?:change|replace|fill|set|put)[-_]?(?:me|it|this)[\w-]{0,20}|fill[-_]?in|todo|tbd)$"
)


_DEFAULT_CREDENTIALS = frozenset(
    ["postgres", "mysql", "mariadb", "mongodb", "rabbitmq", "minioadmin", "vagrant", "docker"]
)
"""Database and broker images' documented default passwords, as test services and local
compose files set them: a weak default, not a leaked secret."""


def _is_placeholder(value: str, line: str) -> bool:
    v = value.strip()
    low = v.lower()
    if len(v) < 6 or _PLACEHOLDER.match(v) or low in _FIELD_WORDS or low in _DEFAULT_CREDENTIALS:
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


def _assigned(path: str | None, line: str) -> Iterator[tuple[str, str, str]]:
    """Values assigned to secret-looking names: ``(value, detector, the text it was found
    in)``; a long line is read in windows, its long words trimmed (linear time)."""
    filetype = determine_file_type(path or "")
    table = REGEX_BY_FILETYPE.get(filetype, QUOTES_REQUIRED_DENYLIST_REGEX_TO_GROUP)
    regexes = keyword_regexes(table)
    for part in windows(trimmed(line), KEYWORD_WINDOW, KEYWORD_OVERLAP):
        for value in _KEYWORD.analyze_string(part, denylist_regex_to_group=regexes):
            yield str(value), "detect-secrets", part
        for m in _TOKEN_ASSIGN.finditer(part):
            yield m.group(2), "humangr", part
    if (not _CODE_EXT.search(path or "") or _SETTINGS_EXT.search(path or "")) and len(
        line
    ) <= KEYWORD_WINDOW:
        env = _ENV_ASSIGN.match(line)
        if env:
            yield env.group(1), "humangr", line
        elif _ENV_LINE.match(line):  # ``ENV A=… B=…`` of a Dockerfile, ``export A=… B=…``
            for m in _ENV_PAIR.finditer(line):
                yield m.group(1), "humangr", line


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


def _found(line: str, detector: Any) -> list[str]:
    return [str(v) for part in windows(line) for v in detector.analyze_string(part)]


def _any_of(patterns: Iterable[re.Pattern[str]]) -> re.Pattern[str]:
    """One pattern that matches where any of ``patterns`` matches (each with its own flags,
    scoped): a text it finds nothing in matches none of them, so they are tried one by one
    only on a text it matches."""
    scoped = []
    for rx in patterns:
        flags = "".join(
            letter
            for letter, flag in (("i", re.I), ("m", re.M), ("s", re.S), ("x", re.X))
            if rx.flags & flag
        )
        scoped.append(f"(?{flags}:{rx.pattern})" if flags else f"(?:{rx.pattern})")
    return re.compile("|".join(scoped))


_ANY_TOKEN = _any_of(rx for _, detector in _TOKEN_DETECTORS for rx in detector.denylist)
_ANY_OWN = _any_of(rx for _, rx in _OWN_TOKENS)


def _masked(value: str) -> bool:
    """A key written as its mask (``xxxxxxxx…-us14``, ``AKIAXXXXXXXXXXXXXXXX``): most of it
    one filler character, as templates and docs write a value to fill in."""
    body = re.sub(r"[-_.]", "", value)
    if len(body) < 8:
        return False
    filler = max("xX*0#", key=body.count)
    return body.count(filler) >= 0.6 * len(body)


def _token_hit(line: str, test_file: bool) -> SecretHit | None:
    found = [v for v in aws_keys(line) if not _masked(v)]
    if found:
        return _token("AWS credential", found, "detect-secrets", test_file)
    if any(_ANY_TOKEN.search(part) for part in windows(line)):
        for kind, det in _TOKEN_DETECTORS:
            found = [v for v in _found(line, det) if not _masked(v)]
            if found:
                return _token(kind, found, "detect-secrets", test_file)
    for kind, linear in (("OpenAI API key", openai_keys), ("npm token", npm_tokens)):
        found = [v for v in linear(line) if not _masked(v)]
        if found:
            return _token(kind, found, "detect-secrets", test_file)
    if not any(_ANY_OWN.search(part) for part in windows(line)):
        return None
    for kind, rx in _OWN_TOKENS:
        m = next((m for part in windows(line) if (m := rx.search(part))), None)
        if m:
            return _token(kind, [m.group(0)], "humangr", test_file)
    return None


_LOCAL_DEFAULT = re.compile(
    r"://([^\s:/@'\"<>]{1,64}):([^\s/@'\"<>]{1,64})@(?:localhost|127\.0\.0\.1|\[::1\]|db|database|"
    r"postgres|postgresql|mysql|mariadb|redis|mongo|mongodb)(?=[:/\s'\"]|$)"
)
"""A URL's credentials on this machine or a compose service, the user's name as password
(``postgres://app:app@localhost``): a development default, not a leaked secret."""


def _url_hit(line: str, test_file: bool) -> SecretHit | None:
    local = _LOCAL_DEFAULT.search(line)
    if local is not None and local.group(1) == local.group(2):
        return None
    sev = "low" if test_file else "high"
    for part in windows(line):
        for value in _BASIC.analyze_string(part):
            if not _is_placeholder(str(value), part):
                return SecretHit("credentials in a URL", sev, "detect-secrets")
    for part in windows(line):
        for m in _URL_PASSWORD.finditer(part):  # reserved characters detect-secrets leaves out
            value = m.group(1)
            if not _TEMPLATED.search(value) and not _is_placeholder(value, part):
                return SecretHit("credentials in a URL", sev, "humangr")
    return None


CLEAN_CHARS = 2_000
"""Lines up to this long found clean are remembered (``CLEAN_LINES`` of them): agents send the
same commands and texts again and again."""
CLEAN_LINES = 2_048
_clean: CleanTexts[tuple[str | None, str, bool]] = CleanTexts(
    limit=CLEAN_LINES, max_chars=CLEAN_CHARS
)
"""Short lines scanned and found clean (a line with a secret is never kept)."""


def scan_secrets(path: str | None, line: str, *, test_file: bool) -> SecretHit | None:
    """The most specific secret on ``line`` (read whole, however long, in linear time), or
    None.

    In test files (``test_file``) private keys (test certificates), JWTs, passwords and URL
    credentials are low, provider keys and tokens low when they look fake and high otherwise.
    """
    key = (path, line, test_file)
    if key in _clean:
        return None
    hit = _scan(path, line, test_file)
    if hit is None:
        _clean.keep(key, line)
    return hit


def _scan(path: str | None, line: str, test_file: bool) -> SecretHit | None:
    key_sev = "low" if test_file else "critical"
    if any(True for part in windows(line) for _ in _PRIVATE.analyze_string(part)):
        return SecretHit("private key", key_sev, "detect-secrets")
    if _OWN_PRIVATE.search(line):
        return SecretHit("private key", key_sev, "humangr")
    hit = _token_hit(line, test_file)
    if hit is not None:
        return hit
    if next(jwt_tokens(line), None) is not None:
        return SecretHit("JSON Web Token", "low" if test_file else "high", "detect-secrets")
    hit = _url_hit(line, test_file)
    if hit is not None:
        return hit
    if not _KEYWORD_HINT.search(line):
        return None
    best: SecretHit | None = None
    for value, origin, part in _assigned(path, line):
        if _is_placeholder(value, part) or name_like(value):
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
        if sev == "critical":
            break
    return best
