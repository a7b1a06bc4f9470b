"""The edit formats agents' tools use, read as (old, new) replacements or as unified diffs:
``old_string``/``new_string`` (Claude Code), ``edits`` lists (MultiEdit, the MCP filesystem
server's ``oldText``/``newText``), search/replace blocks (Cline, Aider) and the ``*** Begin
Patch`` envelope (Codex ``apply_patch``)."""

from __future__ import annotations

import re
from typing import Any

from .view import ToolView

__all__ = ["BEGIN_PATCH", "NEW_KEYS", "OLD_KEYS", "edit_pairs", "patch_envelope_diff"]

OLD_KEYS = ("old_string", "old_str", "oldText", "old_text", "search", "find", "old")
NEW_KEYS = (
    "new_string", "new_str", "newText", "new_text", "replacement", "replace", "code_edit",
    "replace_with", "new",
)  # fmt: skip
"""What an edit puts in: ``code_edit`` is an editor's new code with the unchanged parts elided
(``// ... existing code ...``), read as added lines."""
BEGIN_PATCH = "*** Begin Patch"
_SEARCH = "<<<<<<< SEARCH"
_BLOCK = re.compile(r"<{7} SEARCH\n(.*?)\n?={7}\n(.*?)\n?>{7} REPLACE", re.DOTALL)
_FILE = re.compile(r"^\*\*\* (Add|Update|Delete) File: (.+)$")
_MAX_EDITS = 1_000


def _pick(item: dict[str, Any], keys: tuple[str, ...]) -> str | None:
    lowered = {k.lower(): v for k, v in item.items() if isinstance(k, str)}
    for key in keys:
        value = lowered.get(key.lower())
        if isinstance(value, str):
            return value
    return None


def edit_pairs(view: ToolView) -> tuple[str, list[tuple[str, str]]] | None:
    """The (argument, [(old, new), ...]) of an edit call, in any of the formats above but the
    patch envelope (see ``patch_envelope_diff``)."""
    new = view.get(*NEW_KEYS)
    if new is not None and isinstance(new[1], str):
        old = view.get(*OLD_KEYS)
        old_text = old[1] if old is not None and isinstance(old[1], str) else ""
        return new[0], [(old_text, new[1])]
    blocks = view.text("diff", "patch", "content", "input")
    if blocks is not None and _SEARCH in blocks[1]:
        found = [(m.group(1), m.group(2)) for m in _BLOCK.finditer(blocks[1])]
        return (blocks[0], found[:_MAX_EDITS]) if found else None
    edits = view.get("edits")
    if edits is None or not isinstance(edits[1], list):
        return None
    pairs: list[tuple[str, str]] = []
    for item in edits[1][:_MAX_EDITS]:
        if isinstance(item, dict):
            new_text = _pick(item, NEW_KEYS)
            if new_text is not None:
                pairs.append((_pick(item, OLD_KEYS) or "", new_text))
    return (edits[0], pairs) if pairs else None


def _hunk(lines: list[str]) -> list[str]:
    old = sum(1 for ln in lines if ln[:1] in (" ", "-", ""))
    new = sum(1 for ln in lines if ln[:1] in (" ", "+", ""))
    body = [ln if ln[:1] in (" ", "-", "+") else " " + ln for ln in lines]
    return [f"@@ -1,{old} +1,{new} @@", *body]


def patch_envelope_diff(text: str) -> str | None:
    """The unified diff of a ``*** Begin Patch`` envelope: added files as new files, updated
    files hunk by hunk, deleted files as deletions; ``None`` if ``text`` is not one."""
    if BEGIN_PATCH not in text:
        return None
    out: list[str] = []
    chunk: list[str] = []

    def flush() -> None:
        while chunk and not chunk[-1]:
            chunk.pop()
        if chunk:
            out.extend(_hunk(chunk))
            chunk.clear()

    for line in text.split("\n"):
        header = _FILE.match(line)
        if header is not None:
            flush()
            action, path = header.group(1), header.group(2).strip()
            old = "/dev/null" if action == "Add" else f"a/{path}"
            new = "/dev/null" if action == "Delete" else f"b/{path}"
            out.extend([f"--- {old}", f"+++ {new}"])
        elif line.startswith("@@") or line.startswith("*** "):
            flush()
        elif out:
            chunk.append(line)
    flush()
    return "\n".join(out) + "\n" if out else None
