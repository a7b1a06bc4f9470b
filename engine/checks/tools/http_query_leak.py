"""What a link carries in its query that should not leave in a link, each high:

- text marked privileged or confidential (``PRIVILEGED & CONFIDENTIAL``, ``attorney-client``,
  ``work product``, ``internal use only``, ``do not distribute``) put in a query string, where
  every proxy, log and the receiving service keep it;
- a password written into a search or lookup text (``q=… pass=R!x-2024 …``): a parameter's
  value holding ``password=…`` with a real-looking secret (placeholders such as ``***``,
  ``<password>``, ``${PASS}`` aside);
- an export asked of a server to be delivered to another site (``deliver_to=``,
  ``callback_url=``, ``webhook=`` naming an address whose site is not the request's own) on a
  path or query that names an export, a dump, a report or a backup.

Gated on the query's length and a substring test; the query read is bounded. Pure.
"""

from __future__ import annotations

import re
from urllib.parse import parse_qsl

from .http_call import HttpCall
from .prose_hosts import site_of

__all__ = ["query_leak"]

_WINDOW = 8_000
_MARKED = re.compile(
    r"(?i)privileged\s*(?:&|and)\s*confidential|attorney[\s-]+client\s+(?:privilege|communication)|"
    r"attorney\s+work\s+product|strictly\s+confidential|internal\s+use\s+only|"
    r"do\s+not\s+(?:distribute|forward|share)|confidential\s*(?:&|and)\s*proprietary"
)
_PASSWORD = re.compile(
    r"(?i)(?:^|[\s,;&(])(?:pass|passwd|password|pwd|passphrase|secret)\s*[=:]\s*([^\s,;&]{6,64})"
)
_PLACEHOLDER = re.compile(r"^(?:\*+|x+|<[^>]*>|\$\{?\w+\}?|%\w+%|\{\{.*\}\}|\.+|redacted)$", re.I)
_DESTINATION = re.compile(
    r"(?i)^(?:deliver(?:y)?_?(?:to|url)?|callback(?:_?url)?|webhook(?:_?url)?|notify_?url|"
    r"destination(?:_?url)?|dest(?:_?url)?|export_?to|send_?to|forward_?to|target_?url|"
    r"upload_?to|push_?to|sink(?:_?url)?)$"
)
_EXPORT = re.compile(r"(?i)export|dump|report|backup|download|extract|snapshot|bulk")


def _secret_like(value: str) -> bool:
    if _PLACEHOLDER.match(value):
        return False
    kinds = sum(
        (
            any(c.isalpha() for c in value),
            any(c.isdigit() for c in value),
            any(not c.isalnum() for c in value),
        )
    )
    return kinds >= 2


def query_leak(call: HttpCall) -> str | None:
    """The title of what the request's query carries out (see the module's docstring)."""
    url = call.url
    if url is None or len(url.query) < 8:
        return None
    pairs = parse_qsl(url.query[:_WINDOW], keep_blank_values=False)[:100]
    own = site_of(url.host.name)[0]
    for name, value in pairs:
        if _MARKED.search(value):
            return "puts text marked privileged or confidential into a link's query"
        if "=" in value or ":" in value:
            for m in _PASSWORD.finditer(value[:2_000]):
                if _secret_like(m.group(1)):
                    return "puts a password into a link's query text"
        if _DESTINATION.match(name) and value.lower().startswith(("http://", "https://")):
            host = value.split("/", 3)[2].rsplit("@", 1)[-1].split(":", 1)[0]
            if host and site_of(host)[0] != own and _EXPORT.search(f"{url.path} {url.query}"):
                return f"asks the server to deliver an export to another site ({host[:60]})"
    return None
