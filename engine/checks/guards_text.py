"""What a validated text may still hold: the characters an allow-list lets through and what
an anchored pattern lets match, read as the sink kinds such text is safe for.

Pure helpers of the guards (``guards.py``); patterns are tried on a few short texts only, and
their flags never include ``re.DEBUG``.
"""

from __future__ import annotations

import re

from .flow import KINDS, PATH

__all__ = ["NEGATED_CLASS", "NOT_PATH", "RISKY_CHARS", "charset_kinds", "pattern_kinds"]

NOT_PATH = tuple(k for k in KINDS if k != PATH)
"""Every sink kind but file paths."""

RISKY_CHARS = frozenset(";|&$`'\"<>()[]{}*?!~#%\\\n\r\t =,+:@^")
"""Characters that change the meaning of a command, a query or a path when they get in."""
NEGATED_CLASS = re.compile(r"^\[\^(?:\\.|[^\]\\]){1,200}\][+]?$")
"""A single negated character class: ``[^a-z0-9_-]`` (optionally ``+``)."""


def charset_kinds(allowed: set[str] | frozenset[str]) -> tuple[int, ...] | None:
    """The sink kinds a value made only of ``allowed`` characters is safe for: every kind
    for letters, digits, ``_`` and ``-``; all but file paths when ``.``, ``/`` or ``\\`` may
    appear; none when any other punctuation may."""
    if allowed & RISKY_CHARS:
        return None
    if allowed & {".", "/", "\\"}:
        return NOT_PATH
    return KINDS


_INJECTIONS = (";", "a;b", "a|b", "a&b", "$(id)", "`id`", "a'b", 'a"b', "a\nb", "a<b", "a>b")
"""Short texts that break out of a command or a quoted SQL value."""
_TRAVERSALS = ("..", "../x", "/x", "a/../b", "..\\x")
_FLAGS = re.IGNORECASE | re.MULTILINE | re.DOTALL | re.VERBOSE | re.ASCII | re.UNICODE
"""Pattern flags honoured (never ``re.DEBUG``, which prints while compiling)."""


def pattern_kinds(text: str, method: str, flags: int) -> tuple[int, ...] | None:
    """The sink kinds a value is safe for once it (full-)matches ``text``: none when the
    pattern lets an injection through (``.*``, ``\\S+``), all but paths when it lets a
    traversal through, every kind otherwise. Patterns are tried on a few short texts only."""
    if len(text) > 500:
        return None
    try:
        rx = re.compile(text, flags & _FLAGS)
    except (re.error, ValueError, TypeError, OverflowError):
        return None
    matches = rx.fullmatch if method == "fullmatch" else rx.match
    if any(matches(t) is not None for t in _INJECTIONS):
        return None
    return NOT_PATH if any(matches(t) is not None for t in _TRAVERSALS) else KINDS
