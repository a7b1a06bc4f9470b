"""A cron table given only local jobs of a service account (for ``paths``).

Writing ``/etc/cron.d`` or ``/etc/crontab`` is persistence: cron runs what it names long after
the session. The harmful shapes run as ``root`` (a download piped to a shell, a reverse
shell), at every boot (``@reboot``), or a program kept in a temporary or hidden folder. The
everyday shape is an operator scheduling the application's own maintenance: a job that runs,
as an unprivileged service account, a program installed under a system or application folder
(``/usr/local/bin/…``, ``/opt/app/bin/…``, ``cd /srv/app && /srv/app/.venv/bin/python …``),
its output kept in a log. When every line the call adds is a comment, a plain environment
setting (``SHELL``, ``PATH``, ``MAILTO``…) or such a job, and the shell rules find nothing in
the job's command, the path's verdict is quieted. An edit must keep every job it replaces:
a job commented out or removed is not quieted, one whose time alone changes is.
Pure, at most ``_MAX`` characters.
"""

from __future__ import annotations

import re

from humangr.contracts import Severity

from .edit_formats import edit_pairs
from .files import PATH_ARGUMENTS
from .shell import judge
from .shell_rules import Context
from .view import ToolView

__all__ = ["CRON_TABLES", "local_jobs_only", "quiet_cron_jobs"]

CRON_TABLES = "the system cron tables"
"""The catalogue's name for the path (``Verdict.title`` ends with it)."""
_CONTENT = ("content", "contents", "file_text", "text", "new_content", "data")
_MAX = 8_000
_MAX_LINES = 60
_SYSTEM_TABLE = re.compile(r"^/etc/(?:cron\.d/[\w.-]{1,80}|crontab)$")
_ENV = re.compile(
    r"^(SHELL|PATH|MAILTO|HOME|CRON_TZ|TZ|LANG|LC_ALL|RANDOM_DELAY)=[\w@./:,+ -]{0,200}$"
)
_JOB = re.compile(
    r"^((?:[\d*/,-]{1,40}\s+){4}[\d*/,A-Za-z-]{1,40}|@(?:hourly|daily|midnight|weekly|monthly"
    r"|yearly|annually))\s+([a-z_][a-z0-9_.-]{0,31})\s+(\S.{0,2000})$"
)
_CD = re.compile(r"^cd\s+(/[\w./@+-]{1,200})\s*&&\s*")
_PROGRAM = re.compile(
    r"^/(?:usr/(?:local/)?s?bin|s?bin|usr/lib(?:exec)?|usr/share|opt|srv)/[\w@+.-]+(?:/[\w@+.-]+)*$"
)
"""A program installed under a system or application folder, never a temporary one."""
_HIDDEN = re.compile(r"/\.(?!venv/)")
_ROOT = frozenset({"root", "toor", "admin"})
_LOG_ONLY = frozenset({"writes to logs"})


def _folder(program: str, cd: str | None) -> str:
    """The application folder a job works in: its ``cd``, or the first two levels of its
    program's path (``/opt/app``)."""
    if cd is not None:
        return cd
    parts = program.split("/")
    return "/".join(parts[:3]) if len(parts) > 3 else "/"


def _local_job(command: str) -> bool:
    """A command that runs a program installed under a system or application folder, in which
    the shell rules find nothing but output kept in a log."""
    cd = _CD.match(command)
    rest = command[cd.end() :] if cd else command
    program = rest.split(None, 1)[0] if rest.split() else ""
    if not _PROGRAM.match(program) or _HIDDEN.search(program) or ".." in program:
        return False
    folder = _folder(program, cd.group(1) if cd else None)
    flags = judge(command, Context(folder, frozenset()))
    return not any(f.severity >= Severity.MEDIUM and f.title not in _LOG_ONLY for f in flags)


def _jobs(lines: list[str]) -> list[str] | None:
    """The commands (user and command) of the job lines, or None if a line is not a comment,
    an environment setting or a local job of a service account."""
    jobs: list[str] = []
    for line in lines:
        if not line or line.startswith("#") or _ENV.match(line):
            continue
        m = _JOB.match(line)
        if m is None or m.group(2) in _ROOT or not _local_job(m.group(3)):
            return None
        jobs.append(f"{m.group(2)} {m.group(3)}")
    return jobs


def local_jobs_only(added: list[str], removed: list[str]) -> bool:
    """Whether the stripped lines ``added`` to a system cron table are comments, plain
    settings and local jobs of service accounts (at least one), and every job ``removed`` comes
    back with the same account and command."""
    jobs = _jobs(added)
    if not jobs:
        return False
    kept = set(jobs)
    for line in removed:
        if not line or line.startswith("#") or _ENV.match(line):
            continue
        m = _JOB.match(line)
        if m is None or f"{m.group(2)} {m.group(3)}" not in kept:
            return False
    return True


def _lines(text: str) -> list[str]:
    return [ln.strip() for ln in text.splitlines()[:_MAX_LINES]]


def quiet_cron_jobs(view: ToolView) -> bool:
    """Whether the write or edit ``view`` of a system cron table only schedules local jobs of
    service accounts (see the module)."""
    named = view.text(*PATH_ARGUMENTS)
    if named is None or not _SYSTEM_TABLE.match(named[1].strip()):
        return False
    pairs = edit_pairs(view)
    if pairs is not None:
        added: list[str] = []
        removed: list[str] = []
        for old, new in pairs[1][:20]:
            if len(old) > _MAX or len(new) > _MAX:
                return False
            before, after = _lines(old), _lines(new)
            added += [ln for ln in after if ln not in before]
            removed += [ln for ln in before if ln not in after]
        return local_jobs_only(added, removed)
    got = view.text(*_CONTENT)
    if got is None or len(got[1]) > _MAX or len(got[1].splitlines()) > _MAX_LINES:
        return False
    return local_jobs_only(_lines(got[1]), [])
