"""Variables that ship to every browser: a name under a front-end framework's public prefix
(``NEXT_PUBLIC_``, ``VITE_``, ``REACT_APP_``…) is built into the pages visitors download, so a
secret named that way is public from the next deploy. One reading for every reader: ``exposure``
(any text: a command, a file, an HTTP body) and the business tools' readers (a hosting
platform's environment variables). Publishable and anonymous keys are meant to be public."""

from __future__ import annotations

import re

__all__ = ["BROWSER_ANCHORS", "BROWSER_SECRET", "browser_secret", "browser_variable"]

_PREFIXES = (
    "NEXT_PUBLIC", "VITE", "REACT_APP", "EXPO_PUBLIC", "NUXT_PUBLIC", "GATSBY", "PUBLIC",
    "VUE_APP", "STORYBOOK",
)  # fmt: skip
_PREFIX = rf"(?:{'|'.join(_PREFIXES)})_"
BROWSER_ANCHORS = tuple(f"{prefix.casefold()}_" for prefix in _PREFIXES)
"""Casefolded words every browser variable's name contains (for readers gated by anchors)."""
_MEANT_PUBLIC = r"(?:PUBLISHABLE|ANON|PUBLIC_KEY|SITE_?KEY)"
_SECRET = (
    r"(?:SECRET|PRIVATE|PASSWORD|PASSWD|ADMIN_TOKEN|ADMIN_KEY|SERVICE_ROLE|API_SECRET|"
    r"CLIENT_SECRET|SIGNING_KEY|SIGNING_SECRET)"
)
BROWSER_SECRET = re.compile(
    rf"\b{_PREFIX}(?![A-Z0-9_]*{_MEANT_PUBLIC})[A-Z0-9_]*{_SECRET}[A-Z0-9_]*\b"
)
"""A secret's name under a public prefix, in any text (names are upper case there)."""
_VARIABLE = re.compile(rf"(?i)^{_PREFIX}\w+")


def browser_variable(name: str) -> bool:
    """Whether the variable ``name`` (any case) ships to the browser."""
    return _VARIABLE.match(name.strip()) is not None


def browser_secret(name: str) -> bool:
    """Whether ``name`` is a secret's name under a public prefix (any case)."""
    return BROWSER_SECRET.fullmatch(name.strip().upper()) is not None
