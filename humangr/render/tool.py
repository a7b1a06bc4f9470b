"""A tool call rendered for a terminal (``humangr show``, ``humangr review``, MCP's text) and
for markdown: its name and kind, each argument, the findings under the argument they concern
and the code it writes as the diff the checks read.

Everything the agent sent passes through ``printable`` (control and bidirectional characters
appear as escapes) and is cut to a bounded number of lines and characters.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from humangr.contracts import ActionContext, Finding, ToolCall
from humangr.engine.tool_render import (
    ArgumentShown,
    ToolCallShown,
    split_findings,
    tool_call_shown,
)

from .diff import diff_with_findings, file_lines, finding_lines, printable

__all__ = [
    "action_with_findings",
    "call_summary",
    "call_summary_markdown",
    "md_code",
    "tool_call_lines",
]

MAX_VALUE_LINES = 40
"""Lines of one argument's value a terminal shows."""
MAX_LINE_CHARS = 400
MAX_CALL_LINES = 600
"""Lines of all the arguments' values a terminal shows."""
SUMMARY_ARGUMENTS = 20
SUMMARY_CHARS = 120
_BACKTICKS = re.compile(r"`+")


def _cut(text: str, limit: int = MAX_LINE_CHARS) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _kind(shown: ToolCallShown) -> str:
    """``kind shell, from the tool's name bash``."""
    return f"kind {shown.kind}" + (f", {printable(shown.kind_note)}" if shown.kind_note else "")


def _more(arg: ArgumentShown, hidden_lines: int) -> str | None:
    """What of the value is not shown, if anything."""
    if arg.type == "string":
        whole = f"{len(arg.text):,} of {arg.total:,} characters"
    else:
        whole = f"the value is {arg.total:,} characters of JSON"
    parts = []
    if hidden_lines > 0:
        parts.append(f"{hidden_lines:,} more lines not shown")
    if arg.clipped:
        parts.append(f"cut to fit ({whole})")
    if not parts:
        return None
    return f"… {', '.join(parts)}; --format json has the whole call"


def _argument_lines(arg: ArgumentShown, tool: str, budget: int) -> tuple[list[str], int]:
    """One argument: a heading (with the value, when short), the value's lines, its findings;
    and how many value lines it used of ``budget``."""
    name = printable(arg.name)
    what = ", ".join(part for part in (arg.type, arg.size) if part)
    flags = " — NOT FULLY REVIEWED (cut to fit by the submitter)" if arg.truncated else ""
    used = 0
    if arg.file is not None:
        out = [f"  argument `{name}` ({what}): written as {printable(arg.file)}, below{flags}"]
    elif arg.inline:
        out = [f"  argument `{name}` ({what}): {printable(arg.text)}{flags}"]
    else:
        out = [f"  argument `{name}` ({what}):{flags}"]
        lines = arg.lines
        shown = lines[: max(min(MAX_VALUE_LINES, budget), 0)]
        numbered = len(lines) > 1 and arg.type == "string"
        for number, text in enumerate(shown, start=1):
            mark = ">" if number in arg.flagged else " "
            gutter = f"{number:>5} {mark}| " if numbered else f"    {mark}| "
            out.append(f"  {gutter}{printable(_cut(text))}")
        used = len(shown)
        more = _more(arg, len(lines) - len(shown))
        if more:
            out.append(f"        {more}")
    for finding in arg.findings:
        out.extend(finding_lines(finding, "      ", marker="^ ", where=True, tool=tool))
    return out, used


def tool_call_lines(call: ToolCall, findings: Sequence[Finding]) -> list[str]:
    """The call for ``humangr show``: name, kind, each argument with its findings under it, the
    files it writes as diffs with their findings at their lines, then the rest."""
    shown = tool_call_shown(call, findings)
    out = [f"=== tool call {shown.name} ({_kind(shown)})"]
    if shown.workspace:
        out.append(f"  workspace {printable(shown.workspace)}")
    if not shown.arguments:
        out.append("  (no arguments)")
    budget = MAX_CALL_LINES
    for arg in shown.arguments:
        lines, used = _argument_lines(arg, shown.name, budget)
        out.extend(lines)
        budget -= used
    for written in shown.files:
        lines, loose = file_lines(written.diff, written.findings)
        lines[0] += f", written by argument `{printable(written.argument)}` of {shown.name}"
        out.extend(lines)
        for finding in loose:
            out.extend(finding_lines(finding, "    ", where=True, tool=shown.name))
    if shown.other:
        out.append(f"=== findings about {shown.name} that name none of its arguments")
        for finding in shown.other:
            out.extend(finding_lines(finding, "    ", where=True, tool=shown.name))
    return out


def action_with_findings(action: ActionContext | None, findings: Sequence[Finding]) -> list[str]:
    """The action as ``humangr show`` lays it out: its tool call (if any) with the findings
    about it, and its diff with the other findings at their lines."""
    if action is None or action.tool_call is None:
        return diff_with_findings(action, findings)
    mine, rest = split_findings(action, findings)
    out = tool_call_lines(action.tool_call, mine)
    if action.code_diff:
        out += diff_with_findings(action, rest)
    elif rest:
        out.append("=== findings about no argument of the call")
        for finding in rest:
            out.extend(finding_lines(finding, "    ", where=True))
    return out


def _short(arg: ArgumentShown) -> str:
    """The argument on one line: its value (JSON folded onto one line), cut short."""
    if arg.file is not None:
        return f"written as {arg.file} ({arg.size})"
    if arg.inline:
        return arg.text
    if arg.type == "string":
        first = arg.text.split("\n", 1)[0]
        whole = first == arg.text
    else:
        first = " ".join(line.strip() for line in arg.text[: SUMMARY_CHARS * 4].split("\n"))
        whole = len(arg.text) < SUMMARY_CHARS * 4
    if whole and not arg.clipped and len(first) <= SUMMARY_CHARS:
        return first
    return f"{_cut(first, SUMMARY_CHARS)} ({arg.size})"


def call_summary(call: ToolCall) -> list[str]:
    """The call in a few lines for a decision's text: name, kind, one line per argument."""
    shown = tool_call_shown(call, (), budget=SUMMARY_ARGUMENTS * MAX_LINE_CHARS)
    out = [f"  tool call {shown.name} ({_kind(shown)})"]
    if shown.workspace:
        out.append(f"    workspace {printable(shown.workspace)}")
    for arg in shown.arguments[:SUMMARY_ARGUMENTS]:
        flag = " (NOT FULLY REVIEWED)" if arg.truncated else ""
        out.append(f"    {printable(arg.name)}: {printable(_cut(_short(arg)))}{flag}")
    if len(shown.arguments) > SUMMARY_ARGUMENTS:
        out.append(f"    and {len(shown.arguments) - SUMMARY_ARGUMENTS} more arguments")
    return out


def md_code(text: str) -> str:
    """``text`` as a markdown code span: printable, fenced by more backticks than it holds."""
    text = printable(text)
    longest = max((len(run) for run in _BACKTICKS.findall(text)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if text.startswith("`") or text.endswith("`") or not text.strip() else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def call_summary_markdown(call: ToolCall) -> list[str]:
    """The call as markdown bullets for a decision in markdown."""
    shown = tool_call_shown(call, (), budget=SUMMARY_ARGUMENTS * MAX_LINE_CHARS)
    out = [f"Tool call {md_code(shown.name)}, {_kind(shown)}:", ""]
    if shown.workspace:
        out.append(f"- workspace {md_code(shown.workspace)}")
    for arg in shown.arguments[:SUMMARY_ARGUMENTS]:
        flag = " (**not fully reviewed**)" if arg.truncated else ""
        out.append(f"- {md_code(arg.name)}: {md_code(_cut(_short(arg)))}{flag}")
    if len(shown.arguments) > SUMMARY_ARGUMENTS:
        out.append(f"- and {len(shown.arguments) - SUMMARY_ARGUMENTS} more arguments")
    return out
