"""The one reader of review input: git-style unified diffs and plain file content.

``read_input`` decides what a text is. A text is a diff only if it is one from its first line
(a ``diff`` line, a ``---``/``+++`` pair, a hunk header, or git's ``From <sha>`` / ``commit
<sha>`` header before them); anything else is content, and a caller that knows (a file given
by name, a tool call's file content) says so with ``mode``. Content never becomes diff
structure: its hunk, file and ``\\ No newline`` lines are lines of the file, and its line
breaks are ``\\r\\n``, ``\\n`` and a lone ``\\r`` (as Python reads them).

The diff parser (``diff_parse``) never raises. A hunk whose counts hold is read as ``git
apply`` reads it: a ``---``/``+++`` pair inside it is a removed and an added line, not a new
file. Counts written by hand (or by an LLM) are often wrong, so lines after a hunk's counted
end that still look like hunk lines are kept, and a broken header ends the hunk. Lines of a
diff that are neither its structure nor its hunks are kept as ``stray`` content, and ``GIT
binary patch`` literals are decoded (``binpatch``), so nothing in the text goes unread.
"""

from __future__ import annotations

from typing import Literal

from .diff_model import (
    DiffLine,
    DiffParse,
    FileDiff,
    Hunk,
    HunkLine,
    content_hunks,
    content_lines,
    make_file,
)
from .diff_parse import MESSAGE_PATH, diff_start, parse_diff, split_diff, starts_diff

__all__ = [
    "MESSAGE_PATH",
    "DiffLine",
    "DiffParse",
    "FileDiff",
    "Hunk",
    "HunkLine",
    "InputMode",
    "contains_diff",
    "content_diff",
    "content_lines",
    "looks_like_diff",
    "parse_content",
    "parse_diff",
    "read_input",
]

InputMode = Literal["auto", "diff", "content"]
"""How to read a text: ``diff`` and ``content`` when the caller knows, else ``auto``."""


def looks_like_diff(text: str) -> bool:
    """Whether ``text`` is a diff from its first line (see ``read_input``); a diff marker
    further down in content does not make it one."""
    return isinstance(text, str) and diff_start(split_diff(text)) is not None


def parse_content(text: str, path: str | None = None) -> DiffParse:
    """Plain file content read as one new file whose every line is added (diff markers in it
    are lines of the file)."""
    return DiffParse(files=(make_file(path, content_hunks(text), new_file=True),))


def contains_diff(text: str) -> bool:
    """Whether a diff starts at any line of ``text`` (what a patch tool, skipping leading
    text, would apply): for a caller that knows ``text`` is a patch."""
    lines = split_diff(text) if isinstance(text, str) else []
    return any(starts_diff(lines, i) for i in range(len(lines)))


def read_input(text: str | None, mode: InputMode = "auto", path: str | None = None) -> DiffParse:
    """The files of a review input: ``content`` is one new file (named ``path``); ``diff``
    and ``auto`` parse a diff when ``text`` is one from its first line (``diff`` gives an
    ``error`` for any other text: nothing is guessed). ``auto`` reads other text as content,
    and a diff starting further down (which a patch tool would apply, skipping what comes
    before) is read as well — as a second reading, never instead of the content."""
    if not text:
        return DiffParse(files=())
    if mode == "content":
        return parse_content(text, path)
    lines = split_diff(text)
    if diff_start(lines) is not None:
        return parse_diff(text, default_path=path)
    if mode == "diff":
        return DiffParse(
            files=(),
            error="the input is not a diff: its first line is no `diff --git`, `---`/`+++` "
            "or `@@` line",
        )
    content = parse_content(text, path)
    start = next((i for i in range(1, len(lines)) if starts_diff(lines, i)), None)
    if start is None:
        return content
    embedded = parse_diff("\n".join(lines[start:]), default_path=path)
    files = tuple(f for f in embedded.files if not f.stray and f.path != MESSAGE_PATH)
    return DiffParse(files=content.files + files, error=embedded.error)


def content_diff(path: str, text: str) -> str:
    """A git diff creating ``path`` with the content ``text``: how a caller that knows its
    input is file content hands it on, so no later reader takes it for a diff. ``path`` must
    hold no line break (``ValueError``)."""
    if any(c in path for c in "\r\n\t\0") or not path.strip():
        raise ValueError("a path with a line break, tab or NUL (or an empty one)")
    lines = content_lines(text)
    body = "".join(f"+{ln}\n" for ln in lines)
    if text and not text.endswith(("\n", "\r")):
        body += "\\ No newline at end of file\n"
    return (
        f"diff --git a/{path} b/{path}\nnew file mode 100644\n--- /dev/null\n+++ b/{path}\n"
        f"@@ -0,0 +1,{len(lines)} @@\n{body}"
    )
