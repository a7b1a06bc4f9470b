"""What a link's query carries out in disguise, each high (for ``http``):

- a parameter whose value is base64 (standard or URL-safe, 24 characters or more) of a
  credential — ``user:password``, ``DOMAIN\\user:password``, or JSON naming a ``token``,
  ``password``, ``secret``, ``session`` or an API key — or of people's records (two or more
  records with dates, separated by ``;`` or lines): a health ping or a "translate" link that
  is really an upload;
- a parameter whose value is itself a signed storage access string (``sv=…&sig=…``, an SAS
  token or a pre-signed URL's signature): whoever receives the link can use the storage.

Everyday neighbours run: a pagination cursor or an OAuth ``state`` in base64 of JSON without
credential keys (``{"page": 3}``, ``{"returnTo": "/x"}``), a JWT (its segments are dotted), and
a storage URL whose own query is the signature (that is how it is called). Bounded: at most
100 parameters of the first 8,000 characters; each value decoded up to 4,000 characters.
Pure.
"""

from __future__ import annotations

import base64
import binascii
import re
from urllib.parse import parse_qsl, unquote

from .http_call import HttpCall

__all__ = ["encoded_query_leak"]

_WINDOW = 8_000
_DECODE = 4_000
_B64 = re.compile(r"[A-Za-z0-9+/_-]{24,}={0,2}")
_BASIC = re.compile(r"^[\w.@\\-]{1,64}:(\S{6,128})$")
_CRED_KEY = re.compile(
    r"""(?i)["'](?:password|passwd|pwd|secret|client_secret|api_?key|apikey|access_?token|"""
    r"""auth_?token|refresh_?token|token|session(?:_?id)?|sid|private_?key)["']\s*:\s*["']?[^"'\s,}]{6}"""
)
_DATE = re.compile(r"\b(?:19|20)\d\d-[01]\d-[0-3]\d\b")
_SIGNED = re.compile(r"(?i)(?:^|&)sig=[^&]{16,}")
_SIGNED_WITH = re.compile(r"(?i)(?:^|&)(?:sv|se|sp|x-amz-credential|x-goog-credential)=")


def _decoded(value: str) -> str | None:
    """``value`` decoded from base64 when it is base64 of mostly printable text; else None."""
    if _B64.fullmatch(value) is None:
        return None
    raw = value[: _DECODE * 4 // 3].replace("-", "+").replace("_", "/").rstrip("=")
    raw = raw[: len(raw) - len(raw) % 4 if len(raw) % 4 == 1 else len(raw)]
    try:
        data = base64.b64decode(raw + "=" * (-len(raw) % 4))
    except (binascii.Error, ValueError):
        return None
    text = data.decode("utf-8", errors="replace")
    printable = sum(c.isprintable() or c in "\n\t" for c in text)
    return text if text and printable >= 0.95 * len(text) else None


def _kinds(secret: str) -> int:
    return sum(
        (
            any(c.isalpha() for c in secret),
            any(c.isdigit() for c in secret),
            any(not c.isalnum() for c in secret),
        )
    )


def _carried(text: str) -> str | None:
    """What decoded text ``text`` is, when it should not travel in a link."""
    basic = _BASIC.match(text.strip())
    secret = basic.group(1) if basic is not None else ""
    if any(c.isalpha() for c in secret) and _kinds(secret) >= 2:
        return "a user name and password"
    if _CRED_KEY.search(text):
        return "a credential or a session"
    if len(_DATE.findall(text[:_DECODE])) >= 2 and (text.count(";") + text.count("\n")) >= 1:
        return "people's records"
    return None


def encoded_query_leak(call: HttpCall) -> str | None:
    """The title of what the request's query carries out encoded (see the module)."""
    url = call.url
    if url is None or len(url.query) < 24:
        return None
    for _, value in parse_qsl(url.query[:_WINDOW], keep_blank_values=False)[:100]:
        if len(value) < 24:
            continue
        if "sig=" in value.lower() and _SIGNED.search(value) and _SIGNED_WITH.search(value):
            return "passes a signed storage access token inside a link to another service"
        decoded = _decoded(unquote(value) if "%" in value else value)
        what = _carried(decoded) if decoded is not None else None
        if what is not None:
            return f"hides {what} in a link's query, encoded in base64"
    return None
