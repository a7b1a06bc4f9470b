"""A unit of shell found in a file of a change: the command text to judge, where it is
reported, and how (``Unit``); shared by the readers of every kind of file."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["MAX_UNITS", "Line", "Unit", "unit"]

MAX_UNITS = 400
"""Units read from one file at most."""


@dataclass(frozen=True, slots=True)
class Unit:
    """One command (or script chunk) to judge, the line it is reported at, and whether a
    reading problem is worth a finding (not for a fragment cut out of a larger construct)."""

    text: str
    line: int
    report_problems: bool = True
    baseline: tuple[str, ...] = ()
    """Unchanged lines inside ``text``: what they alone are flagged for is not this change's."""
    critical_only: bool = False
    """A value of a configuration file that may or may not be a command: only what is surely
    hostile (a critical finding) is reported, as for a tool argument that is not a command."""
    in_image: bool = False
    """A Dockerfile ``RUN``: it runs inside the image being built, whose file system is its
    workspace (``rm -rf /var/lib/apt/lists/*`` trims the image, not the host)."""


Line = tuple[int, str, bool]


def unit(lines: list[Line], text: str, problems: bool = True) -> Unit | None:
    """A unit of ``text`` reported at its first added line; none when no line of it was
    added or it is blank."""
    if not any(added for _, _, added in lines) or not text.strip():
        return None
    line = next(n for n, _, added in lines if added)
    return Unit(text, line, problems)
