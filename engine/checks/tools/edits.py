"""An edit tool's call applied to the file it edits: the real unified diff, with context, so the
checks read the edit where it lands (pure: the caller reads the file)."""

from __future__ import annotations

import difflib
from typing import Any

from humangr.contracts import ToolCall, ToolKind

from .files import PATH_ARGUMENTS, workspace_path
from .view import infer_kind, tool_view

__all__ = ["edit_path", "edited_diff"]

_CONTEXT = 3


def edit_path(call: ToolCall) -> str | None:
    """The file an edit call changes, as the call names it (``None`` if it is not an edit)."""
    if infer_kind(call)[0] is not ToolKind.FILE_EDIT:  # most calls: no view to build
        return None
    found = tool_view(call).text(*PATH_ARGUMENTS)
    return found[1] if found else None


def _replacements(arguments: dict[str, Any]) -> list[tuple[str, str, bool]] | None:
    lowered = {k.lower(): v for k, v in arguments.items()}
    edits = lowered.get("edits")
    items = edits if isinstance(edits, list) else [lowered]
    out: list[tuple[str, str, bool]] = []
    for item in items:
        if not isinstance(item, dict):
            return None
        old = item.get("old_string", item.get("old_str"))
        new = item.get("new_string", item.get("new_str"))
        if not isinstance(old, str) or not isinstance(new, str) or not old:
            return None
        out.append((old, new, item.get("replace_all") is True))
    return out or None


def edited_diff(call: ToolCall, before: str) -> str | None:
    """The unified diff of applying ``call`` (an Edit / MultiEdit / str_replace call) to a file
    whose text is ``before``; ``None`` when an old string is not found (the edit would fail as
    it stands, and the call's own strings are reviewed instead)."""
    path = edit_path(call)
    edits = _replacements(call.arguments)
    if path is None or edits is None:
        return None
    after = before
    for old, new, every in edits:
        if old not in after:
            return None
        after = after.replace(old, new) if every else after.replace(old, new, 1)
    name = workspace_path(path, call.workspace)
    lines = difflib.unified_diff(
        before.splitlines(keepends=True),
        after.splitlines(keepends=True),
        fromfile=f"a/{name}",
        tofile=f"b/{name}",
        n=_CONTEXT,
    )
    text = "".join(line if line.endswith("\n") else line + "\n" for line in lines)
    return text or None
