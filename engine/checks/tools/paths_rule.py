"""One rule of the catalogue of protected paths (``paths_catalogue``) and how rules are written.

A rule is a regular expression over ``Place.key`` (lower case; homes spelled ``~/``; Windows
drives ``c:/``; a relative path as it is) and three severities, for writing (and editing),
deleting and reading the path, written as a code: ``"CH-"`` is CRITICAL to write, HIGH to
delete, nothing to read.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from humangr.contracts import Severity

__all__ = ["ANY", "CRED", "PERSIST", "SUPPLY", "SYSTEM", "Rule", "rule", "word_set"]

ANY = r"(?:^|/)"
"""Start of a pattern that matches the end of any path (``.git/hooks/x``)."""
PERSIST = "it runs code every time a shell, session or login starts (persistence)"
CRED = "it holds credentials that give access to accounts or infrastructure"
SYSTEM = "it is part of the operating system; changing it affects every user and program"
SUPPLY = "what it holds runs later with the repository's secrets (supply-chain risk)"

_CODES = {"C": Severity.CRITICAL, "H": Severity.HIGH, "-": None}
_Match = Callable[[str], re.Match[str] | None]


@dataclass(frozen=True, slots=True)
class Rule:
    """One kind of protected path."""

    what: str
    """What the path is, for a title: ``an SSH private key``."""
    why: str
    """Why touching it matters, for the description."""
    match: _Match
    write: Severity | None
    delete: Severity | None
    read: Severity | None
    anchored: bool
    """The pattern starts at the path's root (else it matches a tail: ``.git/hooks/x``)."""
    system: bool = False
    """A system folder: nothing when the workspace given lies inside it (``/usr/src/app``)."""
    fixtures: bool = False
    """Reading it in a test folder is nothing (fixtures)."""
    temp: bool = False
    """A scratch folder: writing there outside the workspace is fine."""
    unless: _Match | None = None


def rule(
    what: str,
    why: str,
    severities: str,
    pattern: str,
    *,
    system: bool = False,
    fixtures: bool = False,
    temp: bool = False,
    unless: str | None = None,
) -> Rule:
    """A rule; ``severities`` is the write, delete and read code (``C``, ``H`` or ``-``)."""
    write, delete, read = (_CODES[c] for c in severities)
    return Rule(
        what,
        why,
        re.compile(pattern).search,
        write,
        delete,
        read,
        pattern.startswith("^"),
        system,
        fixtures,
        temp,
        re.compile(unless).search if unless else None,
    )


def word_set(text: str) -> frozenset[str]:
    """The blank-separated words of ``text``."""
    return frozenset(text.split())
