"""HL3 swallowed exceptions; HL2 leftover TODOs and NotImplementedError (deleted tests:
``removed_tests``)."""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator

from humangr.contracts import Severity

from .base import CheckInput, Hit, snippet
from .fragments import Region, enclosing_headers
from .pyast import dotted, fragments, is_comment, scope_walk, uncovered

__all__ = ["not_implemented", "swallowed_exceptions", "todo_markers"]

_BROAD = frozenset({"Exception", "BaseException", "builtins.Exception"})
_EXC_FIX = "Catch the specific exceptions you expect and handle or log them; re-raise the rest."


def _swallows(body: list[ast.stmt]) -> bool:
    return all(
        isinstance(s, ast.Pass | ast.Continue)
        or (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))
        for s in body
    )


def _broad(t: ast.expr | None) -> bool:
    if t is None:
        return False
    elts = t.elts if isinstance(t, ast.Tuple) else [t]
    return any(dotted(e) in _BROAD for e in elts)


def _exc_hit(kind: str, path: str | None, line: int, text: str) -> Hit:
    titles = {
        "bare-swallow": (Severity.HIGH, "Bare except swallows every error"),
        "bare": (Severity.MEDIUM, "Bare except catches everything, incl. cancellation"),
        "broad-swallow": (Severity.MEDIUM, "Exception silently swallowed"),
    }
    sev, title = titles[kind]
    return Hit(
        severity=sev,
        title=title,
        description=f"{path or '<content>'}:{line}: {snippet(text)}",
        suggestion=_EXC_FIX,
        file=path,
        line=line,
    )


_BARE_RX = re.compile(r"^\s*except\s*:\s*(.*)$")
_BROAD_RX = re.compile(r"^\s*except\s*\(?\s*(?:builtins\.)?(?:Base)?Exception\b[^:]*:\s*(.*)$")
_SWALLOW_RX = re.compile(r"^(?:pass|continue|\.\.\.)\s*(?:#.*)?$")


def _next_code(region: Region, idx: int) -> str:
    for _, text, _ in region.lines[idx + 1 :]:
        if not is_comment(text):
            return text.strip()
    return ""


def swallowed_exceptions(ctx: CheckInput) -> Iterator[Hit]:
    """Bare ``except:`` (medium; high when it swallows) and ``except Exception: pass`` (medium)."""
    for f, frag in fragments(ctx):
        for h in frag.nodes:
            if not isinstance(h, ast.ExceptHandler):
                continue
            bare, swallow = h.type is None, _swallows(h.body)
            if bare:
                reraise = any(isinstance(n, ast.Raise) for n in scope_walk(h))
                kind = "bare-swallow" if swallow else (None if reraise else "bare")
            else:
                kind = "broad-swallow" if swallow and _broad(h.type) else None
            if kind is None:
                continue
            head = frag.new_line(h.lineno)
            line = head if head in frag.added else (frag.node_line(h) if swallow else None)
            if line is not None:
                src_lines = frag.source.split("\n")
                src = src_lines[h.lineno - 1] if 0 < h.lineno <= len(src_lines) else ""
                yield _exc_hit(kind, f.path, line, src)
    for u in uncovered(ctx):
        bare_m, broad_m = _BARE_RX.match(u.text), _BROAD_RX.match(u.text)
        hm = bare_m or broad_m
        if hm is None:
            continue
        rest = hm.group(1).strip() or _next_code(u.region, u.index)
        swallow = bool(_SWALLOW_RX.match(rest))
        kind = (
            ("bare-swallow" if swallow else "bare")
            if bare_m
            else ("broad-swallow" if swallow else None)
        )
        if kind:
            yield _exc_hit(kind, u.file.path, u.line, u.text)


_TODO = re.compile(r"\b(?:TODO|FIXME)\b|(?:#|//|/\*|<!--|--|\*)\s*(?:XXX|HACK)\b")


def todo_markers(ctx: CheckInput) -> Iterator[Hit]:
    """TODO/FIXME/XXX/HACK markers in added lines: low."""
    for f, ln in ctx.added():
        if _TODO.search(ln.text[:10_000]):
            yield Hit(
                severity=Severity.LOW,
                title="Leftover TODO/FIXME marker",
                description=f"{f.path or '<content>'}:{ln.number}: {snippet(ln.text)}",
                suggestion="Finish the work or track it in an issue before merging.",
                file=f.path,
                line=ln.number,
            )


_NIE = re.compile(r"^\s*raise\s+NotImplementedError\b")
_ABSTRACT = re.compile(r"^\s*@(?:abc\.)?(?:abstractmethod|abstractproperty|overload)\b")
_INTERFACE = re.compile(r"^class\s+\w+\s*\(.*\b(?:Protocol|ABC|ABCMeta)\b")


def _abstract(region: Region, idx: int) -> bool:
    headers = enclosing_headers(region, idx)
    if any(_INTERFACE.match(h) for h in headers):
        return True
    fn = next((h for h in headers if re.match(r"^(?:async\s+)?def\b", h)), None)
    if fn is None:
        return False
    texts = [t.strip() for _, t, _ in region.lines]
    at = max((i for i in range(idx) if texts[i] == fn), default=-1)
    j = at - 1
    while j >= 0 and texts[j].startswith("@"):
        if _ABSTRACT.match(texts[j]):
            return True
        j -= 1
    return False


def not_implemented(ctx: CheckInput) -> Iterator[Hit]:
    """``raise NotImplementedError`` added outside abstract methods and protocols: medium."""
    for py in ctx.python_files():
        for region in py.regions:
            for idx, (no, text, added) in enumerate(region.lines):
                if added and _NIE.match(text) and not _abstract(region, idx):
                    yield Hit(
                        severity=Severity.MEDIUM,
                        title="Unimplemented code path (raise NotImplementedError)",
                        description=f"{py.file.path or '<content>'}:{no}: {snippet(text)}",
                        suggestion="Implement it, or mark the method abstract if subclasses must.",
                        file=py.file.path,
                        line=no,
                    )
