"""An action's diff as the review page shows it: files, hunks and lines, each finding attached
to the line it points at — placed exactly as ``humangr show`` places it (``render_diff``).

The values are raw text: the templates escape every one of them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from humangr.contracts import ActionContext, Finding
from humangr.engine.checks.base import read_action
from humangr.engine.checks.diff import FileDiff
from humangr.engine.tool_render import of_file
from humangr.render.diff import anchor_of, line_numbers

__all__ = ["DiffView", "FileView", "HunkView", "LineView", "diff_view", "file_view"]


@dataclass(frozen=True, slots=True)
class LineView:
    kind: str
    """``+`` added, ``-`` removed, `` `` context."""
    old: int | None
    new: int | None
    text: str
    findings: list[Finding] = field(default_factory=list)

    @property
    def css(self) -> str:
        return {"+": "add", "-": "del"}.get(self.kind, "ctx")


@dataclass(frozen=True, slots=True)
class HunkView:
    header: str
    lines: list[LineView]


@dataclass(frozen=True, slots=True)
class FileView:
    path: str
    what: str
    binary: bool
    hunks: list[HunkView]
    loose: list[Finding]
    """Findings about this file at no line of its diff."""


@dataclass(frozen=True, slots=True)
class DiffView:
    files: list[FileView]
    orphans: list[Finding]
    """Findings about no file of the diff (or no file at all)."""
    note: str | None = None
    error: str | None = None


def _what(diff: FileDiff) -> str:
    if diff.new_file:
        return "new file"
    if diff.deleted:
        return "deleted"
    if diff.renamed and diff.old_path:
        return f"renamed from {diff.old_path}"
    return "modified"


def file_view(diff: FileDiff, findings: list[Finding]) -> FileView:
    """One file of a diff, each of ``findings`` (about this file) at its line or loose."""
    numbers = line_numbers(diff)
    anchored: dict[tuple[str, int], list[Finding]] = {}
    loose: list[Finding] = []
    for finding in findings:
        anchor = anchor_of(finding, numbers)
        if anchor is None:
            loose.append(finding)
        else:
            anchored.setdefault(anchor, []).append(finding)
    hunks = []
    for hunk in diff.hunks:
        old = sum(ln.kind != "+" for ln in hunk.lines)
        new = sum(ln.kind != "-" for ln in hunk.lines)
        heading = f" {hunk.heading}" if hunk.heading else ""
        lines = []
        for ln in hunk.lines:
            side, number = ("old", ln.old) if ln.kind == "-" else ("new", ln.new)
            here = anchored.pop((side, number), []) if number is not None else []
            lines.append(LineView(ln.kind, ln.old, ln.new, ln.text, here))
        header = f"@@ -{hunk.old_start},{old} +{hunk.new_start},{new} @@{heading}"
        hunks.append(HunkView(header, lines))
    return FileView(diff.path or "(unnamed file)", _what(diff), diff.binary, hunks, loose)


def diff_view(action: ActionContext | None, findings: Sequence[Finding]) -> DiffView:
    """The action's diff file by file, each finding at its line, after its file (at no line
    of it) or at the end (about no file of the diff)."""
    if action is None:
        return DiffView([], list(findings), note="no action stored with this review")
    if not action.code_diff:
        return DiffView([], list(findings), note="no diff: the action is its description")
    parse = read_action(action)
    rest = list(findings)
    files = []
    for diff in parse.files:
        mine = [f for f in rest if of_file(f, diff)]
        rest = [f for f in rest if not of_file(f, diff)]
        files.append(file_view(diff, mine))
    return DiffView(files, rest, error=parse.error)
