"""Claude Code's ``PreToolUse`` hook as a review: its input JSON read into an ``ActionContext``
(a ``ToolCall`` with the tool's own name and arguments), and a decision written as the hook's
answer (``allow`` / ``deny`` / ``ask``).

Pure functions; ``edit_diff`` (``claude_code_edits``) reads the file an ``Edit`` /
``MultiEdit`` changes, so the edit is reviewed as the real diff it makes there.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from humangr.contracts import ActionContext, HumanLayerReport, Outcome, ToolCall, ToolKind
from humangr.contracts.errors import HumangrError
from humangr.contracts.review import TOOL_NAME_PATTERN, action_problem

from .claude_code_edits import MAX_EDITED_FILE, edit_diff

__all__ = [
    "EVENT",
    "KINDS",
    "MAX_EDITED_FILE",
    "HookInput",
    "HookInputError",
    "Permission",
    "action_of",
    "answer",
    "answer_of",
    "edit_diff",
    "hook_input",
    "tool_call_of",
]

EVENT = "PreToolUse"
Permission = Literal["allow", "deny", "ask"]
MAX_REASON = 4_000
"""Characters of ``permissionDecisionReason`` at most (the agent reads it)."""

KINDS: Mapping[str, ToolKind] = {
    "Bash": ToolKind.SHELL,
    "Write": ToolKind.FILE_WRITE,
    "Edit": ToolKind.FILE_EDIT,
    "MultiEdit": ToolKind.FILE_EDIT,
    "NotebookEdit": ToolKind.FILE_EDIT,
    "Read": ToolKind.FILE_READ,
    "Grep": ToolKind.FILE_READ,
    "Glob": ToolKind.FILE_READ,
    "LS": ToolKind.FILE_READ,
    "NotebookRead": ToolKind.FILE_READ,
    "WebFetch": ToolKind.HTTP,
    "WebSearch": ToolKind.HTTP,
    "Task": ToolKind.OTHER,
    "TodoWrite": ToolKind.OTHER,
    "ExitPlanMode": ToolKind.OTHER,
}
"""Claude Code's own tools and what each does. An ``mcp__<server>__<tool>`` and any other tool
get no kind here: the engine infers it from the name and the arguments (``mcp`` for an MCP
tool whose name says nothing more, ``other`` when nothing does), so a tool that runs commands
is still read as a shell."""

_TOOL = re.compile(TOOL_NAME_PATTERN)
_ID = 256


class HookInputError(HumangrError, ValueError):
    """The hook's input cannot be reviewed as it is (the answer is ``deny``)."""


@dataclass(frozen=True, slots=True)
class HookInput:
    """The parts of a ``PreToolUse`` input that are reviewed."""

    tool_name: str
    tool_input: dict[str, Any]
    cwd: str | None
    session_id: str
    tool_use_id: str


def _text(data: Mapping[str, Any], key: str, *, limit: int = _ID) -> str:
    value = data.get(key, "")
    if not isinstance(value, str):
        raise HookInputError(f"`{key}` is {type(value).__name__}, not a string")
    if len(value) > limit:
        raise HookInputError(f"`{key}` has {len(value):,} characters; the limit is {limit:,}")
    return value


def hook_input(data: object) -> HookInput:
    """``data`` (the decoded stdin) as a ``PreToolUse`` input, else ``HookInputError`` saying
    what is wrong."""
    if not isinstance(data, dict):
        raise HookInputError(f"the hook input is a JSON {type(data).__name__}, not an object")
    event = data.get("hook_event_name", EVENT)
    if event != EVENT:
        shown = event[:40] if isinstance(event, str) else type(event).__name__
        raise HookInputError(f"hook_event_name is {shown!r}: this hook answers {EVENT} only")
    name = data.get("tool_name")
    if not isinstance(name, str) or not _TOOL.match(name):
        shown = name[:80] if isinstance(name, str) else type(name).__name__
        raise HookInputError(f"tool_name {shown!r} is not a tool name (1-128 of A-Z a-z 0-9 _ . -)")
    if "tool_input" not in data:
        raise HookInputError("the hook input has no tool_input")
    arguments = data["tool_input"]
    if not isinstance(arguments, dict):
        raise HookInputError(f"tool_input is a JSON {type(arguments).__name__}, not an object")
    cwd = _text(data, "cwd", limit=512) or None
    if cwd is not None and not cwd.startswith("/"):
        raise HookInputError(f"cwd {cwd[:80]!r} is not an absolute path")
    return HookInput(
        tool_name=name,
        tool_input=arguments,
        cwd=cwd,
        session_id=_text(data, "session_id"),
        tool_use_id=_text(data, "tool_use_id"),
    )


def tool_call_of(hook: HookInput) -> ToolCall:
    """The tool call as Claude Code will run it: its name, its arguments unchanged, the kind of
    a known tool (else inferred by the engine), and ``cwd`` as the workspace."""
    return ToolCall(
        name=hook.tool_name,
        arguments=hook.tool_input,
        kind=KINDS.get(hook.tool_name),
        workspace=hook.cwd,
    )


def _notebook_diff(call: ToolCall) -> str | None:
    """A NotebookEdit's new code cell as a new file, so the code checks read it."""
    source = call.arguments.get("new_source")
    path = call.arguments.get("notebook_path")
    if call.name != "NotebookEdit" or not isinstance(source, str) or not source.strip():
        return None
    if call.arguments.get("cell_type") == "markdown" or not isinstance(path, str):
        return None
    name = path.lstrip("/") + ".cell.py"
    lines = source.splitlines()
    body = "".join(f"+{line}\n" for line in lines)
    return f"--- /dev/null\n+++ b/{name}\n@@ -0,0 +1,{len(lines)} @@\n{body}"


def action_of(
    hook: HookInput,
    call: ToolCall,
    *,
    agent_id: str,
    diff: str | None = None,
    diff_problem: str | None = None,
    notes: Sequence[str] = (),
) -> ActionContext:
    """The action that reviews ``call``: its session in the description and the environment
    (so a reviewer groups a session's calls), the edit's diff when it was built, ``notes`` (a
    path reviewed where its symbolic link leads). Raises
    ``HookInputError`` if the call cannot be reviewed (too large, nested too deeply)."""
    import msgspec

    kind = f" ({call.kind.value})" if call.kind is not None else ""
    session = f" in session {hook.session_id}" if hook.session_id else ""
    note = "".join(f" {n[:600]}." for n in notes)
    note += f" The edit's diff could not be built: {diff_problem}." if diff_problem else ""
    environment = {"agent": "claude-code"}
    if hook.session_id:
        environment["claude_code.session_id"] = hook.session_id
    if hook.tool_use_id:
        environment["claude_code.tool_use_id"] = hook.tool_use_id
    action = ActionContext(
        agent_id=agent_id,
        action_type="tool_call",
        action_description=(f"Claude Code{session} calls the tool {call.name}{kind}.{note}")[
            :2_000
        ],
        code_diff=diff if diff is not None else _notebook_diff(call),
        tool_call=call,
        environment=environment,
    )
    try:  # what the Supervisor would refuse: said now, in the answer
        checked = msgspec.convert(msgspec.to_builtins(action), ActionContext)
    except msgspec.ValidationError as exc:
        raise HookInputError(f"the tool call cannot be reviewed: {str(exc)[:300]}") from None
    problem = action_problem(checked)
    if problem is not None:
        raise HookInputError(f"the tool call cannot be reviewed: {problem}")
    return checked


def answer(permission: Permission, reason: str) -> dict[str, Any]:
    """The hook's answer: ``{"hookSpecificOutput": {...}}`` as Claude Code reads it."""
    if len(reason) > MAX_REASON:
        reason = reason[: MAX_REASON - 1] + "…"
    return {
        "hookSpecificOutput": {
            "hookEventName": EVENT,
            "permissionDecision": permission,
            "permissionDecisionReason": reason,
        }
    }


def _reasons(report: HumanLayerReport, limit: int = 5) -> str:
    reasons = [r.strip() for r in report.blocking_reasons if r.strip()]
    shown = "; ".join(r if len(r) <= 400 else r[:399] + "…" for r in reasons[:limit])
    more = len(reasons) - limit
    return (shown or "no reason given") + (f"; and {more} more" if more > 0 else "")


def answer_of(
    report: HumanLayerReport,
    tool: str,
    *,
    resolve_hint: str = "",
    diff_problem: str | None = None,
) -> tuple[Permission, str]:
    """The permission and its reason for a decision: approved → allow, rejected → deny with
    the reasons written for the agent, needs_review → ask (the user's prompt shows why)."""
    note = f" (The edit's diff could not be built: {diff_problem}.)" if diff_problem else ""
    action = report.action_id
    if report.outcome is Outcome.APPROVED:
        by = f" by {report.resolved_by}" if report.resolved_by else ""
        return "allow", f"HUMANGR approved this {tool} call{by} ({action}).{note}"
    if report.outcome is Outcome.REJECTED:
        by = f" ({report.resolved_by}: {report.resolution_reason})" if report.resolved_by else ""
        return "deny", (
            f"HUMANGR rejected this {tool} call ({action}){by}: {_reasons(report)}.{note} "
            "Do not run it as it is: change what the reasons name, or ask the user."
        )
    hint = f" {resolve_hint}" if resolve_hint else ""
    return "ask", (
        f"HUMANGR: a human must decide on this {tool} call ({action}): "
        f"{_reasons(report)}.{note}{hint}"
    )
