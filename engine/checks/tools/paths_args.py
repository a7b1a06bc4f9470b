"""Which paths a file tool call touches, and how: read from its name, kind and arguments.

The operation comes from the words of the tool's name (``move_file``, ``MultiEdit``,
``mcp__filesystem__read_multiple_files``; a ``command`` argument for editors such as
``str_replace_editor``), else from its kind. The paths come from the usual argument names at
any depth (``file_path``, ``paths[3]``, ``files[0].path``, ``source``/``destination``), from
the file headers of a patch, and from the folder and pattern of a search.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from humangr.contracts import ToolKind

from .paths_rule import word_set
from .view import ToolView

__all__ = ["MAX_TARGETS", "Op", "Target", "file_operation", "targets"]

Op = Literal["write", "edit", "delete", "read", "list", "search", "move", "copy"]
"""``move``/``copy``: the source of a move or copy (its destination is a ``write``)."""

MAX_TARGETS = 256
"""Paths read per call; a call naming more is reported as not fully reviewed."""
_MAX_STRINGS = 200_000
_MAX_PATCH_LINES = 20_000


_PATH_KEYS = word_set(
    "file_path path filename file target notebook_path filepath file_name target_file "
    "absolute_path relative_path relative_workspace_path dir_path dir directory folder dirname "
    "output_path output_file outfile save_path local_path fname pathname paths files file_paths "
    "filenames targets filepaths directories dirs folders file_list uri"
)
_SOURCE_KEYS = word_set(
    "source src from from_path source_path source_file old_path oldpath origin old_name oldname"
)
_SOURCE_PATHS = word_set("src source_path source_file from_path")
"""Source names that are paths whatever the tool (``source`` alone may be code)."""
_DEST_KEYS = word_set(
    "destination dest dst to to_path destination_path dest_path target_path new_path newpath "
    "new_name newname"
)
_LIST_KEYS = word_set(
    "paths files file_paths filenames targets filepaths directories dirs folders file_list"
)
_SEPARATOR = re.compile(r"[.\[]")
_PATCH_KEYS = ("patch", "diff", "input", "patch_text", "unified_diff")
_NAME_GLOB_KEYS = ("glob", "include", "include_pattern", "file_pattern", "filepattern", "name")
_NOUNS = word_set(
    "file files dir directory directories folder folders path paths notebook fs filesystem "
    "document documents media"
)
_BARE_TOOLS = word_set(
    "read write edit multiedit glob grep ls notebookedit notebookread applypatch "
    "strreplaceeditor strreplacebasededittool view cat rm mv cp touch mkdir rename"
)
_VERBS: tuple[tuple[Op, frozenset[str]], ...] = (
    ("move", word_set("move mv rename")),
    ("copy", word_set("copy cp duplicate")),
    (
        "delete",
        word_set("delete remove rm rmdir unlink trash erase purge wipe del truncate shred"),
    ),
    (
        "edit",
        word_set("edit replace patch str insert modify update multiedit apply notebookedit change"),
    ),
    ("search", word_set("grep rg ripgrep")),
    ("list", word_set("list ls tree glob find search walk")),
    (
        "write",
        word_set(
            "write create save put append touch mkdir makedirs store overwrite "
            "download chmod chown symlink link upsert push commit add"
        ),
    ),
    (
        "read",
        word_set(
            "read view open cat head tail get load show stat info exists inspect upload print"
        ),
    ),
)
_EDITOR_COMMANDS: dict[str, Op] = {
    "view": "read",
    "create": "write",
    "str_replace": "edit",
    "insert": "edit",
    "undo_edit": "edit",
    "delete": "delete",
    "rename": "move",
}
_KIND_OPS: dict[ToolKind, Op] = {
    ToolKind.FILE_WRITE: "write",
    ToolKind.FILE_EDIT: "edit",
    ToolKind.FILE_DELETE: "delete",
    ToolKind.FILE_READ: "read",
}
_SKIP_KINDS = frozenset({ToolKind.SHELL, ToolKind.SQL, ToolKind.EMAIL})
_WORD = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+")
_PATCH_HEADER = re.compile(
    r"^(?:\*\*\* (?P<verb>Add|Update|Delete) File: (?P<p1>.+)|\*\*\* Move to: (?P<p2>.+)"
    r"|(?P<side>---|\+\+\+) (?P<p3>\S.*)|rename (?P<rn>from|to) (?P<p4>.+))$"
)


@dataclass(frozen=True, slots=True)
class Target:
    """One path a call touches."""

    op: Op
    argument: str
    """The argument that names it: ``file_path``, ``paths[3]``, ``patch``."""
    raw: str
    pattern: bool = False
    """The path is a glob (a listing's pattern)."""


def _words(name: str) -> list[str]:
    last = re.split(r"__|\.|/", name)[-1] if name else ""
    return [w.lower() for w in _WORD.findall(last)]


def file_operation(view: ToolView) -> Op | None:
    """What the call does to the files it names, or None when it is no file tool."""
    words = _words(view.name)
    joined = "".join(words)
    command = view.text("command")
    if command is not None and view.get("path", "file_path") is not None:
        editor = _EDITOR_COMMANDS.get(command[1].strip().lower())
        if editor is not None and view.kind not in (ToolKind.SQL, ToolKind.EMAIL):
            return editor
    is_file_tool = (
        view.kind in _KIND_OPS or joined in _BARE_TOOLS or bool(_NOUNS.intersection(words))
    )
    if not is_file_tool or view.kind in _SKIP_KINDS:
        return None
    if "content" in words and ("search" in words or "grep" in words):
        return "search"
    found = set(words)
    for op, verbs in _VERBS:
        if found & verbs:
            return op
    said = view.text("op", "operation", "action")  # ``files(op="rm", target="/")``
    if said is not None and len(said[1]) <= 32:
        asked = set(_words(said[1].strip()))
        for op, verbs in _VERBS:
            if asked & verbs:
                return op
    return _KIND_OPS.get(view.kind, "read")


def _top(path: str) -> str:
    m = _SEPARATOR.search(path)
    return (path if m is None else path[: m.start()]).lower()


def _role_of(op: Op, key: str) -> Op | None:
    if op in ("move", "copy"):
        if key in _DEST_KEYS or key == "target":
            return "write"
        if key in _SOURCE_KEYS or key in _PATH_KEYS:
            return op
    elif key in _PATH_KEYS or key in _SOURCE_PATHS:
        return op
    elif key in _DEST_KEYS and op in ("write", "edit"):
        return "write"
    return None


def _role(op: Op, argument: str, top: str) -> Op | None:
    """The operation on the path in ``argument``, or None when it names no path. Inside an
    object its own key counts (``files[0].path``, not ``files[0].content``); anything under a
    key that names one path counts (``file_path.value``)."""
    if "." not in argument:
        return _role_of(op, top)
    leaf = argument.rsplit(".", 1)[-1].split("[", 1)[0].lower()
    role = _role_of(op, leaf)
    if role is None and top not in _LIST_KEYS:
        role = _role_of(op, top)
    return role


def _patch_targets(argument: str, text: str) -> list[Target]:
    """The files a unified diff or an ``apply_patch`` envelope changes."""
    out: list[Target] = []
    old: str | None = None
    for line in text.splitlines()[:_MAX_PATCH_LINES]:
        m = _PATCH_HEADER.match(line.rstrip("\r"))
        if m is None:
            continue
        if m.group("verb"):
            verb = m.group("verb")
            op: Op = "write" if verb == "Add" else "delete" if verb == "Delete" else "edit"
            out.append(Target(op, argument, m.group("p1").strip()))
        elif m.group("p2"):
            out.append(Target("write", argument, m.group("p2").strip()))
        elif m.group("rn"):
            out.append(
                Target(
                    "delete" if m.group("rn") == "from" else "write",
                    argument,
                    m.group("p4").strip(),
                )
            )
        else:
            path = m.group("p3").split("\t", 1)[0].strip().strip('"')
            if m.group("side") == "---":
                old = path
                continue
            new, old_path, old = path, old, None
            if new == "/dev/null":
                if old_path and old_path != "/dev/null":
                    out.append(Target("delete", argument, _strip_side(old_path)))
                continue
            op = "write" if old_path == "/dev/null" else "edit"
            out.append(Target(op, argument, _strip_side(new)))
    return out


def _strip_side(path: str) -> str:
    return path[2:] if path.startswith(("a/", "b/")) else path


def _folder(view: ToolView) -> str | None:
    found = view.text("path", "dir_path", "directory", "dir", "folder", "cwd", "root")
    return found[1] if found is not None else None


def targets(view: ToolView, op: Op) -> tuple[list[Target], tuple[str, int] | None]:
    """The distinct paths ``view``'s call touches, at most ``MAX_TARGETS``, and (argument,
    count) of the paths left unread when there were more."""
    out: list[Target] = []
    seen: set[tuple[Op, str]] = set()
    skipped: dict[str, int] = {}

    def add(role: Op, argument: str, raw: str, pattern: bool = False) -> None:
        if (role, raw) in seen:
            return
        if len(out) < MAX_TARGETS:
            seen.add((role, raw))
            out.append(Target(role, argument, raw, pattern))
        else:
            top = _top(argument)
            skipped[top] = skipped.get(top, 0) + 1

    folder = _folder(view) if op in ("list", "search") else None
    for n, (argument, value) in enumerate(view.strings()):
        if n >= _MAX_STRINGS:
            skipped["arguments"] = skipped.get("arguments", 0) + 1
            break
        if not value:
            continue
        top = _top(argument)
        if op in ("edit", "write") and top in _PATCH_KEYS and "\n" in value:
            for target in _patch_targets(argument, value):
                add(target.op, target.argument, target.raw)
        elif op in ("list", "search") and top in (*_NAME_GLOB_KEYS, "pattern"):
            if top == "pattern" and op == "search":
                continue
            joint = "/" if op == "list" or value.startswith("**") else "/**/"
            glob = value
            if folder is not None and not value.startswith(("/", "~")):
                glob = f"{folder.rstrip('/')}{joint}{value}"
            add(op, argument, glob, True)
        elif (role := _role(op, argument, top)) is not None:
            add(role, argument, value)
    worst = max(skipped.items(), key=lambda kv: kv[1]) if skipped else None
    return out, worst
