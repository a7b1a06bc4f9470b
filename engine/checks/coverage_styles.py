"""Stylesheets whose added lines are only looks (for ``coverage``): colours, sizes, layout.

A stylesheet reaches out or runs something only through a few constructs: ``url(…)`` and
``@import`` (a request to a host, a tracking pixel, an exfiltrating selector), ``expression(…)``,
``behavior:`` and ``-moz-binding`` (code in old browsers) and ``javascript:``. An added line
with none of these is read whole; one with any stays unread, so it still needs a person when
no LLM reviews it."""

from __future__ import annotations

import re
from collections.abc import Sequence

__all__ = ["STYLE_EXTENSIONS", "plain_style"]

STYLE_EXTENSIONS = frozenset([".css", ".scss", ".sass", ".less", ".styl"])
_ACTIVE = re.compile(
    r"(?i)url\s*\(|@import|@use|@forward|expression\s*\(|behavior\s*:|-moz-binding|"
    r"javascript:|\\[0-9a-f]{1,6}|<|image-set\s*\(|@font-face|src\s*:"
)
"""What makes a style line more than looks: a request out, code, an escape that hides one."""
_MAX_LINES = 2_000


def plain_style(added: Sequence[str]) -> bool:
    """Whether every added stylesheet line is plain looks: no request to a host, no code."""
    if len(added) > _MAX_LINES:
        return False
    return not any(_ACTIVE.search(line) for line in added)
