"""What a service keeps for recovery cut from the command line, each a class every cloud and
every backup tool has:

- a database's automated backups switched off (``--backup-retention-period 0``,
  ``--no-backup``, point-in-time recovery off);
- a backup repository pruned to one snapshot (``restic forget --keep-last 1 --prune``,
  ``borg prune --keep-last 1``);
- a log or stream's retention cut to under a day (``kafka-configs … --add-config
  retention.ms=60000``): what consumers have not read yet is deleted.

Each is high: a person confirms. Everyday neighbours run: a retention of days
(``--backup-retention-period 7``, ``retention.ms=604800000``), ``restic forget --keep-daily 7
--keep-weekly 4``, ``restic snapshots``. Gated on a word of the command (``backup``,
``retention``, ``forget``, ``prune``) before any pattern."""

from __future__ import annotations

import re
from collections.abc import Iterator

from .shell_model import Cmd
from .shell_rule_kit import Context, Flag, high, rule

__all__ = ["recovery_cut"]

_MAX = 4_000
_BACKUPS_OFF = re.compile(
    r"(?i)(?:^|\s)(?:--backup-retention(?:-period|-days)?[=\s]+['\"]?0\b|--no-backups?\b|"
    r"--no-enable-point-in-time-recovery\b|--no-enable-bin-log\b|--automated-backups?[=\s]+"
    r"(?:disabled?|false|off)\b|--backup[=\s]+(?:disabled?|false|off)\b)"
)
_RETENTION = re.compile(
    r"(?i)(?:^|[\s,'\"])(?:log\.)?retention\.(ms|minutes|hours)\s*=\s*(\d{1,15})\b"
)
_PER_DAY = {"ms": 86_400_000, "minutes": 1_440, "hours": 24}
_KEEP = re.compile(r"^--keep-(?:last|hourly|daily|weekly|monthly|yearly|within\S*|tag)$")
_BACKUP_TOOLS = frozenset({"restic", "borg", "borgbackup", "kopia", "duplicity"})


def _short_retention(text: str) -> str | None:
    """A retention setting under a day (``retention.ms=60000``), as written."""
    for m in _RETENTION.finditer(text):
        if int(m.group(2)) < _PER_DAY[m.group(1).lower()]:
            return m.group(0).strip(" ,'\"")
    return None


def _pruned_to_one(argv: list[str]) -> bool:
    """``restic forget --keep-last 1 --prune``: a policy that keeps at most one snapshot."""
    if not any(w in ("forget", "prune") for w in argv[1:4]):
        return False
    kept = 0
    policies = 0
    for i, w in enumerate(argv[1:64], start=1):
        key, _, value = w.partition("=")
        if not _KEEP.match(key):
            continue
        policies += 1
        if not value and i + 1 < len(argv):
            value = argv[i + 1]
        if not value.isdigit():
            return False  # a time span or a tag keeps what it names
        kept += int(value)
    return policies > 0 and kept <= 1


@rule
def recovery_cut(cmd: Cmd, ctx: Context) -> Iterator[Flag]:
    """Backups switched off, a backup repository pruned to one snapshot, a retention cut to
    under a day (see the module's docstring)."""
    text = " ".join(cmd.argv[1:64])[:_MAX]
    lower = text.lower()
    if cmd.name in _BACKUP_TOOLS and _pruned_to_one(cmd.argv):
        yield high(
            "prunes backups down to one snapshot",
            cmd.text,
            "every older snapshot is deleted for good: nothing before today can be restored.",
            "Keep the repository's usual policy (days, weeks, months).",
        )
        return
    if "backup" in lower or "point-in-time" in lower or "bin-log" in lower:
        m = _BACKUPS_OFF.search(text)
        if m is not None:
            yield high(
                "switches automated backups off",
                cmd.text,
                f"`{m.group(0).strip()}`: the database stops being backed up, and existing "
                "automated backups may be deleted with it.",
                "Keep backups on; have the database's owner change their policy.",
            )
            return
    if "retention." in lower:
        found = _short_retention(text)
        if found is not None:
            yield high(
                "cuts retention to under a day",
                cmd.text,
                f"`{found}`: what is older, unread messages and history included, is deleted "
                "at once.",
                "Keep the usual retention; have the data's owner approve a change.",
            )
