"""The file a Claude Code tool call really reaches: a path argument that leads through a
symbolic link (``notes.md -> ~/.ssh/authorized_keys``, a folder link ``ssh -> ~/.ssh``) is
reviewed as the path it leads to, since Claude Code's file tools follow links when they read
and write. A path that reaches where it names is left as it is.

Claude Code reads a path as Node's ``path.resolve`` does: ``~/`` is the home folder, a
relative path is taken from ``cwd``, and ``..`` is resolved on the text before the file
system follows any link. The resolution here does the same, then follows links with
``os.path.realpath`` (bounded by the path's length; a missing tail is kept as written).
"""

from __future__ import annotations

import os
from collections.abc import Mapping

import msgspec

from humangr.contracts import ToolCall

__all__ = ["PATH_ARGUMENTS", "linked_paths"]

PATH_ARGUMENTS: Mapping[str, tuple[str, ...]] = {
    "Write": ("file_path",),
    "Edit": ("file_path",),
    "MultiEdit": ("file_path",),
    "Read": ("file_path",),
    "NotebookEdit": ("notebook_path",),
    "NotebookRead": ("notebook_path",),
    "Grep": ("path",),
    "Glob": ("path",),
    "LS": ("path",),
}
"""Claude Code's file tools and their arguments that name a file or folder on disk."""

_MAX_PATH = 4_096


def _lexical(value: str, cwd: str | None) -> str | None:
    """``value`` as Claude Code resolves it before touching the disk, else ``None`` when it
    cannot be placed (a relative path without a ``cwd``)."""
    if value == "~" or value.startswith("~/"):
        value = os.path.expanduser("~") + value[1:]
    if not os.path.isabs(value):
        if cwd is None:
            return None
        value = os.path.join(cwd, value)
    return os.path.normpath(value)


def _reached(lexical: str, cwd: str | None) -> str | None:
    """Where ``lexical`` leads once links are followed, shown inside the workspace when it
    stays there; ``None`` when that is where it names (or the workspace is itself reached
    through a link and the path stays at the same place in it)."""
    real = os.path.realpath(lexical)
    if real == lexical:
        return None
    if cwd is not None:
        root = os.path.realpath(cwd)
        if real == root or real.startswith(root.rstrip("/") + "/"):
            shown = os.path.normpath(os.path.join(cwd, os.path.relpath(real, root)))
            return None if shown == lexical else shown
    return real


def linked_paths(call: ToolCall) -> tuple[ToolCall, list[str]]:
    """``call`` with each path argument that leads through a symbolic link replaced by the path
    it reaches, and one note per replacement for the reviewer (``call`` itself, and no note,
    when none does)."""
    names = PATH_ARGUMENTS.get(call.name, ())
    cwd = call.workspace
    replaced: dict[str, str] = {}
    notes: list[str] = []
    for name in names:
        value = call.arguments.get(name)
        if not isinstance(value, str) or not value or len(value) > _MAX_PATH or "\0" in value:
            continue
        lexical = _lexical(value, cwd)
        if lexical is None:
            continue
        try:
            reached = _reached(lexical, cwd)
        except (OSError, ValueError):
            continue
        if reached is not None:
            replaced[name] = reached
            notes.append(
                f"{name} {value[:200]!r} leads through a symbolic link to {reached[:300]!r}; "
                "the call is reviewed on that path"
            )
    if not replaced:
        return call, []
    arguments = {**call.arguments, **replaced}
    return msgspec.structs.replace(call, arguments=arguments), notes
