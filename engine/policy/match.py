"""Anchored globs for policy files: ``fnmatch`` syntax, translated once and cached, bounded.

``*`` matches any run of characters (``/`` included), ``?`` one character, ``[abc]`` one of a
set. A glob matches the whole text (anchored), case-sensitively. No arbitrary regex: a glob
longer than ``MAX_GLOB_CHARS`` or with more than ``MAX_WILDCARDS`` wildcards is refused, and
Python's translation of ``*`` uses atomic groups, so matching time stays linear in the text.
"""

from __future__ import annotations

import fnmatch
import functools
import re
from dataclasses import dataclass, field

__all__ = [
    "MAX_GLOB_CHARS",
    "MAX_MATCH_CHARS",
    "MAX_WILDCARDS",
    "Glob",
    "any_match",
    "glob_problem",
]

MAX_GLOB_CHARS = 1_024
MAX_WILDCARDS = 16
MAX_MATCH_CHARS = 262_144
"""Text longer than this never matches a glob (an ``allow`` then does not apply)."""
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")


def glob_problem(text: str) -> str | None:
    """Why ``text`` is not an acceptable glob, else ``None``."""
    if not text:
        return "an empty glob matches nothing; write `*` to match anything"
    if len(text) > MAX_GLOB_CHARS:
        return f"a glob of {len(text):,} characters; the limit is {MAX_GLOB_CHARS:,}"
    wildcards = text.count("*") + text.count("?")
    if wildcards > MAX_WILDCARDS:
        return f"a glob with {wildcards} wildcards; the limit is {MAX_WILDCARDS}"
    if _CONTROL.search(text):
        return "a glob with a control character"
    depth = 0
    for ch in text:
        if ch == "[":
            depth += 1
        elif ch == "]" and depth:
            depth = 0
    if depth:
        return f"the glob {text[:60]!r} opens a `[` set it never closes"
    return None


@functools.lru_cache(maxsize=8_192)
def _compiled(text: str) -> re.Pattern[str]:
    return re.compile(fnmatch.translate(text))


@dataclass(frozen=True, slots=True)
class Glob:
    """One checked glob; ``matches`` is anchored at both ends."""

    text: str
    _regex: re.Pattern[str] = field(init=False, repr=False, compare=False)
    _literal: bool = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        problem = glob_problem(self.text)
        if problem is not None:
            raise ValueError(problem)
        object.__setattr__(self, "_regex", _compiled(self.text))
        object.__setattr__(self, "_literal", not any(c in self.text for c in "*?["))

    @property
    def literal(self) -> bool:
        """The glob has no wildcard: it matches its own text only."""
        return self._literal

    def matches(self, value: str) -> bool:
        """Whether the whole of ``value`` matches."""
        if self._literal:
            return value == self.text
        if len(value) > MAX_MATCH_CHARS:
            return False
        return self._regex.match(value) is not None


def any_match(globs: tuple[Glob, ...], value: str) -> bool:
    """Whether any of ``globs`` matches ``value``."""
    return any(glob.matches(value) for glob in globs)
