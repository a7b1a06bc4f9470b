"""The parsed form of review input: files, hunks and their added and removed lines."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from .binpatch import BinaryPatch

__all__ = [
    "DiffLine",
    "DiffParse",
    "FileDiff",
    "Hunk",
    "HunkLine",
    "content_hunks",
    "content_lines",
    "make_file",
]

Kind = Literal["+", "-", " "]
_LINE_BREAK = re.compile(r"\r\n|\r|\n")


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
    binary_patch: BinaryPatch | None = None
    """A ``GIT binary patch``: a ``text`` literal is decoded into ``hunks`` (the whole new
    content) and the file is not ``binary``; any other kind left the content unread."""
    stray: bool = False
    """Lines of a diff outside its structure and hunks, read as content (no path)."""


def make_file(
    path: str | None,
    hunks: tuple[Hunk, ...],
    *,
    old_path: str | None = None,
    new_file: bool = False,
    deleted: bool = False,
    renamed: bool = False,
    binary: bool = False,
    binary_patch: BinaryPatch | None = None,
    stray: bool = False,
) -> FileDiff:
    """A ``FileDiff`` of ``hunks`` with its added and removed lines gathered."""
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
        binary_patch=binary_patch,
        stray=stray,
    )


@dataclass(frozen=True, slots=True)
class DiffParse:
    """The files of a diff; ``error`` is set when the parser itself failed part way."""

    files: tuple[FileDiff, ...]
    error: str | None = None


def content_lines(text: str) -> list[str]:
    """The lines of file content: ``\\r\\n``, ``\\n`` and a lone ``\\r`` each end one."""
    lines = _LINE_BREAK.split(text)
    if lines and lines[-1] == "":
        lines.pop()
    return lines


def content_hunks(text: str) -> tuple[Hunk, ...]:
    """File content as one hunk of added lines (none for empty content)."""
    lines = tuple(HunkLine("+", None, n, t) for n, t in enumerate(content_lines(text), start=1))
    return (Hunk(old_start=0, new_start=1, heading="", lines=lines),) if lines else ()
