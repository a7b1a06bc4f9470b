"""Claude Code's ``PreToolUse`` hook as a review: its input JSON read into an ``ActionContext``
(a ``ToolCall`` with the tool's own name and arguments), and a decision written as the hook's
answer (``allow`` / ``deny`` / ``ask``).

Pure functions but one: ``edit_diff`` reads the file an ``Edit`` / ``MultiEdit`` changes, so the
edit is reviewed as the real diff it makes there. An edit that cannot be applied as Claude
Code would apply it (the file is missing, an ``old_string`` is absent or not unique) is
reviewed as given — its own strings — and the answer says the diff could not be built: a
different edit is never reviewed in its place.
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from humangr.contracts import ActionContext, HumanLayerReport, Outcome, ToolCall, ToolKind
from humangr.contracts.errors import HumangrError
from humangr.contracts.review import TOOL_NAME_PATTERN, action_problem
from humangr.contracts.types import MAX_DIFF_BYTES

__all__ = [
    "EVENT",
    "KINDS",
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
MAX_EDITED_FILE = MAX_DIFF_BYTES // 2
"""Bytes of a file an edit is diffed against at most (the guard's limit)."""

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


def _edits(arguments: Mapping[str, Any]) -> list[tuple[str, str, bool]] | None:
    """The (old, new, replace_all) of an Edit or MultiEdit, or ``None`` if malformed."""
    items = arguments.get("edits") if "edits" in arguments else [arguments]
    if not isinstance(items, list) or not items:
        return None
    out = []
    for item in items:
        if not isinstance(item, dict):
            return None
        old, new = item.get("old_string"), item.get("new_string")
        if not isinstance(old, str) or not isinstance(new, str) or not old:
            return None
        out.append((old, new, item.get("replace_all") is True))
    return out


def _applies(before: str, edits: list[tuple[str, str, bool]]) -> str | None:
    """Why the edits do not apply to ``before`` as Claude Code applies them, else ``None``."""
    text = before
    for n, (old, new, every) in enumerate(edits):
        which = f"edit {n + 1}'s old_string" if len(edits) > 1 else "old_string"
        count = text.count(old)
        if count == 0:
            return f"{which} is not in the file"
        if count > 1 and not every:
            return f"{which} occurs {count} times in the file and replace_all is not set"
        text = text.replace(old, new) if every else text.replace(old, new, 1)
    return None


def _read_regular(path: Path, limit: int) -> bytes | str:
    """At most ``limit`` bytes of the regular file at ``path``, else why not. Opened without
    blocking and checked once open, so a FIFO or a device put there never hangs the hook."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0))
    except FileNotFoundError:
        return "does not exist"
    except OSError as exc:
        return f"cannot be read ({exc.strerror or type(exc).__name__})"
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return "is not a regular file"
        chunks: list[bytes] = []
        size = 0
        while size < limit:
            chunk = os.read(fd, min(1 << 20, limit - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        return b"".join(chunks)
    except OSError as exc:
        return f"cannot be read ({exc.strerror or type(exc).__name__})"
    finally:
        os.close(fd)


def edit_diff(call: ToolCall) -> tuple[str | None, str | None]:
    """For an Edit / MultiEdit: (the diff of the edit applied to the file on disk, ``None``),
    or (``None``, why that diff could not be built). ``(None, None)`` for any other tool."""
    if call.name not in ("Edit", "MultiEdit"):
        return None, None
    from humangr.engine.checks.tools.edits import edited_diff

    path_value = call.arguments.get("file_path")
    edits = _edits(call.arguments)
    if not isinstance(path_value, str) or not path_value or edits is None:
        return None, "the edit's file_path, old_string or new_string is missing or not text"
    path = Path(call.workspace) / path_value if call.workspace else Path(path_value)
    data = _read_regular(path, MAX_EDITED_FILE + 1)
    if isinstance(data, str):
        return None, f"{path_value} {data}"
    if len(data) > MAX_EDITED_FILE:
        return None, f"{path_value} is larger than {MAX_EDITED_FILE:,} bytes"
    try:
        before = data.decode("utf-8")
    except UnicodeDecodeError:
        return None, f"{path_value} is not UTF-8 text"
    problem = _applies(before, edits)
    if problem is not None:
        return None, problem
    diff = edited_diff(call, before)
    if diff is None or len(diff.encode("utf-8")) > MAX_EDITED_FILE:
        return None, "the diff of the edit is empty or too large"
    return diff, None


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
