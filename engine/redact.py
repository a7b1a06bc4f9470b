"""Keep credentials out of every message, log and report.

``redact_urls`` hides the user-info of every URL in a text (``http://user:pass@host`` →
``http://***@host``); ``redact_url`` does it for one URL. Use them on anything that may echo a
configured URL back: connection errors, LLM transport errors, command output.

``redact_secrets`` goes further, for text that may carry anything (the bytes of a refused
message, an error echoing its input): URL credentials, private key blocks, tokens of known
formats (AWS, GitHub, Slack, Stripe, Anthropic, OpenAI, JWT, …), the values of password-,
secret-, token- and key-like fields, and whatever the engine's secret detector flags, token by
token.

``install_log_redaction`` (the command line installs it) does it for every log record.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Sequence
from typing import Any

__all__ = [
    "REDACTED",
    "RedactingFilter",
    "install_log_redaction",
    "redact_record",
    "redact_secrets",
    "redact_seed_urls",
    "redact_url",
    "redact_urls",
]

log = logging.getLogger("humangr.redact")

REDACTED = "***"
# The user-info runs to the last "@" before the host ("user:p@ss@host" hides "user:p@ss");
# every part is matched possessively, so hostile text costs linear time.
_USERINFO = re.compile(
    r"(?P<scheme>\b[A-Za-z][A-Za-z0-9+.-]{0,30}+://)(?P<userinfo>(?:[^/?#\s\"'<>@]*+@)++)",
    re.ASCII,
)


_QUERY_PAIR = re.compile(r"(?P<key>[?&;](?P<name>[\w.-]{1,60}+)=)(?P<value>[^&#\s\"'<>]++)")
_QUERY_NAME = re.compile(
    r"(?i)key|sig|signature|code|auth|pass|pw|apikey|x-api-key|jwt|session|bearer|access"
)
"""Short query parameter names that carry a credential (``?key=…``, ``&sig=…``); longer ones
are those ``_KEYWORD`` finds (``&access_token=…``, ``?client_secret=…``)."""


def _query_value(m: re.Match[str]) -> str:
    if _QUERY_NAME.fullmatch(m["name"]) or _KEYWORD.search(m["name"]):
        return f"{m['key']}{REDACTED}"
    return m[0]


def redact_urls(text: str) -> str:
    """``text`` with the user-info (user name, password, token) of every URL replaced, up to
    the last ``@`` of the authority, as a URL parser reads it (``http://u:p@ss@host``), and
    the values of query parameters that carry credentials (``?key=…``, ``&token=…``)."""
    if "@" in text:
        text = _USERINFO.sub(lambda m: f"{m['scheme']}{REDACTED}@", text)
    if "=" in text:
        text = _QUERY_PAIR.sub(_query_value, text)
    return text


def redact_url(url: str) -> str:
    """One URL without its user-info."""
    return redact_urls(url)


def _redact_seed(entry: str) -> str:
    scheme, sep, rest = entry.partition("://")
    if not sep:
        scheme, rest = "", entry
    if "@" in rest:  # whatever it holds (spaces too): a bare ``user:pass@host`` is a URL to NATS
        rest = f"{REDACTED}@{rest.rsplit('@', 1)[1]}"
    return redact_urls(f"{scheme}{sep}{rest}")


def redact_seed_urls(urls: str | Sequence[str]) -> str:
    """A NATS seed list (``"nats://u:p@a:4222,b:4222"`` or a sequence of URLs) to show: each
    URL without its user-info, even one without a scheme or with a space inside, joined by
    ``", "``."""
    entries = urls.split(",") if isinstance(urls, str) else [str(url) for url in urls]
    return ", ".join(_redact_seed(entry.strip()) for entry in entries)


_PRIVATE_KEY = re.compile(
    r"-----BEGIN[A-Z0-9 ]{0,40}PRIVATE KEY[A-Z ]{0,10}-----"
    r".*?(?:-----END[A-Z0-9 ]{0,40}PRIVATE KEY[A-Z ]{0,10}-----|\Z)",
    re.DOTALL,
)
_KNOWN_TOKENS = re.compile(
    "|".join(
        (
            r"\b(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AROA|AIPA|ANPA|ANVA)[A-Z0-9]{16}\b",
            r"\bsk-ant-[A-Za-z0-9_-]{16,}",
            r"\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}",
            r"\bgh[pousr]_[A-Za-z0-9]{30,}",
            r"\bgithub_pat_[A-Za-z0-9_]{30,}",
            r"\bglpat-[A-Za-z0-9_-]{20,}",
            r"\bxox[abposr]-[A-Za-z0-9-]{10,}",
            r"\b[rs]k_(?:live|test)_[A-Za-z0-9]{16,}",
            r"\bAIza[0-9A-Za-z_-]{35}",
            r"\bnpm_[A-Za-z0-9]{36}",
            r"\bpypi-[A-Za-z0-9_-]{40,}",
            r"\bsq0(?:csp|atp)-[0-9A-Za-z_-]{22,}",
            r"(?<![\w-])SG\.[A-Za-z0-9_-]{16,}+\.[A-Za-z0-9_-]{16,}+",
            r"(?<![\w-])eyJ[A-Za-z0-9_-]{8,}+\.[A-Za-z0-9_-]{8,}+\.[A-Za-z0-9_-]*+",
        )
    )
)
_NKEY_SEED = re.compile(r"(?<![A-Z2-7])S[ACNOUX][A-Z2-7]{56}(?![A-Z2-7])")
"""An nkey seed (``SU…`` user, ``SA…`` account, ``SN…`` server, …): 58 base32 characters."""
_KEY_BODY = re.compile(
    r"(?<![A-Za-z0-9+/])(?:M[IHC][A-Za-z0-9+/]{38}|b3BlbnNzaC1rZXktdjE)[A-Za-z0-9+/]*+"
    r"(?:(?:\\r)?\\n(?:\\r)?|\r?\n[ \t]*+)?+(?:[A-Za-z0-9+/]{16,}+"
    r"(?:(?:\\r)?\\n|\r?\n[ \t]*+)?+)*+=*+"
)
"""A private key's body without its PEM header: base64 DER (``MII…``, ``MHc…``, ``MC4…``) or an
OpenSSH key, on one line or many (real or JSON-escaped line breaks)."""
_BASE64_BLOCK = re.compile(
    r"(?m)^[ \t]*+[A-Za-z0-9+/]{40,}+={0,2}[ \t]*+"
    r"(?:\r?\n[ \t]*+[A-Za-z0-9+/]{16,}+={0,2}[ \t]*+)++$"
)
"""Two or more lines of nothing but base64 (a PEM body of any kind, header cut off)."""
_STRICT_NAME = (
    r"(?i:(?:client[_-]?|db[_-]?|admin[_-]?|user[_-]?)?"
    r"(?:passw(?:or)?d|passphrase|pwd|pass|secret|api[_-]?key|apikey|access[_-]?key"
    r"|secret[_-]?key|private[_-]?key|(?:access|auth|refresh|bearer|api)?[_-]?token"
    r"|credentials?|seed|nkey))"
)
_QUOTE = r"(?:\\*+[\"'])?+"
"""An opening quote, JSON-escaped any number of times (``\\"`` inside a JSON string)."""
_LONE_BACKSLASH = r"\\++(?![\"'])"
"""Backslashes inside a value, but not the escape of its closing quote."""
_ESCAPED_PAIR = re.compile(
    r"(?<!\\)(?P<key>(?P<e>\\++)\"(?P<name>[^\"\\\n]{1,120}+)(?P=e)\"\s*+[:=]\s*+)"
    r"(?P<q>(?P=e)\")(?P<value>(?:[^\"\\\n]|\\++(?!\"))*+)(?P=q)"
)
"""``\\"password\\": \\"x\\"``: a JSON object inside a JSON string (a tool call's arguments)."""
_COLON_PAIR = re.compile(
    rf"(?<![\w.$-])(?P<key>(?P<name>{_STRICT_NAME}):[ \t]++)"
    rf"(?P<q>{_QUOTE})(?P<value>(?:[^\s\"',;}}\]\\]|{_LONE_BACKSLASH})++)"
)
"""``password: x`` anywhere on a line (``_YAML_PAIR`` takes the start of a line), for the names
of ``_STRICT_NAME`` only: ``…input_tokens: Expected`` in an error stays as it is."""
_AUTH_HEADER = re.compile(r"(?i)\b((?:bearer|basic|token)\s++)[A-Za-z0-9._~+/-]{12,}+=*")
_KEYWORD = re.compile(
    r"(?i)passw(?:or)?d|passphrase|pwd|secret|token|api[_-]?key|access[_-]?key|private[_-]?key"
    r"|auth[_-]?(?:key|token)|authorization|credential|session[_-]?(?:id|key)|cookie"
    r"|(?:account|shared|master|signing|encryption|client)[_-]?key|nkey|signing[_-]?seed"
)
# Keys are matched whole and possessively (no backtracking into them), then checked for a
# keyword: linear time on hostile input.
_QUOTED_PAIR = re.compile(
    r"(?P<key>([\"'])(?P<name>[^\"'\n]{1,120}+)\2\s*+[:=]\s*+)"
    r"(?P<q>[\"'])(?P<value>(?:\\.|(?!(?P=q))[^\\\n])*+)(?P=q)"
)
_ASSIGNED = re.compile(
    r"(?<![\w.-])(?P<key>(?P<name>[\w.-]{1,120}+)\s*+(?:=>|:=|=)\s*+)"
    rf"(?P<q>{_QUOTE})(?P<value>(?:[^\s\"'&;,)}}\]\\]|{_LONE_BACKSLASH})++)"
)
_YAML_PAIR = re.compile(
    r"(?m)^(?P<key>[ \t-]{0,16}+(?P<name>[\w.-]{1,120}+):[ \t]++)"
    rf"(?P<q>{_QUOTE})(?P<value>(?:[^\s\"'#\\]|{_LONE_BACKSLASH})++)"
)
_CANDIDATE = re.compile(r"[^\s\"'`,;{}\[\]()<>]{16,}+")
_SCAN_WINDOW = 64_000
_SCAN_TOKEN = 256
_KEYWORD_HINT = re.compile(r"(?i)key|pass|pwd|secret|token|contrase")
"""The detector is given tokens of known formats only: one longer than ``_SCAN_TOKEN`` or
holding a keyword (``password=…``, which the patterns above handle) would cost it time that
grows with the square of its length."""


def _value(m: re.Match[str]) -> str:
    if not _KEYWORD.search(m["name"]):
        return m[0]
    return f"{m['key']}{m['q']}{REDACTED}"


def _value_quoted(m: re.Match[str]) -> str:
    if not _KEYWORD.search(m["name"]):
        return m[0]
    return f"{m['key']}{m['q']}{REDACTED}{m['q']}"


def redact_secrets(text: str) -> str:
    """``text`` with every credential that the patterns here or the secret detector find
    replaced by ``***``. Meant for short texts (dead letters, errors): the detector looks at
    the first 64,000 characters only; the patterns cover all of it."""
    text = redact_urls(text)
    text = _PRIVATE_KEY.sub(REDACTED, text)
    text = _BASE64_BLOCK.sub(REDACTED, text)
    text = _KEY_BODY.sub(REDACTED, text)
    text = _NKEY_SEED.sub(REDACTED, text)
    text = _KNOWN_TOKENS.sub(REDACTED, text)
    text = _AUTH_HEADER.sub(lambda m: f"{m[1]}{REDACTED}", text)
    text = _QUOTED_PAIR.sub(_value_quoted, text)
    if "\\" in text:
        text = _ESCAPED_PAIR.sub(_value_quoted, text)
    text = _ASSIGNED.sub(_value, text)
    text = _YAML_PAIR.sub(_value, text)
    text = _COLON_PAIR.sub(lambda m: f"{m['key']}{m['q']}{REDACTED}", text)
    detector = _detector()
    if detector is None:
        return text
    head, tail = text[:_SCAN_WINDOW], text[_SCAN_WINDOW:]
    return _CANDIDATE.sub(lambda m: _scanned(m[0], detector), head) + tail


def _scanned(token: str, detector: Callable[[str], bool]) -> str:
    if len(token) > _SCAN_TOKEN or _KEYWORD_HINT.search(token):
        return token
    try:
        return REDACTED if detector(token) else token
    except Exception as exc:  # the detector is an extra; the patterns above already ran
        log.debug("secret detector failed on a token: %s", type(exc).__name__)
        return token


_detector_cache: list[Callable[[str], bool] | None] = []


def _detector() -> Callable[[str], bool] | None:
    """``scan_secrets`` of ``engine.checks`` on one token, or None if it cannot be loaded."""
    if not _detector_cache:
        try:
            from humangr.engine.checks.secrets import scan_secrets

            def detect(token: str) -> bool:
                return scan_secrets(None, token, test_file=False) is not None

            _detector_cache.append(detect)
        except Exception as exc:  # a missing or changed detector leaves the patterns working
            log.warning("secret detector unavailable, redacting by pattern only: %s", exc)
            _detector_cache.append(None)
    return _detector_cache[0]


def redact_record(record: logging.LogRecord) -> logging.LogRecord:
    """``record`` with URL credentials removed from its message, exception and stack texts
    (the message is formatted once, so its arguments cannot carry them either)."""
    try:
        message = record.getMessage()
    except Exception:
        message = f"{record.msg!s} (arguments {record.args!r})"
    shown = redact_urls(message)
    if shown != message or record.args:
        record.msg, record.args = shown, None
    if record.exc_info and not record.exc_text:
        record.exc_text = logging.Formatter().formatException(record.exc_info)
    if record.exc_text:
        record.exc_text = redact_urls(record.exc_text)
    if record.stack_info:
        record.stack_info = redact_urls(record.stack_info)
    return record


class RedactingFilter(logging.Filter):
    """A logging filter that removes URL credentials from every record it sees."""

    def filter(self, record: logging.LogRecord) -> bool:
        redact_record(record)
        return True


_installed = False


def install_log_redaction() -> None:
    """Redact URL credentials from every log record made in this process from now on, whatever
    logger or handler it goes to (the record factory redacts each record as it is made)."""
    global _installed
    if _installed:
        return
    make = logging.getLogRecordFactory()

    def factory(*args: Any, **kwargs: Any) -> logging.LogRecord:
        return redact_record(make(*args, **kwargs))

    logging.setLogRecordFactory(factory)
    _installed = True
