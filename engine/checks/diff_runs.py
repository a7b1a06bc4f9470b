"""Runs of changed lines in a diff: each run of removed lines with the added lines that follow
them, as a change replacing code in place writes them (for the checks that compare a line
with what replaced it: ``guard_edits``, ``guard_refusal``)."""

from __future__ import annotations

from collections.abc import Iterator

from .diff import FileDiff

__all__ = ["change_runs"]


def change_runs(file: FileDiff, max_line: int) -> Iterator[tuple[list[str], list[tuple[str, int]]]]:
    """``(removed, added)`` for each run of ``file``'s removed lines followed by added ones,
    in order: removed texts, and added texts with their new line numbers, each cut to
    ``max_line`` characters. A run with no removed or no added line is not one."""
    for hunk in file.hunks:
        removed: list[str] = []
        added: list[tuple[str, int]] = []
        for line in (*hunk.lines, None):
            if line is not None and line.kind == "-":
                if added:
                    removed, added = [], []
                removed.append(line.text[:max_line])
                continue
            if line is not None and line.kind == "+" and line.new is not None:
                added.append((line.text[:max_line], line.new))
                continue
            if removed and added:
                yield removed, added
            removed, added = [], []
