"""Keep credentials out of every message, log and report.

``redact_urls`` hides the user-info of every URL in a text (``http://user:pass@host`` →
``http://***@host``); ``redact_url`` does it for one URL. Use them on anything that may echo a
configured URL back: connection errors, LLM transport errors, command output.
"""

from __future__ import annotations

import re

__all__ = ["REDACTED", "redact_url", "redact_urls"]

REDACTED = "***"
_USERINFO = re.compile(
    r"(?P<scheme>\b[A-Za-z][A-Za-z0-9+.-]*://)(?P<userinfo>[^/?#\s@\"'<>]*)@", re.ASCII
)


def redact_urls(text: str) -> str:
    """``text`` with the user-info (user name, password, token) of every URL replaced."""
    if "@" not in text:
        return text
    return _USERINFO.sub(lambda m: f"{m['scheme']}{REDACTED}@", text)


def redact_url(url: str) -> str:
    """One URL without its user-info."""
    return redact_urls(url)
