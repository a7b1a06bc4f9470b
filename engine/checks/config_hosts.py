"""What a host runs by itself, read from the files that tell it to (``config_files``):

- systemd units (``*.service``, ``*.socket``, drop-ins): each ``ExecStart=``, ``ExecStartPre=``,
  ``ExecStartPost=``, ``ExecStop=``, ``ExecStopPost=``, ``ExecReload=`` and
  ``ExecCondition=`` command judged by the shell rules (``shell.judge``), as found; a unit
  that runs as root (``User=root``, a ``+`` command, or a new system unit with no ``User=``)
  and fetches code from the network (a download, a package install, ``npx``) is critical;
- crontabs: each entry's command (after its five time fields or ``@reboot``/``@daily``…, the
  user field of ``/etc/cron.d`` and ``/etc/crontab`` lines, and its ``%`` input) judged the
  same way.

A command on a host runs where the agent's workspace is not: the folder the command works in
(``WorkingDirectory=``, a leading ``cd``) or the application folder it names first
(``/srv/app``, ``/opt/app``, ``/var/www/site``, ``/home/user/app``) stands for the workspace,
and a job's output appended to its log is everyday. Hardening settings being off
(``ProtectSystem=``, ``NoNewPrivileges=``) are not findings by themselves.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterator

from humangr.contracts import Severity

from .base import Hit, snippet
from .config_text import ConfigText
from .tools.shell import judge
from .tools.shell_rules import Context, Flag

__all__ = [
    "MAX_COMMANDS",
    "cron_hits",
    "fetches_code",
    "flags_hit",
    "host_flags",
    "systemd_hits",
]

MAX_COMMANDS = 200
"""Commands judged in one file at most; more are a finding (not all were read)."""
_MAX_COMMAND = 8_000
_HOST_EVERYDAY = frozenset({"writes to logs"})
"""Flags of the shell rules that are a host job's everyday work (its output kept in a log)."""
_EXEC = re.compile(
    r"^\s*(ExecStart|ExecStartPre|ExecStartPost|ExecStop|ExecStopPost|ExecReload|"
    r"ExecCondition)\s*=\s*(.*)$"
)
_USER = re.compile(r"^\s*User\s*=\s*\"?([^\s\"]*)")
_DYNAMIC = re.compile(r"^\s*DynamicUser\s*=\s*(?:yes|true|on|1)\s*$", re.IGNORECASE)
_WORKDIR = re.compile(r"^\s*WorkingDirectory\s*=\s*-?(/\S*)")
_INSTALL = re.compile(
    r"\b(?:pip3?|pipx|uv\s+pip|npm|pnpm|yarn|gem|go|cargo)\s+(?:install|add|get)\b|"
    r"\b(?:npx|uvx|bunx|pnpx)\s|\bpipx\s+run\b|\bgit\s+(?:clone|pull)\b"
)
"""A command that installs or runs code from a language registry or a repository (the
system's package manager, whose packages are signed, is not one)."""
_DOWNLOAD = re.compile(r"\b(?:curl|wget|aria2c)\b[^\n]{0,2000}?\b(?:https?|ftps?)://")
_OUTPUT = re.compile(
    r"(?:\s-o|\s--output|\s-O|\s--output-document)[ =]\s*([^\s;&|]+)|>\s*([^\s;&|]+)"
)
_PIPED_TO_CODE = re.compile(
    r"\|\s*(?:sudo\s+)?(?:[\w.-]*/)*(?:tar|sh|bash|zsh|dash|python\d?|perl|ruby|node|unzip|"
    r"dpkg|rpm|install)\b"
)
_EXECUTABLE = re.compile(r"(?:^|/)s?bin/|\.(?:sh|py|pl|rb|bin|run|appimage|jar|deb|rpm|so)$", re.I)


def fetches_code(command: str, others: list[str]) -> bool:
    """Whether ``command`` brings code from the network: a package install or runner, or a
    download that is piped to a program, saved as a program, or named by ``others`` (the
    same file's other commands: ``chmod +x`` it, run it). A download of data (a health-check
    ping, a config) is not."""
    if _INSTALL.search(command):
        return True
    if not _DOWNLOAD.search(command):
        return False
    if _PIPED_TO_CODE.search(command):
        return True
    for m in _OUTPUT.finditer(command):
        out = (m.group(1) or m.group(2) or "").strip("'\"")
        if (
            out
            and out != "/dev/null"
            and (_EXECUTABLE.search(out) or any(out in other for other in others))
        ):
            return True
    return False


_APP_FOLDER = re.compile(
    r"(?<![\w/.~-])(/(?:srv|opt|app|var/www|var/backups|var/cache|home/[\w.-]+)/[\w.@+-]+|/app)"
    r"(?=/|\s|$|[;&|'\")])"
)
_CD = re.compile(r"^\s*cd\s+(/[^\s;&|]+)\s*(?:&&|;)")
_CRON_TIME = re.compile(
    r"^\s*(?:@(?:reboot|yearly|annually|monthly|weekly|daily|midnight|hourly)|"
    r"(?:[\d*?LW#/,A-Za-z-]+\s+){4}[\d*?LW#/,A-Za-z-]+)\s+(.*)$"
)
_CRON_ENV = re.compile(r"^\s*[A-Za-z_][A-Za-z0-9_]*\s*=")
_USER_NAME = re.compile(r"^[a-z_][a-z0-9_.-]{0,31}\$?$")
_SYSTEM_CRONTAB = re.compile(r"(?:^|/)(?:cron\.d/[^/]+|etc/crontab)$")


def host_flags(
    command: str, allowed_hosts: frozenset[str], folder: str | None = None
) -> list[Flag]:
    """The shell rules' flags of a command a host runs by itself, with ``folder`` (or the
    application folder the command names) standing for the workspace."""
    text = command[:_MAX_COMMAND]
    cd = _CD.match(text)
    app = _APP_FOLDER.search(text)
    workspace = folder or (cd.group(1) if cd else None) or (app.group(1) if app else None)
    flags = judge(text, Context(workspace, allowed_hosts))
    if workspace is not None:  # what is critical wherever it runs stays so
        titles = {f.title for f in flags}
        flags += [
            f
            for f in judge(text, Context(None, allowed_hosts))
            if f.severity is Severity.CRITICAL and f.title not in titles
        ]
    return [f for f in flags if f.title not in _HOST_EVERYDAY]


def flags_hit(flags: list[Flag], path: str, line: int | None, where: str) -> Hit:
    """One hit for a line: its most severe flag, the others named (``where``: what runs the
    command, for the description)."""
    flags = sorted(flags, key=lambda f: f.severity, reverse=True)
    top, rest = flags[0], flags[1:8]
    detail = f"{where}: {top.detail}"
    if rest:
        detail += " Also: " + "; ".join(f"{f.title} ({f.severity.value})" for f in rest) + "."
    return Hit(top.severity, top.title, detail, top.fix, file=path, line=line)


def _too_many(path: str, line: int | None) -> Hit:
    return Hit(
        Severity.HIGH,
        "too many commands to read",
        f"More than {MAX_COMMANDS} commands: the rest were not checked.",
        "Split the file, or have a human review it.",
        file=path,
        line=line,
    )


def _exec_command(value: str) -> tuple[str, bool]:
    """A systemd command line without its prefixes (``-``, ``@``, ``:``, ``+``, ``!``) and
    whether it runs with full privileges (``+``)."""
    m = re.match(r"^([-@:+!]*)", value)
    prefixes = m.group(1) if m else ""
    rest = value[len(prefixes) :]
    if "@" in prefixes:  # ``@/bin/x argv0 args``: the second word is only argv[0]
        words = rest.split(None, 2)
        rest = " ".join(words[:1] + words[2:])
    return rest, "+" in prefixes


def _logical(t: ConfigText) -> Iterator[tuple[int, str, bool]]:
    """The unit's lines with ``\\`` continuations joined: (index, text, any line added)."""
    i = 0
    while i < len(t.lines):
        start, parts, added = i, [], False
        while True:
            text = t.lines[i]
            added = added or t.added_lines[i]
            if text.rstrip().endswith("\\") and i + 1 < len(t.lines) and i - start < 64:
                parts.append(text.rstrip()[:-1])
                i += 1
                continue
            parts.append(text)
            break
        yield start, " ".join(p.strip() for p in parts), added
        i += 1


def systemd_hits(
    t: ConfigText, path: str, *, whole: bool, user_unit: bool, allowed_hosts: frozenset[str]
) -> Iterator[Hit]:
    """A systemd unit's commands, judged; a unit that fetches code and runs it as root.
    ``whole``: the text is the whole file (a new unit), so a missing ``User=`` means root."""
    user: str | None = None
    dynamic = False
    folder: str | None = None
    commands: list[tuple[int, str, bool, bool]] = []
    for index, text, added in _logical(t):
        if text.lstrip().startswith(("#", ";")):
            continue
        if (m := _USER.match(text)) is not None:
            user = m.group(1)
        elif _DYNAMIC.match(text):
            dynamic = True
        elif (w := _WORKDIR.match(text)) is not None:
            folder = w.group(1)
        elif (e := _EXEC.match(text)) is not None and e.group(2):
            command, privileged = _exec_command(e.group(2).strip())
            commands.append((index, command, privileged, added))
    as_root = user in ("root", "0") or (whole and user is None and not dynamic and not user_unit)
    judged = 0
    for n, (index, command, privileged, added) in enumerate(commands):
        if not added:
            continue
        number = t.numbers[index]
        judged += 1
        if judged > MAX_COMMANDS:
            yield _too_many(path, number)
            return
        flags = host_flags(command, allowed_hosts, folder)
        others = [c for k, (_, c, _, _) in enumerate(commands) if k != n]
        if (as_root or privileged) and fetches_code(command, others):
            flags.append(_root_fetch(command, privileged))
        if flags:
            yield flags_hit(flags, path, number, "Run by systemd")


def _root_fetch(command: str, privileged: bool) -> Flag:
    how = "with full privileges (`+`)" if privileged else "as root"
    return Flag(
        Severity.CRITICAL,
        "a service runs code fetched from the network as root",
        f"`{snippet(command, 120)}` brings code from the network and the unit runs it {how}, "
        "at every start: whoever controls that source controls the machine.",
        "Install a pinned, verified release ahead of time and run the service as its own user.",
    )


def cron_hits(t: ConfigText, path: str, *, allowed_hosts: frozenset[str]) -> Iterator[Hit]:
    """Each added crontab entry's command, judged by the shell rules."""
    system = bool(_SYSTEM_CRONTAB.search(path.lower()))
    judged = 0
    for index, text in enumerate(t.lines):
        if not t.added_lines[index] or not text.strip() or text.lstrip().startswith("#"):
            continue
        if _CRON_ENV.match(text):
            continue
        m = _CRON_TIME.match(text)
        if m is None:
            continue
        judged += 1
        if judged > MAX_COMMANDS:
            yield _too_many(path, t.numbers[index])
            return
        commands = _cron_commands(m.group(1), system=system)
        flags: dict[str, Flag] = {}
        for command in commands:
            for flag in host_flags(command, allowed_hosts):
                flags.setdefault(flag.title, flag)
        if flags:
            yield flags_hit(list(flags.values()), path, t.numbers[index], "Run by cron")


def _cron_commands(entry: str, *, system: bool) -> list[str]:
    """The command of a crontab entry's text after its time: without its ``%`` input, and
    without the user field (system crontabs; for a file of unknown format, both readings)."""
    command = re.split(r"(?<!\\)%", entry, maxsplit=1)[0].replace("\\%", "%").strip()
    words = command.split(None, 1)
    if len(words) == 2 and _USER_NAME.match(words[0]):
        if system:
            return [words[1]]
        return [command, words[1]] if _plain_user(words[0]) else [command]
    return [command] if command else []


def _plain_user(word: str) -> bool:
    """A word that may be a crontab's user field rather than a program."""
    try:
        return len(shlex.split(word)) == 1 and word not in ("sudo", "env", "nice", "nohup")
    except ValueError:
        return False
