"""A tool call as people read it: its name, its kind, each argument (a string as it is, any
other value as indented JSON) and the findings about it, each under the argument it concerns;
the code the call writes as the file diffs the local checks read.

Pure and bounded: every value is cut to a budget of characters (a hostile agent sends a 1 MB
string or an object of 10,000 keys), nothing recurses on the arguments, nothing raises. The
values are raw text: the terminal renderers pass them through ``printable`` and the inbox's
templates escape them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import msgspec

from humangr.contracts import ActionContext, Finding, ToolCall
from humangr.engine.checks.diff import FileDiff
from humangr.engine.checks.tools.files import tool_files
from humangr.engine.checks.tools.view import infer_kind, tool_view

from .tool_json import pretty_json

__all__ = [
    "MAX_CALL_CHARS",
    "MAX_CALL_LINES",
    "MAX_VALUE_CHARS",
    "MAX_VALUE_LINES",
    "ArgumentShown",
    "ToolCallShown",
    "WrittenFile",
    "argument_label",
    "of_file",
    "owner",
    "split_findings",
    "tool_call_shown",
]

MAX_VALUE_CHARS = 64_000
"""The most characters of one argument's value shown."""
MAX_CALL_CHARS = 256_000
"""The most characters of all the arguments of one call shown."""
MAX_VALUE_LINES = 2_000
"""The most lines of one argument's value shown."""
MAX_CALL_LINES = 5_000
"""The most lines of all the arguments of one call shown."""
FOLD_LINES = 12
FOLD_CHARS = 1_200
"""A value longer than this is folded behind its first lines."""
PREVIEW_LINES = 3
PREVIEW_CHARS = 160


def _norm(path: str) -> str:
    path = path.removeprefix("./")
    return path[2:] if path.startswith(("a/", "b/")) else path


def of_file(finding: Finding, diff: FileDiff) -> bool:
    """Whether ``finding`` is about the file of ``diff`` (by its new or old path)."""
    if finding.file is None:
        return False
    names = {p for p in (diff.path, diff.old_path) if p}
    return finding.file in names or _norm(finding.file) in {_norm(p) for p in names}


def argument_label(finding: Finding, tool: str | None = None) -> str:
    """``argument `command` of bash: `` for a finding about an argument (as the gate's reasons
    say it), else ``""``; ``tool`` names the tool when the finding does not."""
    if not finding.argument:
        return ""
    name = finding.tool or tool
    return (
        f"argument `{finding.argument}` of {name}: " if name else f"argument `{finding.argument}`: "
    )


def owner(argument: str, names: Sequence[str]) -> str | None:
    """The top-level argument among ``names`` that the argument path ``argument`` lies in
    (``headers.Authorization`` → ``headers``, ``argv[2]`` → ``argv``); the longest wins."""
    inside = [n for n in names if argument == n or argument.startswith((f"{n}.", f"{n}["))]
    return max(inside, key=len, default=None)


@dataclass(frozen=True, slots=True)
class ArgumentShown:
    """One top-level argument of the call and the findings about it."""

    name: str
    type: str
    """``string``, ``object``, ``array``, ``number``, ``boolean`` or ``null``."""
    size: str
    """``3 lines, 1,204 characters``, ``12 keys``, ``4 items``; empty for a short scalar."""
    text: str
    """The value as shown: a string as it is, anything else as indented JSON; cut to a budget."""
    clipped: bool
    """Whether ``text`` is only the beginning of the value."""
    total: int
    """Characters of the whole value (a string's length, else its compact JSON's)."""
    findings: list[Finding] = field(default_factory=list)
    flagged: frozenset[int] = frozenset()
    """Lines of ``text`` (from 1) that findings point at."""
    truncated: bool = False
    """The submitter cut this argument to fit the size limit: it was not fully reviewed."""
    file: str | None = None
    """The file this argument's content creates or edits, shown as its diff instead."""

    @property
    def lines(self) -> list[str]:
        return self.text.split("\n")

    @property
    def folded(self) -> bool:
        """Long enough to be shown folded behind its first lines."""
        return len(self.text) > FOLD_CHARS or self.text.count("\n") >= FOLD_LINES

    @property
    def inline(self) -> bool:
        """Short and on one line: shown beside its name."""
        return not self.clipped and "\n" not in self.text and len(self.text) <= 120

    @property
    def preview(self) -> str:
        """The first lines of the value, each cut short."""
        lines = self.lines
        shown = [_clip(line, PREVIEW_CHARS) for line in lines[:PREVIEW_LINES]]
        if len(lines) > PREVIEW_LINES:
            shown.append("…")
        return "\n".join(shown)


@dataclass(frozen=True, slots=True)
class WrittenFile:
    """A file the call writes or edits, as the code checks read it, with its findings."""

    diff: FileDiff
    argument: str
    findings: list[Finding]


@dataclass(frozen=True, slots=True)
class ToolCallShown:
    """The call as the reports, ``humangr show``, the inbox and MCP show it."""

    name: str
    kind: str
    kind_note: str
    """Where the kind came from: "as the call gives it", "from the tool's name bash", …"""
    workspace: str | None
    arguments: list[ArgumentShown]
    files: list[WrittenFile]
    other: list[Finding]
    """Findings about the call that name none of its arguments."""


def _first_lines(text: str, count: int) -> tuple[str, bool]:
    """The first ``count`` lines of ``text`` (at least one), and whether any were left out."""
    end = -1
    for _ in range(max(count, 1)):
        end = text.find("\n", end + 1)
        if end < 0:
            return text, False
    return text[:end], True


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _plural(count: int, word: str) -> str:
    return f"{count:,} {word}{'' if count == 1 else 's'}"


def _describe(value: Any) -> tuple[str, str]:
    if isinstance(value, str):
        lines = value.count("\n") + 1
        size = _plural(len(value), "character")
        return "string", (f"{_plural(lines, 'line')}, {size}" if lines > 1 else size)
    if isinstance(value, dict):
        return "object", _plural(len(value), "key")
    if isinstance(value, list):
        return "array", _plural(len(value), "item")
    if isinstance(value, bool):
        return "boolean", ""
    if value is None:
        return "null", ""
    return "number", ""


def _total(value: Any) -> int:
    if isinstance(value, str):
        return len(value)
    try:
        return len(msgspec.json.encode(value))
    except (TypeError, ValueError, OverflowError, RecursionError):
        return 0


def _written(call: ToolCall) -> tuple[list[tuple[FileDiff, str]], str, str]:
    """The files the call writes (with their argument) and its kind with the note saying
    where the kind came from."""
    try:
        view = tool_view(call)
        files = tool_files(view)
        kind, notes = view.kind, view.notes
    except Exception:  # a display never fails on a call the checks could not read
        kind, notes = infer_kind(call)
        return [], kind.value, notes[0] if notes else ""
    written = [
        (diff, files.arguments[diff.path])
        for diff in files.files
        if diff.path and diff.path not in files.pseudo and diff.path in files.arguments
    ]
    return written, kind.value, notes[0] if notes else ""


def split_findings(
    action: ActionContext | None, findings: Sequence[Finding]
) -> tuple[list[Finding], list[Finding]]:
    """The findings about the action's tool call (naming an argument or a file it writes) and
    the rest; all are the rest when the action is no tool call."""
    if action is None or action.tool_call is None:
        return [], list(findings)
    written = [diff for diff, _ in _written(action.tool_call)[0]]
    mine, rest = [], []
    for finding in findings:
        if finding.argument or any(of_file(finding, diff) for diff in written):
            mine.append(finding)
        else:
            rest.append(finding)
    return mine, rest


def tool_call_shown(
    call: ToolCall, findings: Sequence[Finding], *, budget: int = MAX_CALL_CHARS
) -> ToolCallShown:
    """``call`` for display, each of ``findings`` under the argument it names (or in the diff of
    a file the call writes, or with the findings about no argument); ``budget`` characters of
    values at most, no value above ``MAX_VALUE_CHARS``."""
    written, kind, note = _written(call)
    note = note.removeprefix(f"kind {kind}").strip(" ,:")
    files = [WrittenFile(diff, argument, []) for diff, argument in written]
    by_argument: dict[str, list[Finding]] = {name: [] for name in call.arguments}
    names = list(call.arguments)
    other: list[Finding] = []
    for finding in findings:
        home = next((f for f in files if of_file(finding, f.diff)), None)
        if home is not None:
            home.findings.append(finding)
            continue
        top = owner(finding.argument, names) if finding.argument else None
        if top is None:
            other.append(finding)
        else:
            by_argument[top].append(finding)
    shown_as_file = {f.argument: f.diff.path for f in files}
    arguments = []
    left, lines_left = budget, MAX_CALL_LINES
    for name, value in call.arguments.items():
        type_, size = _describe(value)
        limit = max(min(MAX_VALUE_CHARS, left), 0)
        if name in shown_as_file:
            text, clipped = "", False
        elif isinstance(value, str):
            text, clipped = value[:limit], len(value) > limit
        else:
            text, clipped = pretty_json(value, limit)
        text, more = _first_lines(text, min(MAX_VALUE_LINES, lines_left))
        clipped = clipped or more
        left -= len(text)
        lines_left -= text.count("\n") + 1
        mine = by_argument[name]
        flagged = frozenset(
            f.line for f in mine if f.line is not None and not f.file and f.argument == name
        )
        arguments.append(
            ArgumentShown(
                name=name,
                type=type_,
                size=size,
                text=text,
                clipped=clipped,
                total=_total(value),
                findings=mine,
                flagged=flagged,
                truncated=name in call.truncated,
                file=shown_as_file.get(name),
            )
        )
    return ToolCallShown(
        name=call.name,
        kind=kind,
        kind_note=note,
        workspace=call.workspace,
        arguments=arguments,
        files=files,
        other=other,
    )
