"""Parseable Python fragments of a diff, with a map back to the new file's line numbers.

A hunk's new side (context and added lines) is a contiguous piece of the new file. It is
wrapped in synthetic block headers where it starts inside a block (the function git's hunk
heading names when it is a whole top-level ``def`` line, else ``async def`` when the heading
names one), patched where a clause or a body is cut off, and parsed. When that
fails the added span alone is tried, then each run of consecutive added lines. Added lines
that end up in no parsed fragment are ``uncovered``: the checks judge them with line
patterns and indentation scopes instead.
"""

from __future__ import annotations

import ast
import re
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field

from .diff import FileDiff

__all__ = ["Fragment", "PyFile", "Region", "enclosing_headers", "python_view"]

_CLAUSE = re.compile(r"^(?:elif\b|else\s*:|except\b|finally\s*:)")
_COMPOUND = re.compile(
    r"^(?:async\s+)?(?:def|class|if|elif|else|for|while|try|except|finally|with|match|case)\b"
)
_ENDS_COLON = re.compile(r":\s*(?:#.*)?$")


@dataclass(frozen=True, slots=True)
class Region:
    """The new side of one hunk: ``(new line number, text, added)`` per line."""

    heading: str
    lines: tuple[tuple[int, str, bool], ...]


@dataclass(frozen=True, slots=True)
class Fragment:
    """A parsed piece of the new file; ``line_map[i]`` is the new line of fragment line i+1."""

    tree: ast.Module
    source: str
    line_map: tuple[int | None, ...]
    added: frozenset[int]
    nodes: tuple[ast.AST, ...] = ()
    """Every node of ``tree`` (``ast.walk`` order), walked once for all checks."""

    def new_line(self, frag_line: int) -> int | None:
        if 1 <= frag_line <= len(self.line_map):
            return self.line_map[frag_line - 1]
        return None

    def report_line(self, lineno: int, end_lineno: int | None = None) -> int | None:
        """The added new-file line to report for a fragment span, or None (span not added)."""
        end = max(lineno, end_lineno or lineno)
        for frag_line in range(lineno, min(end, len(self.line_map)) + 1):
            n = self.new_line(frag_line)
            if n is not None and n in self.added:
                return n
        return None

    def node_line(self, node: ast.AST) -> int | None:
        lineno = getattr(node, "lineno", None)
        if not isinstance(lineno, int):
            return None
        return self.report_line(lineno, getattr(node, "end_lineno", None))


@dataclass(slots=True)
class PyFile:
    """The Python view of one changed file."""

    file: FileDiff
    regions: list[Region] = field(default_factory=list)
    fragments: list[Fragment] = field(default_factory=list)
    uncovered: list[tuple[Region, int]] = field(default_factory=list)
    """Added lines in no parsed fragment, as (region, index into region.lines)."""


def _lead(text: str) -> tuple[str, int]:
    body = text.lstrip(" \t")
    lead = text[: len(text) - len(body)].expandtabs(8)
    return lead + body, len(lead)


def _is_code(text: str) -> bool:
    s = text.strip()
    return bool(s) and not s.startswith("#")


def _heading_def(heading: str) -> str | None:
    """The ``def`` line git names in a hunk heading, when it is a whole top-level function
    signature (``def archive(service, days=7):``): a hunk indented under it lies in that
    function's body (no other top-level line came between). Methods, classes and signatures
    git cut short are left to the generic header."""
    text = heading.rstrip()
    if not text or text[0].isspace() or len(text) > 200:
        return None
    if not text.startswith(("def ", "async def ")) or not text.endswith(":"):
        return None
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # SyntaxWarning of the code under review
            tree = ast.parse(text + "\n    pass\n")
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return None
    if len(tree.body) != 1 or not isinstance(tree.body[0], ast.FunctionDef | ast.AsyncFunctionDef):
        return None
    return text


def _prepare(lines: Sequence[tuple[int | None, str]], heading: str) -> tuple[str, list[int | None]]:
    # A lone carriage return ends a line for Python (git keeps it inside one diff line): each
    # part is read as the line it is, under the diff line's number.
    norm = [(no, *_lead(part)) for no, t in lines for part in t.split("\r")]
    code_ind = [ind for _, t, ind in norm if _is_code(t)]
    if not code_ind:
        return "", []
    first = code_ind[0]
    out: list[tuple[int | None, str]] = []
    levels = sorted({i for i in code_ind if i < first} | {0}) if first > 0 else []
    for k, lvl in enumerate(levels):
        head = "if True:"
        if k == 0:
            named = _heading_def(heading)
            if named is not None:
                head = named  # the function git names: its callers in the diff reach it
            elif heading.lstrip().startswith("async def"):
                head = "async def __hunk__():"
        out.append((None, " " * lvl + head))
    seen: dict[int, bool] = {}
    body = norm
    for idx, (no, text, ind) in enumerate(body):
        if _is_code(text):
            stripped = text.lstrip()
            for lvl in [k for k in seen if k > ind]:
                del seen[lvl]
            if _CLAUSE.match(stripped) and ind not in seen:
                opener = (
                    "try: pass" if stripped.startswith(("except", "finally")) else "if True: pass"
                )
                out.append((None, " " * ind + opener))
            seen[ind] = True
            out.append((no, text))
            if _COMPOUND.match(stripped) and _ENDS_COLON.search(stripped):
                nxt = next((b for b in body[idx + 1 :] if _is_code(b[1])), None)
                if nxt is None or nxt[2] <= ind:
                    out.append((None, " " * (ind + 4) + "pass"))
        else:
            out.append((no, text))
    return "\n".join(t for _, t in out) + "\n", [no for no, _ in out]


def _parse(
    lines: Sequence[tuple[int | None, str]], heading: str, added: set[int]
) -> Fragment | None:
    source, line_map = _prepare(lines, heading)
    if not source.strip():
        return None
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            tree = ast.parse(source)
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return None
    covered = frozenset(n for n in line_map if n is not None and n in added)
    return Fragment(
        tree=tree,
        source=source,
        line_map=tuple(line_map),
        added=covered,
        nodes=tuple(ast.walk(tree)),
    )


def _runs(region: Region) -> list[list[int]]:
    runs: list[list[int]] = []
    for idx, (_, _, is_added) in enumerate(region.lines):
        if not is_added:
            continue
        if runs and runs[-1][-1] == idx - 1:
            runs[-1].append(idx)
        else:
            runs.append([idx])
    return runs


def _view_region(py: PyFile, region: Region) -> None:
    added = {no for no, _, a in region.lines if a}
    if not added:
        return
    whole = [(no, t) for no, t, _ in region.lines]
    frag = _parse(whole, region.heading, added)
    idxs = [i for i, (_, _, a) in enumerate(region.lines) if a]
    if frag is None:
        span = whole[idxs[0] : idxs[-1] + 1]
        if len(span) < len(whole):
            frag = _parse(span, region.heading, added)
    if frag is not None:
        py.fragments.append(frag)
        return
    tried = {(0, len(whole) - 1), (idxs[0], idxs[-1])}
    for run in _runs(region):
        part = [whole[i] for i in run]
        f = _parse(part, region.heading, added) if (run[0], run[-1]) not in tried else None
        if f is not None:
            py.fragments.append(f)
        else:
            py.uncovered.extend((region, i) for i in run)


def python_view(file: FileDiff) -> PyFile:
    """Fragments and uncovered added lines of one changed Python file."""
    py = PyFile(file=file)
    for hunk in file.hunks:
        lines = tuple((ln.new, ln.text, ln.kind == "+") for ln in hunk.lines if ln.new is not None)
        region = Region(heading=hunk.heading, lines=lines)
        py.regions.append(region)
        _view_region(py, region)
    return py


def enclosing_headers(region: Region, idx: int) -> list[str]:
    """Stripped lines opening the blocks around ``region.lines[idx]``, innermost first.

    Found by indentation alone (for lines no fragment could parse); the hunk heading, when
    the region never reaches column 0, is the outermost.
    """
    _, text, _ = region.lines[idx]
    current = _lead(text)[1]
    out: list[str] = []
    for j in range(idx - 1, -1, -1):
        if current == 0:
            break
        t, ind = _lead(region.lines[j][1])
        if _is_code(t) and ind < current:
            out.append(t.strip())
            current = ind
    if current > 0 and region.heading.strip():
        out.append(region.heading.strip())
    return out
