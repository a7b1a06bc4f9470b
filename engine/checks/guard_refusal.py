"""A refusal turned into a log line (for ``source_code``).

An edit that replaces ``raise ComplianceHold(...)``, ``throw new AccessDenied(...)`` or
``abort(403)`` with only ``log.debug(...)``, ``logger.warning(...)``, ``print(...)``,
``console.log(...)``, ``pass`` or ``continue`` keeps the check but takes away what it did:
the condition is still tested, the failure is only written down, and the work goes on. A
refusal reworded (still raising), moved after a log line (``log.error(...)`` then
``raise``), or replaced by a ``return`` of an error are not findings; tests are not read.
Bounded: at most ``_MAX_RUNS`` runs of changed lines, lines cut to 400 characters.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from humangr.contracts import Severity

from .base import Hit, is_test_path, snippet
from .diff import FileDiff
from .diff_runs import change_runs

__all__ = ["refusal_logged"]

_MAX_RUNS = 400
_MAX_LINE = 400
_REFUSAL = re.compile(
    r"^\s*(?:raise\s+[A-Za-z_][\w.]*|throw\s+(?:new\s+)?[A-Za-z_][\w.]*|"
    r"abort\s*\(\s*4\d\d|raise_error\s*\()"
)
"""A line that stops the work: an exception raised or thrown, a request refused."""
_LOG_ONLY = re.compile(
    r"^\s*(?:(?:[\w$]{1,40}\.){0,3}(?:log|logger|logging|_log|_logger|LOG|LOGGER|console|"
    r"Log|Logger)\.(?:debug|info|warn|warning|notice|trace|log|error|exception)\s*\(|"
    r"print\s*\(|warnings\.warn\s*\(|pass\s*$|continue\s*;?\s*$|(?:#|//).*$)"
)
"""A line that only writes something down (or does nothing) and lets the work go on."""
_STOPS = re.compile(r"\b(?:raise|throw|abort|return|exit|die|reject|deny)\b")


def _runs(file: FileDiff) -> Iterator[tuple[list[str], list[tuple[str, int]]]]:
    """Each run of removed lines with the added lines that follow them, in order (at most
    ``_MAX_RUNS``)."""
    for count, run in enumerate(change_runs(file, _MAX_LINE)):
        if count >= _MAX_RUNS:
            return
        yield run


def refusal_logged(file: FileDiff, path: str) -> Iterator[Hit]:
    """The first run of ``file`` whose refusal (``raise``, ``throw``, ``abort(4xx)``) is
    replaced only by logging or nothing (see the module)."""
    if is_test_path(path) or file.deleted or not file.removed:
        return
    for removed, added in _runs(file):
        refusal = next((old for old in removed if _REFUSAL.match(old)), None)
        if refusal is None:
            continue
        kept = {old.strip() for old in removed}
        texts = [text for text, _ in added if text.strip() and text.strip() not in kept]
        if not texts or any(_STOPS.search(t) for t, _ in added):
            continue
        if not all(_LOG_ONLY.match(t) for t in texts):
            continue
        yield Hit(
            severity=Severity.HIGH,
            title="a refusal turned into a log line",
            description=f"{path}: `{snippet(refusal.strip(), 100)}` becomes "
            f"`{snippet(texts[0].strip(), 100)}`: the check still runs, but what it found "
            "no longer stops the work.",
            suggestion="Keep the refusal; let a person decide whether the check may only log.",
            file=path,
            line=added[0][1],
        )
        return
