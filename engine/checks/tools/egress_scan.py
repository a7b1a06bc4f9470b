"""What a payload about to leave carries: secrets (``scan_secrets``, with the field name each
value is sent under) and personal data, read through JSON text, form encoding and base64.

Bounded: at most ``_MAX_NODES`` values, ``_MAX_DEPTH`` levels and ``_MAX_CHARS`` characters are
read; what lies beyond is reported by the caller as not fully reviewed.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qsl

from ..secrets import scan_secrets
from .egress_unescape import unescaped
from .personal_data import PersonalData, scan_personal
from .shell_decode import b64_text

__all__ = ["Carried", "Secret", "scan_payload", "secret_in", "service_token"]

_MAX_NODES = 5_000
_MAX_DEPTH = 32
_MAX_CHARS = 1_000_000
_MAX_LINES = 2_000
_MAX_TEXT = 200_000
"""Characters of one string read for personal data (``personal_data`` reads no more)."""
_SECRET_KEY = re.compile(
    r"(?i)pass(?:word|wd|phrase)?$|^pwd$|secret|token|api_?key|apikey|private_?key|access_?key"
    r"|credential|auth(?:orization)?$|session_?id|cookie"
)
_SYSTEM_FILES = (
    (
        "copy of /etc/shadow",
        re.compile(r"(?m)^[a-z_][\w.-]{0,31}:\$(?:1|2[aby]|5|6|y|7)\$[^:\s]{8,}:"),
    ),
    (
        "copy of /etc/passwd",
        re.compile(r"(?m)^root:[x*!]?:0:0:[^\n]*\n(?:[^\n]*:\d+:\d+:[^\n]*\n?){2,}"),
    ),
)
"""What a stolen account file looks like: ``root:x:0:0:…`` followed by more accounts."""
_SERVICE_TOKENS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("Anthropic API key", re.compile(r"(?<![\w-])sk-ant-([\w-]{16,})")),
    ("OpenAI API key", re.compile(r"(?<![\w-])sk-(?:proj|svcacct|admin)-([\w-]{16,})")),
    ("GitHub token", re.compile(r"(?<![\w-])(?:gh[pousr]_|github_pat_)(\w{16,})")),
    ("GitLab token", re.compile(r"(?<![\w-])glpat-([\w-]{12,})")),
    ("Slack token", re.compile(r"(?<![\w-])xox[abpr]-([\w-]{10,})")),
    ("Stripe live key", re.compile(r"(?<![\w-])[rs]k_live_(\w{12,})")),
    ("Stripe test key", re.compile(r"(?<![\w-])[rs]k_test_(\w{12,})")),
    ("SendGrid API key", re.compile(r"(?<![\w.-])SG\.([\w-]{8,}\.[\w-]{8,})")),
    ("npm token", re.compile(r"(?<![\w-])npm_(\w{16,})")),
    ("Okta API token", re.compile(r"(?<![\w-])SSWS\s+([\w-]{16,})")),
    ("Hugging Face token", re.compile(r"(?<![\w-])hf_([A-Za-z0-9]{16,})")),
    ("Shopify token", re.compile(r"(?<![\w-])shp(?:at|ca|pa|ss)_([0-9a-fA-F]{16,})")),
    ("DigitalOcean token", re.compile(r"(?<![\w-])do[opr]_v1_([0-9a-f]{16,})")),
    ("Linear API key", re.compile(r"(?<![\w-])lin_api_(\w{16,})")),
    ("Postman API key", re.compile(r"(?<![\w-])PMAK-([0-9a-f]{16,}-\w{8,})")),
)
"""Tokens known by the prefix their service gives them, read loosely (any length past a few
characters): a token that fails its exact format (a typo, a made-up value) is still meant
for that service. A bare ``sk-`` is left out: OpenAI and many others use it."""
_MADE_UP = re.compile(r"(?i)your|example|placeholder|redacted|changeme|dummy|x{6,}")
_BASE64 = re.compile(r"^[A-Za-z0-9+/_-]{20,}={0,2}$")
_FORM = re.compile(r"^[\w.%\[\]-]+=[^&]*(?:&[\w.%\[\]-]+=[^&]*)+$")
_BASE64_WORD = re.compile(r"(?<![\w+/=-])[A-Za-z0-9+/]{24,4096}={0,2}(?![\w+/=-])")
"""A base64 word inside prose (``env dump: U1RSSVBF…``): a secret encoded to slip past a
scanner is read decoded. Words of letters alone (a long identifier) are not tried."""
_MAX_WORDS = 8


@dataclass(frozen=True, slots=True)
class Secret:
    kind: str
    severity: str
    key: str
    """The field the value is sent under (``password``, ``headers.Authorization``), or ``""``."""


@dataclass(slots=True)
class Carried:
    """What one argument carries."""

    secrets: list[Secret] = field(default_factory=list)
    personal: PersonalData = field(default_factory=PersonalData)
    cut: bool = False
    """The payload was larger than the review reads."""


def secret_in(text: str, key: str = "") -> Secret | None:
    """The most specific secret in ``text`` sent under ``key``, or None."""
    for kind, pattern in _SYSTEM_FILES:
        if pattern.search(text[:_MAX_TEXT]):
            return Secret(kind, "critical", key)
    for line in text.splitlines()[:_MAX_LINES] or [text]:
        hit = scan_secrets(None, line, test_file=False)
        if hit is None and key and _SECRET_KEY.search(key) and line.strip():
            hit = scan_secrets(None, f'{key} = "{line.strip()[:400]}"', test_file=False)
        if hit is not None and hit.severity in ("critical", "high"):
            return Secret(hit.kind, hit.severity, key)
    return None


def service_token(text: str, limit: int = 4096) -> str | None:
    """The service whose token prefix a value carries (``ghp_…``: ``GitHub token``; ``SSWS
    …``: ``Okta API token``), read loosely; None for none and for made-up values
    (``ghp_xxxxxxxx…``, ``sk_live_your_key_here``)."""
    head = text[:limit]
    for kind, pattern in _SERVICE_TOKENS:
        m = pattern.search(head)
        if m is None:
            continue
        body = m.group(1)
        if len(set(body.lower())) >= 6 and not _MADE_UP.search(body):
            return kind
    return None


def _decoded(text: str) -> str | None:
    raw = text.strip().replace(" ", "+")  # a query string reads + as a space
    if len(raw) > 200_000 or not _BASE64.match(raw):
        return None
    return b64_text(raw)


class _Walk:
    def __init__(self, exclude: frozenset[str], samples: bool = False) -> None:
        self.exclude = exclude
        self.samples = samples
        self.out = Carried()
        self.nodes = 0
        self.chars = 0

    def value(self, value: Any, key: str, depth: int) -> None:
        self.nodes += 1
        if self.nodes > _MAX_NODES or depth > _MAX_DEPTH or self.chars > _MAX_CHARS:
            self.out.cut = True
            return
        if isinstance(value, dict):
            for k, v in value.items():
                self.value(v, str(k)[:64], depth + 1)
        elif isinstance(value, list | tuple):
            for v in value:
                self.value(v, key, depth + 1)
        elif isinstance(value, str):
            self.text(value, key, depth)
        elif isinstance(value, int) and not isinstance(value, bool) and value > 999_999:
            self.text(str(value), key, depth)

    def text(self, text: str, key: str, depth: int) -> None:
        self.chars += len(text)
        if len(text) > _MAX_TEXT or len(text.splitlines()) > _MAX_LINES:  # secret_in's limits
            self.out.cut = True
        stripped = text.strip()
        if stripped[:1] in "{[" and len(stripped) <= 262_144:
            try:
                self.value(json.loads(stripped), key, depth + 1)
                return
            except ValueError:
                pass
        if _FORM.match(stripped[:65_536]):
            for k, v in parse_qsl(stripped[:65_536])[:500]:
                self.text(v, k[:64], depth + 1)
            return
        found = secret_in(text, key)
        if found is not None:
            self.out.secrets.append(found)
        self.out.personal.merge(
            scan_personal(text, key, exclude=self.exclude, samples=self.samples)
        )
        decoded = _decoded(text) if depth < 4 else None
        decoded = decoded if decoded is not None or depth >= 4 else unescaped(text)
        if decoded is not None:
            self.text(decoded, key, depth + 2)
        elif depth < 4 and not found:
            for word in _encoded_words(text):
                self.text(word, key, depth + 2)


def _encoded_words(text: str) -> list[str]:
    """The base64 words of ``text`` (at most ``_MAX_WORDS``) that decode to text."""
    words: list[str] = []
    for m in _BASE64_WORD.finditer(text[:_MAX_TEXT]):
        word = m.group(0)
        if word.isalpha() or not any(c.isdigit() or c in "+/" for c in word):
            continue
        plain = b64_text(word)
        if plain is not None:
            words.append(plain)
        if len(words) >= _MAX_WORDS:
            break
    return words


def scan_payload(
    value: Any, key: str = "", *, exclude: frozenset[str] = frozenset(), samples: bool = False
) -> Carried:
    """The secrets and personal data in ``value`` (any JSON value; strings holding JSON, form
    data or base64 are read through); ``samples``: test card numbers and sample SSNs count."""
    walk = _Walk(exclude, samples)
    walk.value(value, key, 0)
    return walk.out
