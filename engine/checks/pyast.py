"""Small AST helpers shared by the Python checks: names, request input, scopes, iteration."""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from .base import CheckInput
from .diff import FileDiff
from .fragments import Fragment, PyFile, Region

__all__ = [
    "INPUT",
    "SANITIZERS",
    "WEB_INPUT",
    "Uncovered",
    "dotted",
    "fragments",
    "is_comment",
    "sanitized",
    "scope_walk",
    "tainted_names",
    "uncovered",
    "uncovered_of",
    "uses_input",
]

WEB_INPUT = re.compile(
    r"\brequest\.(?:args|form|values|files|params|query_params|path_params|GET|POST|json|data"
    r"|get_json|cookies|headers|match_info|query|body|rel_url|arguments)\b"
    r"|\breq\.(?:query|params|body|headers|cookies)\b|\bget_argument\s*\("
)
"""Expressions that read web request data."""
INPUT = re.compile(WEB_INPUT.pattern + r"|(?<![\w.])input\s*\(|\bsys\.argv\b")
"""Untrusted input in general: web request data, stdin, argv."""

SANITIZERS = frozenset({"secure_filename", "basename", "safe_join"})
_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)


@dataclass(frozen=True, slots=True)
class Uncovered:
    """An added Python line that no fragment could parse."""

    file: FileDiff
    region: Region
    index: int
    line: int
    text: str


def dotted(node: ast.AST) -> str:
    """``a.b.c`` for a Name/Attribute chain (calls in the chain are kept as ``()``)."""
    parts: list[str] = []
    cur: ast.AST | None = node
    while cur is not None:
        if isinstance(cur, ast.Attribute):
            parts.append(cur.attr)
            cur = cur.value
        elif isinstance(cur, ast.Name):
            parts.append(cur.id)
            cur = None
        elif isinstance(cur, ast.Call):
            parts.append("()")
            cur = cur.func
        else:
            parts.append("?")
            cur = None
    return ".".join(reversed(parts)).replace(".()", "()")


def tainted_names(nodes: Iterable[ast.AST], source: re.Pattern[str] = INPUT) -> set[str]:
    """Plain names assigned (directly or through other tainted names) from untrusted input."""
    tainted: set[str] = set()
    assigns = [n for n in nodes if isinstance(n, ast.Assign | ast.AnnAssign)]
    assigns.sort(key=lambda n: (n.lineno, n.col_offset))
    for node in assigns:
        value = node.value
        if value is None or not uses_input(value, tainted, source):
            continue
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        for t in targets:
            elts = t.elts if isinstance(t, ast.Tuple | ast.List) else [t]
            tainted.update(e.id for e in elts if isinstance(e, ast.Name))
    return tainted


def sanitized(node: ast.AST) -> bool:
    """A call of a path sanitizer (secure_filename, basename, safe_join)."""
    return isinstance(node, ast.Call) and dotted(node.func).rsplit(".", 1)[-1] in SANITIZERS


def uses_input(node: ast.AST, tainted: set[str], source: re.Pattern[str] = INPUT) -> bool:
    """Whether an expression reads request input or a tainted name, outside sanitizer calls."""
    stack = [node]
    while stack:
        cur = stack.pop()
        if sanitized(cur):
            continue
        if isinstance(cur, ast.Name) and cur.id in tainted:
            return True
        if isinstance(cur, ast.Attribute) and source.search(dotted(cur)):
            return True
        if isinstance(cur, ast.Call) and source.search(dotted(cur.func) + "("):
            return True
        stack.extend(ast.iter_child_nodes(cur))
    return False


def scope_walk(node: ast.AST) -> Iterator[ast.AST]:
    """The descendants of ``node`` that run in its own scope (no nested defs or lambdas)."""
    stack = list(ast.iter_child_nodes(node))
    while stack:
        cur = stack.pop()
        yield cur
        if not isinstance(cur, _SCOPES):
            stack.extend(ast.iter_child_nodes(cur))


def is_comment(text: str) -> bool:
    s = text.lstrip()
    return not s or s.startswith(("#", "//", "/*", "* ", "<!--"))


def fragments(ctx: CheckInput) -> Iterator[tuple[FileDiff, Fragment]]:
    """Every parsed fragment of every Python file of the action."""
    for py in ctx.python_files():
        for frag in py.fragments:
            yield py.file, frag


def uncovered_of(py: PyFile) -> Iterator[Uncovered]:
    """Added lines of one Python file outside any parsed fragment, comments skipped."""
    for region, idx in py.uncovered:
        no, text, _ = region.lines[idx]
        if not is_comment(text):
            yield Uncovered(py.file, region, idx, no, text)


def uncovered(ctx: CheckInput) -> Iterator[Uncovered]:
    """Added Python lines outside any parsed fragment (judged by patterns), comments skipped."""
    for py in ctx.python_files():
        yield from uncovered_of(py)
