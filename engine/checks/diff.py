"""A lenient parser of git-style unified diffs: per file, the added and removed lines.

It never raises. Hunk counts written by hand (or by an LLM) are often wrong, so lines after a
hunk's counted end that still look like hunk lines are kept; a broken header ends the hunk.
Text that is not a diff at all is read as the full content of one new file.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass, field
from typing import Literal

__all__ = [
    "DiffLine",
    "DiffParse",
    "FileDiff",
    "Hunk",
    "HunkLine",
    "looks_like_diff",
    "parse_content",
    "parse_diff",
]

log = logging.getLogger(__name__)

Kind = Literal["+", "-", " "]

_HUNK = re.compile(r"^@@ -(\d{1,9})(?:,(\d{1,9}))? \+(\d{1,9})(?:,(\d{1,9}))? @@ ?(.*)$")
_DIFF_START = re.compile(r"^(?:diff --git |@@ -\d+(?:,\d+)? \+\d+(?:,\d+)? @@)", re.MULTILINE)
_FILE_HEADER = re.compile(r"^--- \S.*\n\+\+\+ \S", re.MULTILINE)
_MAX_PATH = 4096


@dataclass(frozen=True, slots=True)
class DiffLine:
    """One added line (with its line number in the new file) or removed line (old file)."""

    number: int
    text: str


@dataclass(frozen=True, slots=True)
class HunkLine:
    kind: Kind
    old: int | None
    new: int | None
    text: str


@dataclass(frozen=True, slots=True)
class Hunk:
    """One ``@@`` hunk; ``heading`` is the text after the second ``@@`` (git's function hint)."""

    old_start: int
    new_start: int
    heading: str
    lines: tuple[HunkLine, ...]


@dataclass(frozen=True, slots=True)
class FileDiff:
    """The changes of one file. ``path`` is the new path, or the old one for a deleted file."""

    path: str | None
    old_path: str | None = None
    new_file: bool = False
    deleted: bool = False
    renamed: bool = False
    binary: bool = False
    hunks: tuple[Hunk, ...] = ()
    added: tuple[DiffLine, ...] = ()
    """Added lines with their numbers in the new file."""
    removed: tuple[DiffLine, ...] = ()
    """Removed lines with their numbers in the old file."""


def _file(
    path: str | None,
    hunks: tuple[Hunk, ...],
    *,
    old_path: str | None = None,
    new_file: bool = False,
    deleted: bool = False,
    renamed: bool = False,
    binary: bool = False,
) -> FileDiff:
    added = tuple(
        DiffLine(ln.new, ln.text)
        for h in hunks
        for ln in h.lines
        if ln.kind == "+" and ln.new is not None
    )
    removed = tuple(
        DiffLine(ln.old, ln.text)
        for h in hunks
        for ln in h.lines
        if ln.kind == "-" and ln.old is not None
    )
    return FileDiff(
        path=path,
        old_path=old_path,
        new_file=new_file,
        deleted=deleted,
        renamed=renamed,
        binary=binary,
        hunks=hunks,
        added=added,
        removed=removed,
    )


@dataclass(frozen=True, slots=True)
class DiffParse:
    """The files of a diff; ``error`` is set when the parser itself failed part way."""

    files: tuple[FileDiff, ...]
    error: str | None = None


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
    hunks: list[Hunk] = field(default_factory=list)

    def freeze(self, default_path: str | None) -> FileDiff:
        deleted = self.deleted or (self.has_header and self.new_path is None)
        new_file = self.new_file or (self.has_header and self.old_path is None and not deleted)
        path = self.old_path if deleted else self.new_path
        path = path or self.new_path or self.old_path or self.git_path or default_path
        return _file(
            path,
            tuple(self.hunks),
            old_path=self.old_path,
            new_file=new_file,
            deleted=deleted,
            renamed=self.renamed,
            binary=self.binary,
        )


def looks_like_diff(text: str) -> bool:
    """Whether ``text`` has a ``diff --git`` line, a ``---``/``+++`` pair or a hunk header."""
    return bool(_DIFF_START.search(text) or _FILE_HEADER.search(text))


def _split(text: str) -> list[str]:
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return [ln[:-1] if ln.endswith("\r") else ln for ln in lines]


def parse_content(text: str, path: str | None = None) -> DiffParse:
    """Plain file content read as one new file whose every line is added."""
    lines = tuple(HunkLine("+", None, n, t) for n, t in enumerate(_split(text), start=1))
    hunk = Hunk(old_start=0, new_start=1, heading="", lines=lines)
    return DiffParse(files=(_file(path, (hunk,) if lines else (), new_file=True),))


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
        i, n = 0, len(self.lines)
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
            elif self.cur is not None:
                self._meta(self.cur, ln)
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
        elif ln.startswith("Binary files ") or ln.startswith("GIT binary patch"):
            f.binary = True

    def _hunk(self, i: int, m: re.Match[str]) -> int:
        f = self.cur if self.cur is not None else self._new_file()
        old_no, new_no = int(m.group(1)), int(m.group(3))
        rem_old = int(m.group(2)) if m.group(2) is not None else 1
        rem_new = int(m.group(4)) if m.group(4) is not None else 1
        out: list[HunkLine] = []
        i += 1
        n = len(self.lines)
        while i < n:
            ln = self.lines[i]
            counted = rem_old > 0 or rem_new > 0
            if ln.startswith("\\"):
                i += 1
                continue
            if ln.startswith(("@@", "diff ")):
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


def parse_diff(text: str, default_path: str | None = None) -> DiffParse:
    """Parse a unified diff (several files, new, deleted, renamed). Never raises.

    ``default_path`` names a file whose hunks come without ``---``/``+++`` headers.
    """
    parser = _Parser(_split(text) if isinstance(text, str) else [], default_path)
    error: str | None = None
    try:
        parser.run()
    except Exception as exc:
        log.error("diff parser failed; results are partial", exc_info=True)
        error = f"diff parser failed: {type(exc).__name__}: {exc}"[:500]
    files = tuple(f.freeze(default_path) for f in parser.files)
    return DiffParse(files=files, error=error)
