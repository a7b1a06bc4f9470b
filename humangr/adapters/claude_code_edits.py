"""An ``Edit`` / ``MultiEdit`` of Claude Code as the real diff it makes in the file on disk.

Each ``old_string`` is found as Claude Code finds it: as written, else with the file's curly
quotes read as straight ones (Claude Code matches a model's straight quotes against a file's
curly ones and edits there), so such an edit is reviewed in its context too. An edit that
cannot be applied as Claude Code would apply it (the file is missing, an ``old_string`` is
absent or not unique) is reviewed as given — its own strings — and the answer says the diff
could not be built: a different edit is never reviewed in its place.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from humangr.contracts import ToolCall
from humangr.contracts.types import MAX_DIFF_BYTES

__all__ = ["MAX_EDITED_FILE", "edit_diff"]

MAX_EDITED_FILE = MAX_DIFF_BYTES // 2
"""Bytes of a file an edit is diffed against at most (the guard's limit)."""
_QUOTES = str.maketrans({"\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"'})
"""Curly quotes as the straight ones Claude Code's match reads them as (one character each,
so a match keeps its place in the file)."""


def _found(text: str, old: str) -> str:
    """``old`` as it stands in ``text``: itself when it is there, else the text at its first
    match with curly quotes read as straight ones (``old`` itself when there is none)."""
    if old in text:
        return old
    at = text.translate(_QUOTES).find(old.translate(_QUOTES))
    return text[at : at + len(old)] if at >= 0 else old


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


def _applies(before: str, edits: list[tuple[str, str, bool]]) -> str | list[str]:
    """Why the edits do not apply to ``before`` as Claude Code applies them, else each edit's
    ``old_string`` as it stands in the file."""
    text = before
    found: list[str] = []
    for n, (given, new, every) in enumerate(edits):
        which = f"edit {n + 1}'s old_string" if len(edits) > 1 else "old_string"
        old = _found(text, given)
        found.append(old)
        count = text.count(old)
        if count == 0:
            return f"{which} is not in the file"
        if count > 1 and not every:
            return f"{which} occurs {count} times in the file and replace_all is not set"
        text = text.replace(old, new) if every else text.replace(old, new, 1)
    return found


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
    found = _applies(before, edits)
    if isinstance(found, str):
        return None, found
    diff = edited_diff(_as_found(call, found), before)
    if diff is None or len(diff.encode("utf-8")) > MAX_EDITED_FILE:
        return None, "the diff of the edit is empty or too large"
    return diff, None


def _as_found(call: ToolCall, found: list[str]) -> ToolCall:
    """``call`` with each ``old_string`` as it stands in the file (for its diff only)."""
    import msgspec

    arguments: dict[str, Any] = dict(call.arguments)
    if "edits" in arguments:
        arguments["edits"] = [
            {**item, "old_string": old} for item, old in zip(arguments["edits"], found, strict=True)
        ]
    else:
        arguments["old_string"] = found[0]
    return msgspec.structs.replace(call, arguments=arguments)
