"""A dependency swapped for a name one slip away, its version kept (for ``source_code``).

An edit of a dependency list that replaces ``ncclient==0.6.15`` by ``ncclinet==0.6.15``,
``pysam==0.22.0`` by ``pysamm==0.22.0`` or ``"chalk": "^5.3.0"`` by ``"chaIk": "^5.3.0"``
keeps the version and changes the name by one letter (added, dropped, changed, or two
neighbours swapped; case, ``-``, ``_`` and ``.`` aside): nobody moves to another project at the
same version, so the new name is a lookalike whose author's code now runs at install. This
reads any package, popular or not (``package_names`` knows the popular ones). A version
bump, a package added or dropped, and a rename to a different-looking name are no finding.
Bounded: at most ``_MAX_LINES`` changed lines a file, each cut to 300 characters. Pure.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterator

from humangr.contracts import Severity

from .base import Hit, is_test_path, snippet
from .dep_pins import DEPENDENCY_FILES
from .diff import FileDiff

__all__ = ["dependency_lookalike", "one_slip"]

_MAX_LINES = 400
_MIN_LENGTH = 4
_LINE = re.compile(
    r"^\s*(?:gem\s+)?[\"']?((?:@[\w.-]{1,60}/)?[A-Za-z0-9][\w.-]{0,80})[\"']?\s*"
    r"((?:\[[\w,\s-]{0,80}\])?\s*(?:[=<>!~^:,@]|\s)[^#]{0,120})$"
)
_DIGIT = re.compile(r"\d")
_REQUIREMENTS_DIR = re.compile(r"(?:^|/)requirements/[\w.-]+\.(?:txt|in)$")


def one_slip(a: str, b: str) -> bool:
    """Whether ``b`` is ``a`` with one letter added, dropped or changed, or two neighbours
    swapped (``a`` and ``b`` differ)."""
    if a == b or abs(len(a) - len(b)) > 1:
        return False
    if len(a) == len(b):
        diffs = [i for i, (x, y) in enumerate(zip(a, b, strict=True)) if x != y]
        if len(diffs) == 1:
            return True
        i = diffs[0]
        return len(diffs) == 2 and diffs[1] == i + 1 and a[i] == b[i + 1] and a[i + 1] == b[i]
    short, long_ = (a, b) if len(a) < len(b) else (b, a)
    i = 0
    while i < len(short) and short[i] == long_[i]:
        i += 1
    return short[i:] == long_[i + 1 :]


def _fold(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name.lower())


def _entry(text: str) -> tuple[str, str] | None:
    """(name, version part) of a dependency line that pins a version, else ``None``."""
    m = _LINE.match(text[:300])
    if m is None or not _DIGIT.search(m.group(2)):
        return None
    return m.group(1), re.sub(r"\s+", "", m.group(2)).rstrip(",")


def dependency_lookalike(file: FileDiff, path: str) -> Iterator[Hit]:
    """The first dependency of ``file`` replaced by a lookalike name at the same version."""
    name = posixpath.basename(path)
    if (
        is_test_path(path)
        or file.deleted
        or not file.removed
        or not (DEPENDENCY_FILES.match(name) or _REQUIREMENTS_DIR.search(path))
    ):
        return
    removed: dict[str, str] = {}
    for line in file.removed[:_MAX_LINES]:
        entry = _entry(line.text)
        if entry is not None:
            removed.setdefault(entry[1], entry[0])
    if not removed:
        return
    for line in file.added[:_MAX_LINES]:
        entry = _entry(line.text)
        if entry is None or entry[1] not in removed:
            continue
        old, new = _fold(removed[entry[1]]), _fold(entry[0])
        if min(len(old), len(new)) < _MIN_LENGTH or not one_slip(old, new):
            continue
        yield Hit(
            severity=Severity.HIGH,
            title="a dependency swapped for a lookalike name",
            description=f"{path}: `{removed[entry[1]]}` becomes `{snippet(entry[0], 80)}` at the "
            "same version: a name one letter away is a typosquat, and its author's code runs "
            "at install.",
            suggestion="Keep the dependency's real name; check the new one on its registry.",
            file=path,
            line=line.number,
        )
        return
