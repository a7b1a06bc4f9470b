"""The text the configuration readers (``config_files``) read: the new side of a file's hunks
(context and added lines, so a directive added inside an unchanged block still has its block),
with each offset's line and whether that line was added, and the ``{ … }`` blocks of the
brace-structured formats (nginx, Caddy, HCL and JSON). Pure, bounded, never raises."""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass

from humangr.contracts import Severity

from .base import Hit, snippet
from .diff import FileDiff

__all__ = ["MAX_TEXT", "Block", "ConfigText", "blocks", "enclosing", "inside"]

MAX_TEXT = 200_000
"""The most characters of a file read (the new side of its hunks)."""
_MAX_BLOCKS = 5_000
_MAX_DEPTH = 200


class ConfigText:
    """The new side of ``file``'s hunks as one text: ``line``, ``number`` and ``added`` of an
    offset; ``complete`` is False when the text was cut at ``MAX_TEXT``. Hunks are separated
    by an empty line (not added)."""

    def __init__(self, file: FileDiff) -> None:
        texts: list[str] = []
        self.numbers: list[int] = []
        self.added_lines: list[bool] = []
        self.complete = True
        total = 0
        for lines in _sides(file):
            if texts:
                texts.append("")
                self.numbers.append(self.numbers[-1])
                self.added_lines.append(False)
                total += 1
            for number, text, added in lines:
                if total + len(text) + 1 > MAX_TEXT:
                    self.complete = False
                    text = text[: max(0, MAX_TEXT - total - 1)]
                texts.append(text)
                self.numbers.append(number)
                self.added_lines.append(added)
                total += len(text) + 1
                if not self.complete:
                    break
            if not self.complete:
                break
        self.lines = texts
        self.text = "\n".join(texts)
        self.starts = [0]
        for text in texts[:-1]:
            self.starts.append(self.starts[-1] + len(text) + 1)

    def index(self, offset: int) -> int:
        """The index in ``lines`` of the line holding ``offset``."""
        return max(0, bisect.bisect_right(self.starts, offset) - 1)

    def number(self, offset: int) -> int | None:
        """The file's line number at ``offset``."""
        return self.numbers[self.index(offset)] if self.numbers else None

    def added(self, offset: int) -> bool:
        """Whether the line at ``offset`` was added by the change."""
        return bool(self.added_lines) and self.added_lines[self.index(offset)]

    def any_added(self, start: int, end: int) -> bool:
        """Whether a line between the offsets ``start`` and ``end`` was added."""
        if not self.added_lines:
            return False
        return any(self.added_lines[self.index(start) : self.index(max(start, end)) + 1])

    def at(self, offset: int) -> str:
        """The line at ``offset``, shortened for a finding."""
        return snippet(self.lines[self.index(offset)]) if self.lines else ""

    def hit(
        self, path: str, severity: Severity, title: str, offset: int, why: str, fix: str
    ) -> Hit:
        """A finding of the file at ``path`` at ``offset``, its line quoted."""
        return Hit(
            severity,
            title,
            f"{why} Line: `{self.at(offset)}`",
            fix,
            file=path,
            line=self.number(offset),
        )


def _sides(file: FileDiff) -> list[list[tuple[int, str, bool]]]:
    if not file.hunks:
        return [[(ln.number, ln.text, True) for ln in file.added]] if file.added else []
    return [
        [(ln.new, ln.text, ln.kind == "+") for ln in h.lines if ln.kind != "-" and ln.new]
        for h in file.hunks
    ]


@dataclass(frozen=True, slots=True)
class Block:
    """One ``header { … }`` block: ``open`` and ``close`` are the braces' offsets (``close`` is
    the text's end when the block is not closed in the text)."""

    header: str
    start: int
    open: int
    close: int

    def body(self, text: str) -> str:
        return text[self.open + 1 : self.close]


_TOKEN = re.compile(
    r"\"[^\"\\\n]*+(?:\\.[^\"\\\n]*+)*+\"?|'[^'\\\n]*+(?:\\.[^'\\\n]*+)*+'?|#[^\n]*+|[{}]"
)
"""A quoted string (one left open ends at its line's end: never a failed, repeated scan), a
comment, or a brace."""


def blocks(text: str, *, lines: bool = False) -> list[Block]:
    """The ``{ … }`` blocks of ``text`` in the order they open, quoted strings and ``#``
    comments skipped (the braces of a heredoc's JSON are blocks too). A header runs from the
    last ``{``, ``}`` or ``;`` before its brace (``lines``: or line break, for formats whose
    statements end at the line's end: Caddy, HCL), comments left out."""
    found: list[Block] = []
    stack: list[tuple[str, int, int]] = []
    boundary = pos = deeper = 0
    while len(found) + len(stack) < _MAX_BLOCKS:
        m = _TOKEN.search(text, pos)
        if m is None:
            break
        pos = m.end()
        piece = m.group(0)
        if piece == "{":
            start = max(boundary, text.rfind(";", boundary, m.start()) + 1)
            if lines:
                start = max(start, text.rfind("\n", 0, m.start()) + 1)
            if len(stack) < _MAX_DEPTH:
                stack.append((_header(text[start : m.start()]), start, m.start()))
            else:
                deeper += 1
            boundary = m.end()
        elif piece == "}":
            if deeper:
                deeper -= 1
            elif stack:
                header, start, opened = stack.pop()
                found.append(Block(header, start, opened, m.start()))
            boundary = m.end()
    for header, start, opened in stack:
        found.append(Block(header, start, opened, len(text)))
    found.sort(key=lambda b: b.open)
    return found


def _header(raw: str) -> str:
    lines = [ln.split("#", 1)[0].strip() for ln in raw.splitlines()]
    return " ".join(ln for ln in lines if ln)[:500]


def enclosing(found: list[Block], offset: int) -> list[Block]:
    """The blocks around ``offset``, innermost first."""
    around = [b for b in found if b.open < offset <= b.close]
    return sorted(around, key=lambda b: -b.open)


def inside(found: list[Block], offset: int) -> Block | None:
    """The innermost block around ``offset``."""
    around = enclosing(found, offset)
    return around[0] if around else None
