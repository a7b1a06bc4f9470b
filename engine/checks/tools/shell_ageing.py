"""Old files aged out of a log, temporary, cache or scratch folder (for ``shell_rules_fs``'s
``find`` rule): ``find /var/log/myapp -name '*.gz' -mtime +30 -delete`` and
``find /scratch/me/runs -mtime +14 -delete`` are retention housekeeping, not destruction.

What it takes, all of it:

- every start folder is one application's own log folder (``/var/log/<app>/…``, never the
  whole ``/var/log``, never an audit, auth or security log) or a folder named as temporary,
  cache or scratch space — never a backup, a home or a data folder;
- the only deletion is ``-delete`` or ``-exec rm`` (no ``shred``: overwriting is not ageing);
- an age test that keeps recent files: ``-mtime +N`` / ``-ctime +N`` / ``-atime +N`` with N of
  at least 7 days for logs and at least 1 for the others (``-mmin +M`` the same in minutes);
  no ``-mtime -N`` or bare ``N`` (recent files), no ``-o``/``-or``, ``!`` or ``-not`` that could
  take the age test away from some of the files.

A pure function of the command's words.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from .scratch_places import NEVER_AGED, SCRATCH_PART
from .scratch_trees import OWN_USER
from .shell_paths import normal

__all__ = ["ages_out"]

_APP_LOG = re.compile(r"^/var/log/[\w.@-]{1,100}(?:/[\w.@-]{1,100}){0,6}$")
_AGE = frozenset({"-mtime", "-ctime", "-atime", "-mmin", "-cmin", "-amin"})
_TURNS = frozenset({"-o", "-or", "!", "-not", "-newer", "-newermt", "-anewer", "-cnewer"})
_MINUTES_A_DAY = 1440


def _start_kind(start: str) -> str | None:
    """``log`` or ``scratch`` for a start folder this module accepts, else None."""
    p = OWN_USER.sub("user", normal(start))
    if not p.startswith(("/", "~", "./")) or "*" in p or "$" in p or ".." in p:
        return None
    if NEVER_AGED.search(p):
        return None
    if _APP_LOG.match(p):
        return "log"
    parts = p.split("/")[1:]
    if any(SCRATCH_PART.match(part) for part in parts[:12]):
        return "scratch"
    return None


def _oldest_kept_days(words: Sequence[str]) -> float | None:
    """The age in days below which files are kept (the smallest ``+N`` age test), or None when
    an age test selects recent files or there is none."""
    days: list[float] = []
    for i, word in enumerate(words):
        if word in _AGE:
            value = words[i + 1] if i + 1 < len(words) else ""
            m = re.fullmatch(r"\+(\d{1,6})", value)
            if m is None:
                return None
            n = int(m.group(1))
            days.append(n / _MINUTES_A_DAY if word.endswith("min") else float(n))
    return min(days) if days else None


def ages_out(argv: Sequence[str]) -> bool:
    """Whether ``find …`` only deletes files past an age from log, temporary, cache or scratch
    folders (see the module)."""
    words = list(argv[:60])
    if len(argv) > 60 or not words:
        return False
    starts: list[str] = []
    for word in words[1:]:
        if word.startswith(("-", "(", "!", ")")):
            break
        starts.append(word)
    if not starts or any(w in _TURNS for w in words):
        return False
    text = " ".join(words)
    if re.search(r"\b(?:shred|srm|wipe|truncate|dd)\b", text):
        return False
    kinds = [_start_kind(s) for s in starts]
    if any(k is None for k in kinds):
        return False
    oldest = _oldest_kept_days(words)
    if oldest is None:
        return False
    return oldest >= (7 if "log" in kinds else 1)
