"""What an agent submits for review: the action, its tool call, and whether it can be reviewed."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any

import msgspec
from msgspec import Meta

from .enums import LayerID, ToolKind
from .types import END, Body, Hash, LongText, Name, Path, ShortText, Token, _Frozen, utc_now

__all__ = [
    "MAX_TOOL_DEPTH",
    "TOOL_NAME_PATTERN",
    "ActionContext",
    "ActionSubmitted",
    "ArgumentName",
    "CancelAction",
    "ToolCall",
    "ToolName",
    "action_problem",
    "tool_call_problem",
]

TOOL_NAME_PATTERN = r"^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}" + END
"""A tool's name as frameworks spell it (``bash``, ``Write``, ``mcp__github__create_issue``)."""
MAX_TOOL_DEPTH = 32
"""How deeply a tool call's arguments may nest (objects and arrays)."""

ToolName = Annotated[
    str, Meta(pattern=TOOL_NAME_PATTERN, description="The tool's name: 1-128 of A-Z a-z 0-9 _ . -")
]
ArgumentName = Annotated[str, Meta(min_length=1, max_length=128)]


class ToolCall(_Frozen, frozen=True, kw_only=True):
    """One tool call of an agent, as its framework passes it: the thing that will run."""

    name: ToolName
    arguments: Annotated[dict[ArgumentName, Any], Meta(max_length=256)] = {}
    """The call's arguments, a JSON object exactly as the tool receives it."""
    kind: ToolKind | None = None
    """What the call does; inferred from the name and the arguments when not given."""
    workspace: Path | None = None
    """The folder the agent works in; file paths outside it are reported."""
    truncated: Annotated[list[ArgumentName], Meta(max_length=256)] = []
    """Arguments cut to fit the size limit (the submitter opted in): not fully reviewed."""


class ActionContext(_Frozen, frozen=True, kw_only=True):
    """What an agent wants to do: the thing under review."""

    agent_id: Token
    action_type: Name
    action_description: LongText
    code_diff: Body | None = None
    affected_files: Annotated[list[Path], Meta(max_length=1_000)] = []
    environment: Annotated[dict[Name, ShortText], Meta(max_length=64)] = {}
    tool_call: ToolCall | None = None
    """The tool call under review, when the action is one (see docs/tool-calls.md)."""


class ActionSubmitted(_Frozen, frozen=True, kw_only=True):
    """An action published for review on ``hl.actions.submit``."""

    action_id: Token
    action: ActionContext
    submitted_at: datetime = msgspec.field(default_factory=utc_now)
    action_hash: Hash | None = None
    """sha256 of the canonical action; filled in by the submitter or the Supervisor."""
    layers: Annotated[list[LayerID], Meta(max_length=7)] | None = None
    """Layers to run; ``None`` means every configured layer."""


class CancelAction(_Frozen, frozen=True, kw_only=True):
    """Stop all work on an action (``hl.actions.<action_id>.cancel``)."""

    action_id: Token
    reason: ShortText = ""


def action_problem(action: ActionContext, *, max_diff_bytes: int | None = None) -> str | None:
    """Why ``action`` cannot be reviewed (nothing to review, a diff too large), else ``None``.

    A ``code_diff`` action needs diff content; any other action needs a diff or a description.
    The limit is ``MAX_DIFF_BYTES`` unless a lower one is given.
    """
    from .types import MAX_DIFF_BYTES

    limit = MAX_DIFF_BYTES if max_diff_bytes is None else min(max_diff_bytes, MAX_DIFF_BYTES)
    diff = action.code_diff or ""
    if diff:
        size = len(diff.encode("utf-8", "surrogatepass"))
        if size > limit:
            return (
                f"code_diff is {size:,} bytes; the limit is {limit:,}: split the change "
                "into smaller actions"
            )
    if action.tool_call is not None:
        problem = tool_call_problem(action.tool_call, max_bytes=limit)
        if problem is not None:
            return problem
    has_diff = bool(diff.strip())
    if action.action_type == "code_diff" and not has_diff:
        return "code_diff is empty: a code_diff action needs the diff to review"
    if not has_diff and not action.action_description.strip() and action.tool_call is None:
        return "nothing to review: both code_diff and action_description are empty"
    return None


def _too_deep(value: Any, depth: int) -> str | None:
    """The path (``[0].x``…) below ``value`` where it nests past ``MAX_TOOL_DEPTH``."""
    todo: list[tuple[Any, str, int]] = [(value, "", depth)]
    while todo:
        item, path, level = todo.pop()
        if level > MAX_TOOL_DEPTH:
            return path
        if isinstance(item, dict):
            todo.extend((child, f"{path}.{key}", level + 1) for key, child in item.items())
        elif isinstance(item, list):
            todo.extend((child, f"{path}[{i}]", level + 1) for i, child in enumerate(item))
    return None


def tool_call_problem(call: ToolCall, *, max_bytes: int | None = None) -> str | None:
    """Why ``call`` cannot be reviewed (nested too deeply, too large), else ``None``."""
    from .codec import canonical_json
    from .types import MAX_DIFF_BYTES

    for name, value in call.arguments.items():
        path = _too_deep(value, 1)
        if path is not None:
            where = f"{name}{path}"
            where = where if len(where) <= 80 else where[:79] + "…"
            return (
                f"argument `{where}` of {call.name} nests deeper than {MAX_TOOL_DEPTH} levels: "
                "pass flatter arguments"
            )
    limit = MAX_DIFF_BYTES if max_bytes is None else min(max_bytes, MAX_DIFF_BYTES)
    size = len(canonical_json(call.arguments))
    if size > limit:
        return (
            f"the arguments of {call.name} are {size:,} bytes as JSON; the limit is {limit:,}: "
            "pass large content by reference or split the call"
        )
    return None
