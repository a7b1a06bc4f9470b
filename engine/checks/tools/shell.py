"""Checks of shell commands: in tool calls (``shell_command``) and in the files of a change
(``shell_scripts``: shell scripts, Dockerfile ``RUN`` lines, Makefile recipes, CI steps).

A command is read with a real shell parser (``shell_parse``), unwrapped into everything it
runs (``shell_unwrap``) and judged by the rule families (``shell_rules_*``): destruction,
remote code, reverse shells, GTFOBins escapes, secret reads, exfiltration, persistence,
privilege escalation, hidden traces. What cannot be read is a finding of its own.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterator
from dataclasses import replace
from typing import Any

from humangr.contracts import Severity, ToolKind

from ..base import CheckInput, Hit
from ..remember import remembered
from .shell_argv import argv_lines
from .shell_catalogue import words
from .shell_files import script_units
from .shell_names import cli_prefixed
from .shell_rules import Context, Flag, evaluate
from .shell_unwrap import CACHED_CHARS, unwrap
from .view import ToolView

__all__ = ["HOST_ONLY", "judge", "shell_command", "shell_scripts"]

_COMMAND_NAMES = (
    "command",
    "cmd",
    "shell_command",
    "script",
    "commands",
    "argv",
    "args",
    "input",
    "code",
)
_NAMED = words(
    """
    command cmd argv shell_command commands shell
    """
)
_PROGRAM_NAMES = ("program", "executable", "binary", "exe", "file")
_CONTENT = words(
    """
    content contents new_string old_string new_str old_str text patch diff body data html
    markdown message description prompt query sql
    """
)
_RUNNERS: dict[str, tuple[str, ...] | None] = {
    "python": ("python3", "-c"),
    "python3": ("python3", "-c"),
    "py": ("python3", "-c"),
    "javascript": ("node", "-e"),
    "js": ("node", "-e"),
    "node": ("node", "-e"),
    "ruby": ("ruby", "-e"),
    "perl": ("perl", "-e"),
    "php": ("php", "-r"),
    "bash": None,
    "sh": None,
    "shell": None,
    "zsh": None,
}
"""How code to run is read as the command that runs it (``python3 -c CODE``); ``None``: the
code is shell. Unknown languages are read as Python."""
_MAX_HITS = 12
_SEVERITIES = list(Severity)
HOST_ONLY = frozenset(
    {"changes user accounts", "writes a system file", "starts an interactive shell"}
)
"""Flags about this machine that do not apply to a command run inside a container image."""
_MAX_EMBEDDED = 4096
_EMBEDDED = re.compile(
    r"\|\s*(?:sudo\s+)?(?:/\S*/)?(?:ba|z|da|k)?sh\b|/dev/(?:tcp|udp)/|\brm\s+-\w*[rRf]|"
    r"\bmkfs\b|\bdd\s+\S*of=|\bnc\b.*\s-[ec]\b|\bbash\s+-i\b|base64\s+(?:-d|--decode)|"
    r":\(\)\s*\{|\bchmod\s+(?:-R\s+)?(?:[ugoa]*\+s|[0-7]?[4267][0-7]{3}|777)|"
    r"<\(\s*(?:curl|wget)|\$\(\s*(?:curl|wget)|\bsocat\b.*exec:|/etc/shadow|\bmkfifo\b|"
    r"\bhistory\s+-c|\bcrontab\b|authorized_keys|python\d?\s+-c|perl\s+-e|--force\b|"
    r"\bterraform\s+destroy|\bkubectl\s+delete|\bshred\b|\bwipefs\b|id_rsa|\.aws/credentials"
)


def judge(text: str, ctx: Context) -> list[Flag]:
    """Every flag of one command line. Pure, bounded, never raises.

    A fresh context's verdict on a short text is remembered (agents run the same commands
    again and again, with other arguments beside them); one an earlier ``cd`` moved is judged
    each time."""
    if ctx.cwd is None:
        return list(_judged(text, ctx.workspace, ctx.allowed_hosts, ctx.host))
    return _judge(text, ctx)


@remembered(max_chars=CACHED_CHARS, maxsize=1_024)
def _judged(
    text: str, workspace: str | None, allowed_hosts: frozenset[str], host: str | None = None
) -> tuple[Flag, ...]:
    return tuple(_judge(text, Context(workspace, allowed_hosts, host=host)))


def _judge(text: str, ctx: Context) -> list[Flag]:
    try:
        return evaluate(unwrap(text), ctx)
    except RecursionError:
        return [_unreadable("nesting deeper than the reader can follow")]
    except Exception as exc:
        return [_unreadable(f"the reader failed ({type(exc).__name__})")]


def _unreadable(why: str) -> Flag:
    return Flag(
        Severity.HIGH,
        "could not read this command",
        f"The shell reader stopped: {why}. The command was not checked.",
        "Split it into simpler commands.",
    )


def _sources(tool: ToolView) -> Iterator[tuple[str, str, bool]]:
    """(argument, command text, conservative) for every command a call carries."""
    seen: set[str] = set()
    if tool.kind is ToolKind.CODE:
        code = tool.text("code", "source", "python", "program", "script", "cell")
        if code is not None:
            seen.add(code[0])
            language = tool.text("language", "lang", "runtime")
            name = language[1].strip().lower() if language else "python"
            runner = _RUNNERS.get(name, ("python3", "-c"))
            if runner is None:
                yield code[0], code[1], False  # a shell language: the code is the command
            else:
                yield code[0], shlex.join([*runner, code[1]]), False
                if runner[0].startswith("python"):
                    for command in ipython_shell(code[1]):
                        yield code[0], command, False
    typed = _typed(tool)
    if typed is not None:
        seen.add(typed[0])
        yield typed[0], typed[1], True
    if tool.kind is ToolKind.SHELL:
        commands: list[str] = []
        program = tool.text(*_PROGRAM_NAMES)
        args = tool.get("args", "arguments", "argv")
        single = tool.text("command", "cmd")
        if program is None and single is not None and not single[1].strip().count(" "):
            program = single  # ``{"command": "sh", "args": ["-c", "…"]}``: one program, its argv
        if program is not None and args is not None and isinstance(args[1], list):
            seen.update({program[0], args[0]})
            for line in argv_lines([program[1], *args[1]]):
                commands.append(line)
                yield args[0], line, False
        for name in _COMMAND_NAMES:
            found = tool.get(name)
            if found is None or found[0] in seen:
                continue
            seen.add(found[0])
            key, value = found
            if isinstance(value, str) and value.strip():
                commands.append(value)
                yield key, value, False
            elif isinstance(value, list) and key.lower() == "commands":
                for i, item in enumerate(value[:64]):
                    for text in argv_lines(item) if isinstance(item, list) else [str(item)]:
                        commands.append(text)
                        yield f"{key}[{i}]", text, False
            elif isinstance(value, list) and value:
                for line in argv_lines(value):
                    commands.append(line)
                    yield key, line, False
        if not seen:  # a shell tool whose command argument has a name of its own
            found = next(
                ((k, v) for k, v in tool.call.arguments.items() if isinstance(v, str)), None
            )
            if found is not None and found[1].strip():
                seen.add(found[0])
                commands.append(found[1])
                yield found[0], found[1], False
        yield from _with_environment(tool, commands)
    else:
        yield from _program_argv(tool, seen)
    for path, text in tool.strings():
        top = path.split(".", 1)[0].split("[", 1)[0]
        leaf = re.split(r"[.\[]", path)[-1].rstrip("]")
        if top in seen or path in seen:
            continue
        if leaf.lower() in _NAMED or top.lower() in _NAMED:
            seen.add(top if "[" in path else path)
            whole = tool.get(top)
            if "[" in path and not _is_argv(whole):  # a list of objects: ``tasks[0].command``
                seen.discard(top)
                seen.add(path)
                yield path, text, False
            elif whole is not None and isinstance(whole[1], list) and top.lower() != "commands":
                yield from ((top, line, False) for line in argv_lines(whole[1]))
            else:
                yield path, text, False
        elif (leaf.lower() not in _CONTENT or tool.kind in _UNKNOWN) and _looks_like_command(text):
            yield path, text, True


def _is_argv(found: tuple[str, Any] | None) -> bool:
    """An argument whose value is a list of words (an argv), not a list of objects."""
    return (
        found is not None
        and isinstance(found[1], list)
        and all(isinstance(v, (str, int, float)) for v in found[1][:256])
    )


_PROGRAM_WORD = re.compile(r"^[\w./~+-]{1,256}$")


def _program_argv(tool: ToolView, seen: set[str]) -> Iterator[tuple[str, str, bool]]:
    """A program and its argv given apart by a tool whatever its kind (``{"executable": "rm",
    "arguments": ["-rf", "/"]}``): read as the command they make (its critical findings)."""
    program = tool.text(*_PROGRAM_NAMES)
    args = tool.get("args", "arguments", "argv")
    if program is None or args is None or not _is_argv(args) or not args[1]:
        return
    if not _PROGRAM_WORD.match(program[1].strip()):
        return
    seen.update({program[0], args[0]})
    for line in argv_lines([program[1].strip(), *args[1]]):
        yield args[0], line, True


_UNKNOWN = frozenset({ToolKind.OTHER, ToolKind.MCP})
"""Kinds that say nothing of what a tool does with its text."""


def _leaf(path: str) -> str:
    return re.split(r"[.\[]", path)[-1].rstrip("]").lower()


_ENV_NAMES = ("env", "environment", "env_vars", "envs", "environ")
_VARIABLE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,127}$")


def _with_environment(tool: ToolView, commands: list[str]) -> Iterator[tuple[str, str, bool]]:
    """A shell tool's environment argument (``{"env": {"LD_PRELOAD": …}}``) read as what it
    is: assignments before each of its commands (``LD_PRELOAD=… make``), bound to that
    argument. A name that is no variable name is left out: no shell sets it."""
    found = tool.get(*_ENV_NAMES)
    if found is None or not isinstance(found[1], dict) or not found[1]:
        return
    key, env = found
    assigns = " ".join(
        f"{name}={shlex.quote(str(value))}"
        for name, value in list(env.items())[:64]
        if isinstance(name, str) and _VARIABLE.match(name) and isinstance(value, (str, int, float))
    )
    if not assigns:
        return
    for command in commands[:16] or ["true"]:
        yield key, f"{assigns} {command}", False


_IPYTHON_LINE = re.compile(r"^[ \t]*(?:!!?|%(?:system|sx)\b)[ \t]*(.+)$", re.MULTILINE)
_IPYTHON_CELL = re.compile(
    r"\A[ \t]*%%(?:bash|sh|script[ \t]+(?:ba|z)?sh)\b[^\n]*\n(.*)\Z", re.DOTALL
)


def ipython_shell(code: str) -> list[str]:
    """The shell a notebook cell runs besides its Python: ``!cmd`` and ``%system cmd``
    lines, and the body of a ``%%bash`` / ``%%sh`` / ``%%script bash`` cell."""
    cell = _IPYTHON_CELL.match(code)
    if cell is not None:
        return [cell.group(1)]
    return [m.group(1) for m in _IPYTHON_LINE.finditer(code[: _MAX_EMBEDDED * 16])][:64]


_COMPUTER = re.compile(r"^(?:computer(?:_use)?(?:_\d+)?|xdotool|keyboard(?:_type)?)$", re.I)


def _typed(tool: ToolView) -> tuple[str, str] | None:
    """Text a computer-use tool types (``{"action": "type", "text": …}``): in a terminal it is
    a command line, so it is read as one (its critical findings only: it may be prose)."""
    if not _COMPUTER.match(tool.call.name):
        return None
    action = tool.text("action")
    text = tool.text("text")
    if action is None or text is None or action[1].strip().lower() not in ("type", "key"):
        return None
    return text


_BARE_PATH = re.compile(r"[\w.~+-]*/[\w./~+-]*")
"""One word of path characters with a slash: a file named, not a command line."""


def _looks_like_command(text: str) -> bool:
    """A string that is itself a dangerous-looking command line, not prose or a document."""
    s = text.strip()
    if not s or len(s) > _MAX_EMBEDDED or s.count("\n") > 8:
        return False
    if not re.match(r"^(?:sudo\s+)?[\w./~$-]+(?:\s|$)", s) or s.endswith((".", "?", "!")):
        return False
    if _BARE_PATH.fullmatch(s):  # a file's path (``deploy/crontab``) runs nothing by itself
        return False
    return bool(_EMBEDDED.search(s))


def _hit(
    flags: list[Flag], argument: str | None = None, file: str | None = None, line: int | None = None
) -> Hit:
    """One finding per argument or line (the registry keeps one): the most severe flag, the
    others named in its description."""
    top, rest = flags[0], flags[1:_MAX_HITS]
    detail = top.detail
    if rest:
        detail += " Also: " + "; ".join(f"{f.title} ({f.severity.value})" for f in rest) + "."
    return Hit(top.severity, top.title, detail, top.fix, file=file, line=line, argument=argument)


_HOST_ARGS = ("host", "hostname", "server", "remote_host", "target_host", "machine")
_CWD_ARGS = ("cwd", "workdir", "working_dir", "working_directory", "directory", "dir")
_HOST_NAME = re.compile(r"^(?:[\w-]+@)?([A-Za-z0-9][\w.-]{0,252})(?::\d+)?$")


def _remote_host(tool: ToolView) -> str | None:
    """The host a shell tool runs its command on (``ssh_exec(host=…, command=…)``)."""
    if tool.kind is not ToolKind.SHELL:
        return None
    got = tool.text(*_HOST_ARGS)
    found = _HOST_NAME.match(got[1].strip()) if got is not None else None
    return found.group(1).lower() if found is not None else None


def _tool_cwd(tool: ToolView) -> str | None:
    """The absolute folder a shell tool runs its command in (``cwd``, ``workdir``…), if any."""
    got = tool.text(*_CWD_ARGS) if tool.kind is ToolKind.SHELL else None
    return got[1].strip() if got is not None and got[1].strip().startswith("/") else None


def shell_command(ctx: CheckInput) -> Iterator[Hit]:
    """The shell commands of a tool call: the command of a shell tool (a string, or an argv
    list), any argument named like a command whatever the tool, and any other string argument
    that is plainly a dangerous command line (only its critical findings, to spare prose)."""
    tool = ctx.tool
    if tool is None:
        return
    base = Context(workspace=tool.call.workspace, allowed_hosts=ctx.options.allowed_hosts)
    host, cwd = _remote_host(tool), _tool_cwd(tool)
    for argument, text, conservative in _sources(tool):
        flags = judge(text, Context(base.workspace, base.allowed_hosts, cwd=cwd, host=host))
        named = cli_prefixed(tool.call.name, text) if tool.kind is ToolKind.SHELL else text
        if named != text:  # ``aws_cli(["s3", "rm", …])``: also as the program it names runs it
            seen = {f.title for f in flags}
            more = judge(named, Context(base.workspace, base.allowed_hosts, host=host))
            flags += [f for f in more if f.title not in seen]
            flags.sort(key=lambda f: -_SEVERITIES.index(f.severity))
        if conservative:
            flags = [f for f in flags if f.severity is Severity.CRITICAL]
            if _leaf(argument) in _CONTENT and _typed(tool) is None:
                # the text of a tool nothing says runs it: a person confirms
                flags = [replace(f, severity=Severity.HIGH) for f in flags]
        if flags:
            yield _hit(flags, argument=argument)


def shell_scripts(ctx: CheckInput) -> Iterator[Hit]:
    """The same checks over shell that arrives in the files of a change."""
    base = Context(
        workspace=ctx.tool.call.workspace if ctx.tool is not None else None,
        allowed_hosts=ctx.options.allowed_hosts,
    )
    for file in ctx.files:
        if file.path is not None and file.path.startswith("<"):
            continue
        reported: set[str] = set()
        for unit in script_units(file):
            workspace = "/" if unit.in_image else base.workspace
            flags = judge(unit.text, Context(workspace, base.allowed_hosts))
            if unit.baseline:
                old = {f.title for line in unit.baseline for f in judge(line, Context())}
                flags = [f for f in flags if f.title not in old]
            if not unit.report_problems:
                flags = [f for f in flags if not f.title.startswith("could not read")]
            if unit.in_image:  # the image's own accounts (a non-root user is good practice)
                flags = [f for f in flags if f.title not in HOST_ONLY]
            if unit.critical_only:
                flags = [f for f in flags if f.severity is Severity.CRITICAL]
            flags = [f for f in flags if f.title not in reported][:_MAX_HITS]
            if flags and len(reported) < _MAX_HITS:
                reported.update(f.title for f in flags)
                yield _hit(flags, file=file.path, line=unit.line)
