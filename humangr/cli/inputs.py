"""Actions read from files, directories and standard input, and checked before anything is
reviewed or published: binary, non-UTF-8, empty, oversized and invalid inputs are refused at
once with an ``InputError`` that names the input."""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import BinaryIO

from humangr.contracts import ActionContext, ToolCall, action_problem, decode, encode
from humangr.contracts.types import MAX_DIFF_BYTES
from humangr.engine.checks.diff import content_diff, looks_like_diff
from humangr.engine.errors import ContractError, EngineError

from .failure import describe

__all__ = [
    "DIFF_SUFFIXES",
    "MAX_ACTION_FILE_BYTES",
    "STDIN",
    "InputError",
    "action_from_content",
    "action_from_diff",
    "checked",
    "load_actions",
    "read_text",
    "text_of",
]

STDIN = "-"
DIFF_SUFFIXES = (".diff", ".patch")
"""Files read as diffs; any other file (not ``.json``) is content."""
STDIN_NAME = "<stdin>"
MAX_ACTION_FILE_BYTES = 12 * MAX_DIFF_BYTES
"""The largest action JSON file read: an action within every field limit, each character
escaped as ``\\uXXXX``, fits."""
_DIFF_FILE = re.compile(r"^\+\+\+ (?:b/)?(\S+)", re.MULTILINE)


class InputError(EngineError):
    """An input cannot become an action to review; the message names the input and says why."""


def text_of(data: bytes, name: str) -> str:
    """``data`` as UTF-8 text; binary data or invalid UTF-8 is an ``InputError``."""
    nul = data.find(b"\0")
    if nul >= 0:
        raise InputError(f"{name}: binary data (a NUL byte at offset {nul}); give a text diff")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(
            f"{name}: not UTF-8 text (byte 0x{data[exc.start]:02x} at offset {exc.start}); "
            "give a UTF-8 text diff"
        ) from None


_DIFF_LIMIT = "a diff; split the change into smaller actions"


def _within(data: bytes, name: str, limit: int, what: str) -> bytes:
    if len(data) > limit:
        raise InputError(f"{name}: over the limit of {limit:,} bytes of {what}")
    return data


def _stdin_bytes(limit: int) -> bytes:
    stream = sys.stdin
    if stream is None:
        raise InputError(f"{STDIN_NAME}: standard input is closed")
    raw: BinaryIO | None = getattr(stream, "buffer", None)
    if raw is not None:
        data = raw.read(limit + 1)
    else:
        data = stream.read(limit + 1).encode("utf-8", "surrogateescape")
    return _within(data, STDIN_NAME, limit, _DIFF_LIMIT)


def _content_path(name: str) -> str:
    path = Path(name).as_posix()
    while path.startswith(("./", "/")):
        path = path[1:] if path.startswith("/") else path[2:]
    return path or Path(name).name


def action_from_content(text: str, name: str) -> ActionContext:
    """A ``code_diff`` action writing the file ``name`` with the content ``text``: the file is
    content, so a diff marker inside it never becomes diff structure (``content_diff``)."""
    if not text.strip():
        raise InputError(f"{name}: empty: there is no content to review")
    path = _content_path(name)
    try:
        diff = content_diff(path, text)
    except ValueError:
        raise InputError(
            f"{name}: the file name holds a line break, tab or NUL; rename the file"
        ) from None
    return ActionContext(
        agent_id="cli",
        action_type="code_diff",
        action_description=f"Write the file {path}.",
        code_diff=diff,
        affected_files=[path],
    )


def action_from_diff(text: str, name: str, *, strict: bool = False) -> ActionContext:
    """A ``code_diff`` action of the diff ``text``; blank text is an ``InputError``, and so
    is (``strict``: a ``.diff``/``.patch`` file) text that is not a diff from its first line.
    Otherwise such text is read as content when reviewed (``read_input``)."""
    if not text.strip():
        raise InputError(f"{name}: empty: there is no diff to review")
    if strict and not looks_like_diff(text):
        raise InputError(
            f"{name}: not a diff: its first line is no `diff --git`, `---`/`+++` or `@@` "
            "line; give a unified diff, or the file itself without a .diff/.patch suffix "
            "to review its content"
        )
    files = [f for f in _DIFF_FILE.findall(text) if f != "/dev/null"]
    return ActionContext(
        agent_id="cli",
        action_type="code_diff",
        action_description=f"Apply the change in {Path(name).name}.",
        code_diff=text,
        affected_files=files[:1000],
    )


def checked(action: ActionContext, name: str, max_diff_bytes: int) -> ActionContext:
    """``action`` if its contract holds and it has something to review within the limit."""
    try:
        action = decode(encode(action), ActionContext)
    except ContractError as exc:
        raise InputError(f"{name}: {describe(exc)}") from None
    problem = action_problem(action, max_diff_bytes=max_diff_bytes)
    if problem is not None:
        raise InputError(f"{name}: {problem}")
    return action


def _action_from_json(data: bytes, name: str) -> ActionContext:
    text_of(data, name)
    try:
        return decode(data, ActionContext)
    except ContractError as exc:
        if exc.path == "$.tool_call.name":
            hint = "a tool's name is 1-128 of A-Z a-z 0-9 _ . -, e.g. bash"
        elif exc.path.startswith("$.tool_call.arguments"):
            hint = "arguments is a JSON object of the call's arguments"
        elif exc.path.startswith("$.tool_call"):
            hint = "the fields of tool_call are " + ", ".join(ToolCall.__struct_fields__)
        else:
            hint = "the fields are " + ", ".join(ActionContext.__struct_fields__)
        raise InputError(f"{name}: {describe(exc)} ({hint})") from None


def _read(path: Path, limit: int, what: str) -> bytes:
    with path.open("rb") as stream:
        data = stream.read(limit + 1)
    return _within(data, str(path), limit, what)


def read_text(path: str, what: str) -> str:
    """The UTF-8 text of the file ``path`` (``what`` it holds, for the messages), at most
    ``MAX_DIFF_BYTES``."""
    data = _read(Path(path), MAX_DIFF_BYTES, what)
    if not data.strip():
        raise InputError(f"{path}: empty: {what} has no content")
    return text_of(data, path)


def _files(source: str) -> list[Path]:
    path = Path(source)
    if path.is_dir():
        files = sorted(p for p in path.iterdir() if p.is_file() and not p.name.startswith("."))
        if not files:
            raise InputError(f"{source}: the directory holds no actions")
        return files
    if not path.exists():
        raise InputError(f"{source}: no such file or directory")
    return [path]


def load_actions(
    sources: list[str], *, max_diff_bytes: int = MAX_DIFF_BYTES, as_json: bool = False
) -> list[tuple[str, ActionContext]]:
    """Checked actions from files (``.json`` or ``as_json``: an ActionContext; ``.diff`` and
    ``.patch``: a diff; any other file: its content, written as a new file), directories
    (their files in name order) and ``-`` (standard input: a diff, or content when it is not
    one from its first line)."""
    if sources.count(STDIN) > 1:
        raise InputError("standard input (-) is named more than once")
    limit = min(max_diff_bytes, MAX_DIFF_BYTES)
    actions: list[tuple[str, ActionContext]] = []
    for source in sources:
        if source == STDIN:
            text = text_of(_stdin_bytes(limit), STDIN_NAME)
            action = action_from_diff(text, STDIN_NAME)
            actions.append((STDIN_NAME, checked(action, STDIN_NAME, limit)))
            continue
        for file in _files(source):
            name = str(file)
            if as_json or file.suffix == ".json":
                data = _read(file, MAX_ACTION_FILE_BYTES, "an action file")
                action = _action_from_json(data, name)
            else:
                text = text_of(_read(file, limit, _DIFF_LIMIT), name)
                if file.suffix.lower() in DIFF_SUFFIXES:
                    action = action_from_diff(text, name, strict=True)
                else:
                    action = action_from_content(text, name)
            actions.append((name, checked(action, name, limit)))
    return actions
