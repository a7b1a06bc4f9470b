"""The lenient parser of git-style unified diffs behind ``diff.parse_diff`` (never raises)."""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass, field

from .binpatch import MAX_BYTES, BinaryPatch, read_binary_patch
from .diff_model import DiffParse, FileDiff, Hunk, HunkLine, content_hunks, make_file

__all__ = ["MESSAGE_PATH", "diff_start", "parse_diff", "split_diff", "starts_diff"]

log = logging.getLogger(__name__)

_HUNK = re.compile(r"^@@ -(\d{1,9})(?:,(\d{1,9}))? \+(\d{1,9})(?:,(\d{1,9}))? @@ ?(.*)$")
_DIFF_START = re.compile(r"^(?:diff (?:--git |-)|@@ -\d+(?:,\d+)? \+\d+(?:,\d+)? @@)")
_FILE_HEADER = re.compile(r"^--- \S")
_GIT_HEADER = re.compile(r"^(?:From [0-9a-f]{40} |commit [0-9a-f]{7,64}(?: |$))")
_META = (
    "index ",
    "new file mode",
    "deleted file mode",
    "old mode",
    "new mode",
    "similarity index",
    "dissimilarity index",
    "rename from ",
    "rename to ",
    "copy from ",
    "copy to ",
    "Binary files ",
    "\\",
)
_VERSION = re.compile(r"^(?:\d+(?:\.\d+)+.*)?$")
_MAX_PATH = 4096
MESSAGE_PATH = "<commit message>"
"""The name under which git's commit message before a diff is read (as text)."""


@dataclass(slots=True)
class _File:
    old_path: str | None = None
    new_path: str | None = None
    git_path: str | None = None
    has_header: bool = False
    new_file: bool = False
    deleted: bool = False
    renamed: bool = False
    binary: bool = False
    binary_patch: BinaryPatch | None = None
    hunks: list[Hunk] = field(default_factory=list)

    def freeze(self, default_path: str | None) -> FileDiff:
        deleted = self.deleted or (self.has_header and self.new_path is None)
        new_file = self.new_file or (self.has_header and self.old_path is None and not deleted)
        path = self.old_path if deleted else self.new_path
        path = path or self.new_path or self.old_path or self.git_path or default_path
        hunks, binary = tuple(self.hunks), self.binary
        bp = self.binary_patch
        if bp is not None and bp.kind == "text" and not deleted:
            hunks, binary = content_hunks(bp.text), False
        return make_file(
            path,
            hunks,
            old_path=self.old_path,
            new_file=new_file,
            deleted=deleted,
            renamed=self.renamed,
            binary=binary,
            binary_patch=bp,
        )


def starts_diff(lines: list[str], i: int) -> bool:
    """Whether a diff starts at ``lines[i]`` (a ``diff`` line, a ``---``/``+++`` pair, a hunk)."""
    ln = lines[i]
    if _DIFF_START.match(ln):
        return True
    return bool(_FILE_HEADER.match(ln)) and i + 1 < len(lines) and lines[i + 1].startswith("+++ ")


def diff_start(lines: list[str]) -> int | None:
    """The index of the line a diff starts at, or None when ``lines`` are no diff: the first
    line that is not blank starts it, or is git's header (``From <sha>``, ``commit <sha>``)
    with the diff after its message."""
    first = next((i for i, ln in enumerate(lines) if ln.strip()), None)
    if first is None:
        return None
    if starts_diff(lines, first):
        return first
    if _GIT_HEADER.match(lines[first]):
        return next((i for i in range(first + 1, len(lines)) if starts_diff(lines, i)), None)
    return None


def split_diff(text: str) -> list[str]:
    """Diff lines: split at ``\\n`` as patch tools do (a trailing ``\\r`` is dropped)."""
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return [ln[:-1] if ln.endswith("\r") else ln for ln in lines]


def _unquote(raw: str) -> str:
    if len(raw) >= 2 and raw[0] == raw[-1] == '"':
        try:
            inner = raw[1:-1].encode("latin-1", "backslashreplace").decode("unicode_escape")
            return inner.encode("latin-1").decode("utf-8", "replace")
        except (UnicodeError, ValueError):
            return raw[1:-1]
    return raw


def _header_path(rest: str, prefix: str) -> str | None:
    rest = rest.split("\t", 1)[0].strip()
    rest = _unquote(rest)
    if rest == "/dev/null" or not rest:
        return None
    if rest.startswith(prefix):
        rest = rest[len(prefix) :]
    return rest[:_MAX_PATH] or None


def _git_path(rest: str) -> str | None:
    """The path of ``diff --git a/X b/X`` (best effort when the names differ)."""
    if rest.startswith("a/"):
        n = (len(rest) - 5) // 2
        if n > 0 and rest == f"a/{rest[2 : 2 + n]} b/{rest[2 : 2 + n]}":
            return rest[2 : 2 + n][:_MAX_PATH]
    idx = rest.rfind(" b/")
    if idx >= 0:
        return rest[idx + 3 :][:_MAX_PATH] or None
    return None


class _Parser:
    def __init__(self, lines: list[str], default_path: str | None) -> None:
        self.lines = lines
        self.default_path = default_path
        self.files: list[_File] = []
        self.cur: _File | None = None
        self.stray: list[tuple[int, str]] = []
        """Lines outside the diff's structure: (line number in the text, text)."""
        self.budget = MAX_BYTES
        """Bytes the binary literals of this diff may still inflate to."""
        self.message: list[tuple[int, str]] = []
        """git's header and commit message before the diff."""

    def _new_file(self) -> _File:
        self.cur = _File()
        self.files.append(self.cur)
        return self.cur

    def _is_file_header(self, i: int) -> bool:
        ln = self.lines[i]
        return (
            ln.startswith("--- ")
            and i + 1 < len(self.lines)
            and self.lines[i + 1].startswith("+++ ")
        )

    def _hunk_follows(self, i: int) -> bool:
        return i < len(self.lines) and self.lines[i].startswith("@@")

    def run(self) -> None:
        start = diff_start(self.lines) or 0
        self.message = [(k + 1, self.lines[k]) for k in range(start)]
        i, n = start, len(self.lines)
        while i < n:
            ln = self.lines[i]
            m = _HUNK.match(ln)
            if m:
                i = self._hunk(i, m)
                continue
            if ln.startswith("diff "):
                f = self._new_file()
                if ln.startswith("diff --git "):
                    f.git_path = _git_path(ln[len("diff --git ") :])
            elif self._is_file_header(i):
                hf = self.cur
                if hf is None or hf.has_header or hf.hunks:
                    hf = self._new_file()
                hf.has_header = True
                hf.old_path = _header_path(ln[4:], "a/")
                hf.new_path = _header_path(self.lines[i + 1][4:], "b/")
                i += 2
                continue
            elif ln == "GIT binary patch":
                f = self.cur if self.cur is not None else self._new_file()
                f.binary = True
                f.binary_patch, i = read_binary_patch(self.lines, i + 1, self.budget)
                if f.binary_patch.kind in ("text", "data"):
                    self.budget -= f.binary_patch.size
                continue
            elif ln == "-- " and all(_VERSION.match(x) for x in self.lines[i + 1 : i + 3]):
                i += 3  # git format-patch's signature: "-- " and git's version
                continue
            elif self.cur is not None and ln.startswith(_META):
                self._meta(self.cur, ln)
            else:
                self.stray.append((i + 1, ln))
            i += 1

    def _meta(self, f: _File, ln: str) -> None:
        if ln.startswith("new file mode"):
            f.new_file = True
        elif ln.startswith("deleted file mode"):
            f.deleted = True
        elif ln.startswith(("rename from ", "copy from ")):
            f.renamed = ln.startswith("rename")
            f.old_path = _unquote(ln.split(" ", 2)[2])[:_MAX_PATH] or None
        elif ln.startswith(("rename to ", "copy to ")):
            f.new_path = _unquote(ln.split(" ", 2)[2])[:_MAX_PATH] or None
        elif ln.startswith("Binary files "):
            f.binary = True

    def _strict_end(self, i: int, rem_old: int, rem_new: int) -> int | None:
        """Where a hunk whose body starts at ``i`` ends as ``git apply`` reads it (every line
        counted, a ``---``/``+++`` pair included), or None when its counts do not hold."""
        n = len(self.lines)
        while rem_old > 0 or rem_new > 0:
            if i >= n:
                return None
            c = self.lines[i][:1]
            if c in (" ", ""):
                rem_old -= 1
                rem_new -= 1
            elif c == "-":
                rem_old -= 1
            elif c == "+":
                rem_new -= 1
            elif c != "\\":
                return None
            if rem_old < 0 or rem_new < 0:
                return None
            i += 1
        return i

    def _hunk(self, i: int, m: re.Match[str]) -> int:
        f = self.cur if self.cur is not None else self._new_file()
        old_no, new_no = int(m.group(1)), int(m.group(3))
        rem_old = int(m.group(2)) if m.group(2) is not None else 1
        rem_new = int(m.group(4)) if m.group(4) is not None else 1
        out: list[HunkLine] = []
        i += 1
        strict_end = self._strict_end(i, rem_old, rem_new) or i
        n = len(self.lines)
        while i < n:
            ln = self.lines[i]
            counted = rem_old > 0 or rem_new > 0
            if ln.startswith("\\"):
                i += 1
                continue
            if i >= strict_end:
                if ln.startswith(("@@", "diff ")) or (ln == "-- " and not counted):
                    break
                if self._is_file_header(i) and (not counted or self._hunk_follows(i + 2)):
                    break
            c = ln[:1]
            if c == "+":
                out.append(HunkLine("+", None, new_no, ln[1:]))
                new_no += 1
                rem_new -= 1
            elif c == "-":
                out.append(HunkLine("-", old_no, None, ln[1:]))
                old_no += 1
                rem_old -= 1
            elif c == " " or (ln == "" and counted):
                out.append(HunkLine(" ", old_no, new_no, ln[1:]))
                old_no += 1
                new_no += 1
                rem_old -= 1
                rem_new -= 1
            else:
                break
            i += 1
        f.hunks.append(Hunk(int(m.group(1)), int(m.group(3)), m.group(5)[:200], tuple(out)))
        return i

    def extra_files(self) -> tuple[FileDiff, ...]:
        """git's commit message (``<commit message>``) and the stray lines (unnamed), each
        as the content of a new file numbered as in the text."""
        out: list[FileDiff] = []
        for path, found in ((MESSAGE_PATH, self.message), (None, self.stray)):
            if any(t.strip() for _, t in found):
                lines = tuple(HunkLine("+", None, no, t) for no, t in found)
                hunk = Hunk(old_start=0, new_start=lines[0].new or 1, heading="", lines=lines)
                out.append(make_file(path, (hunk,), new_file=True, stray=path is None))
        return tuple(out)


def parse_diff(text: str, default_path: str | None = None) -> DiffParse:
    """Parse a unified diff (several files, new, deleted, renamed). Never raises.

    ``default_path`` names a file whose hunks come without ``---``/``+++`` headers. Lines
    outside the diff's structure come last, as one unnamed ``stray`` file of content.
    """
    parser = _Parser(split_diff(text) if isinstance(text, str) else [], default_path)
    error: str | None = None
    try:
        parser.run()
    except Exception as exc:
        log.error("diff parser failed; results are partial", exc_info=True)
        error = f"diff parser failed: {type(exc).__name__}: {exc}"[:500]
    files = tuple(f.freeze(default_path) for f in parser.files)
    return DiffParse(files=files + parser.extra_files(), error=error)
