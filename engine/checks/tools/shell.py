"""Checks of shell commands: in tool calls (``shell_command``) and in the files of a change
(``shell_scripts``: shell scripts, Dockerfile ``RUN`` lines, Makefile recipes, CI steps).

A command is read with a real shell parser (``shell_parse``), unwrapped into everything it
runs (``shell_unwrap``) and judged by the rule families (``shell_rules_*``): destruction,
remote code, reverse shells, GTFOBins escapes, secret reads, exfiltration, persistence,
privilege escalation, hidden traces. What cannot be read is a finding of its own.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import replace

from humangr.contracts import Severity, ToolKind

from ..base import CheckInput, Hit
from ..remember import remembered
from .code_resolved import resolved_hits
from .shell_files import script_units
from .shell_names import cli_prefixed
from .shell_rules import Context, Flag, evaluate
from .shell_sources import CONTENT, leaf, sources, typed
from .shell_unwrap import CACHED_CHARS, unwrap
from .view import ToolView

__all__ = ["HOST_ONLY", "judge", "shell_command", "shell_scripts"]

_MAX_HITS = 12
_SEVERITIES = list(Severity)
HOST_ONLY = frozenset(
    {"changes user accounts", "writes a system file", "starts an interactive shell"}
)
"""Flags about this machine that do not apply to a command run inside a container image."""


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
    for argument, text, conservative in sources(tool):
        flags = judge(text, Context(base.workspace, base.allowed_hosts, cwd=cwd, host=host))
        named = cli_prefixed(tool.call.name, text) if tool.kind is ToolKind.SHELL else text
        if named != text:  # ``aws_cli(["s3", "rm", …])``: also as the program it names runs it
            seen = {f.title for f in flags}
            more = judge(named, Context(base.workspace, base.allowed_hosts, host=host))
            flags += [f for f in more if f.title not in seen]
            flags.sort(key=lambda f: -_SEVERITIES.index(f.severity))
        if conservative:
            flags = [f for f in flags if f.severity is Severity.CRITICAL]
            if leaf(argument) in CONTENT and typed(tool) is None:
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
    yield from resolved_hits(ctx, base, judge)
