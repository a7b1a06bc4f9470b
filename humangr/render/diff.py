"""An action's diff as a reviewer reads it: file by file, with each finding under the line it
points at.

The diff is read as the local checks read it (``read_action``), so a finding lands where the
checks numbered it: on the new side (added or context lines), or on a removed line when only
a removed line has that number (and always for the ``deleted-test`` check, which names the
removed line). Findings about a file at no line of the diff follow the file; findings about
no file of the diff (or no file at all) come at the end. Everything an agent or an LLM wrote is
shown through ``printable``: control and bidirectional characters appear as escapes.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence

from humangr.contracts import ActionContext, Finding
from humangr.engine.checks.base import read_action
from humangr.engine.checks.diff import FileDiff
from humangr.engine.tool_render import argument_label, of_file

__all__ = [
    "anchor_of",
    "diff_with_findings",
    "file_lines",
    "finding_lines",
    "line_numbers",
    "of_file",
    "printable",
]

GUTTER = 13
"""Width of the old and new line numbers in front of each diff line."""
_REMOVED_SIDE = "-R-deleted-test-"


def printable(text: str) -> str:
    """``text`` safe for a terminal: control characters (but tab) and invisible format
    characters (bidirectional overrides, zero-width) written as ``\\x1b``, ``\\u202e``."""
    if text.isprintable():
        return text
    out = []
    for char in text:
        if char == "\t" or unicodedata.category(char) not in ("Cc", "Cf", "Zl", "Zp"):
            out.append(char)
        else:
            code = ord(char)
            out.append(f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}")
    return "".join(out)


def finding_lines(
    finding: Finding,
    indent: str,
    *,
    marker: str = "",
    where: bool = False,
    tool: str | None = None,
) -> list[str]:
    """One finding: severity, layer, title (``marker`` in front, and where if asked: its file
    and line, or the argument of the tool call it concerns, of ``tool`` if the finding does not
    name it), then its description and suggestion."""
    place = label = ""
    if where:
        label = printable(argument_label(finding, tool))
        if finding.file:
            place = f" ({printable(finding.file)}"
            place += f":{finding.line})" if finding.line is not None else ")"
        elif finding.argument and finding.line is not None:
            place = f" (line {finding.line})"
    lines = [
        f"{indent}{marker}[{finding.severity.value}] {finding.layer_id.value} "
        f"{label}{printable(finding.title)}{place} ({finding.source.value})"
    ]
    if finding.suppressed_by:
        lines[0] += (
            f" — suppressed by {printable(finding.suppressed_by)}: "
            f"{printable(finding.suppression_reason)}"
        )
    indent += " " * len(marker)
    for text in finding.description.splitlines():
        if text.strip():
            lines.append(f"{indent}  {printable(text)}")
    if finding.suggestion:
        lines.append(f"{indent}  suggestion: {printable(finding.suggestion)}")
    return lines


def _header(diff: FileDiff) -> str:
    path = printable(diff.path or "(unnamed file)")
    if diff.new_file:
        what = "new file"
    elif diff.deleted:
        what = "deleted"
    elif diff.renamed and diff.old_path:
        what = f"renamed from {printable(diff.old_path)}"
    else:
        what = "modified"
    return f"=== {path} ({what})"


def line_numbers(diff: FileDiff) -> dict[str, set[int | None]]:
    """The line numbers a finding may point at in ``diff``: ``new`` (added and context lines)
    and ``old`` (removed lines)."""
    return {
        "new": {ln.new for h in diff.hunks for ln in h.lines if ln.kind != "-"},
        "old": {ln.old for h in diff.hunks for ln in h.lines if ln.kind == "-"},
    }


def anchor_of(finding: Finding, numbers: dict[str, set[int | None]]) -> tuple[str, int] | None:
    """Where ``finding`` goes in a file: ``("new", n)``, ``("old", n)`` or nowhere."""
    line = finding.line
    if line is None:
        return None
    order = ("old", "new") if _REMOVED_SIDE in finding.id else ("new", "old")
    return next(((side, line) for side in order if line in numbers[side]), None)


def file_lines(diff: FileDiff, findings: list[Finding]) -> tuple[list[str], list[Finding]]:
    """The lines of one file of the diff, and its findings that are at none of them."""
    numbers = line_numbers(diff)
    anchored: dict[tuple[str, int], list[Finding]] = {}
    loose: list[Finding] = []
    for finding in findings:
        anchor = anchor_of(finding, numbers)
        if anchor is None:
            loose.append(finding)
        else:
            anchored.setdefault(anchor, []).append(finding)
    out = [_header(diff)]
    if diff.binary:
        out.append("    (binary file: its content is not shown)")
    for hunk in diff.hunks:
        heading = f" {printable(hunk.heading)}" if hunk.heading else ""
        old = sum(ln.kind != "+" for ln in hunk.lines)
        new = sum(ln.kind != "-" for ln in hunk.lines)
        out.append(f"@@ -{hunk.old_start},{old} +{hunk.new_start},{new} @@{heading}")
        for ln in hunk.lines:
            gutter = f"{ln.old if ln.old is not None else '':>5} "
            gutter += f"{ln.new if ln.new is not None else '':>5}"
            out.append(f"{gutter:<{GUTTER - 1}} {ln.kind}{printable(ln.text)}")
            side, number = ("old", ln.old) if ln.kind == "-" else ("new", ln.new)
            if number is not None:
                for finding in anchored.pop((side, number), []):
                    out.extend(finding_lines(finding, " " * (GUTTER + 1), marker="^ "))
    return out, loose


def diff_with_findings(action: ActionContext | None, findings: Sequence[Finding]) -> list[str]:
    """The action's diff file by file with its findings at their lines, then the findings that
    are at no line (after their file) and about no file of the diff (at the end)."""
    if action is None or not action.code_diff:
        note = "(no diff: the action is its description)" if action else "(no action stored)"
        files: tuple[FileDiff, ...] = ()
        out = [note]
    else:
        parse = read_action(action)
        files, out = parse.files, []
        if parse.error:
            out.append(
                f"(the diff could not be read to the end: {printable(parse.error)}; "
                "--format json has the diff as submitted)"
            )
    rest = list(findings)
    for diff in files:
        mine = [f for f in rest if of_file(f, diff)]
        rest = [f for f in rest if not of_file(f, diff)]
        lines, loose = file_lines(diff, mine)
        out.extend(lines)
        if loose:
            out.append(
                f"  findings on {printable(diff.path or 'this file')} at no line of the diff:"
            )
            for finding in loose:
                line = f" (line {finding.line})" if finding.line is not None else ""
                first, *more = finding_lines(finding, "    ")
                out.extend([first + line, *more])
    if rest:
        out.append("=== findings about no file of the diff")
        for finding in rest:
            out.extend(finding_lines(finding, "    ", where=True))
    return out
