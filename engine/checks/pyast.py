"""Small AST helpers shared by the Python checks: names, request input, scopes, iteration."""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from dataclasses import dataclass

from .base import CheckInput
from .diff import FileDiff
from .fragments import Fragment, PyFile, Region
from .pynames import dotted

__all__ = [
    "INPUT",
    "WEB_INPUT",
    "Uncovered",
    "dotted",
    "fragments",
    "is_comment",
    "pattern_lines",
    "scope_walk",
    "uncovered",
    "uncovered_of",
]

WEB_INPUT = re.compile(
    r"\brequest\.(?:args|form|values|files|params|query_params|path_params|GET|POST|json|data"
    r"|get_json|cookies|headers|match_info|query|body|rel_url|arguments|path|full_path|url"
    r"|view_args|FILES|COOKIES|META|get_data|stream)\b"
    r"|\breq\.(?:query|params|body|headers|cookies)\b|\bget_argument\s*\("
)
"""Expressions that read web request data."""
INPUT = re.compile(WEB_INPUT.pattern + r"|(?<![\w.])input\s*\(|\bsys\.argv\b")
"""Untrusted input in general: web request data, stdin, argv."""

_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)


@dataclass(frozen=True, slots=True)
class Uncovered:
    """An added Python line that no fragment could parse."""

    file: FileDiff
    region: Region
    index: int
    line: int
    text: str


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


def pattern_lines(ctx: CheckInput) -> Iterator[tuple[FileDiff, int, str]]:
    """Added Python lines the taint engine did not judge: outside any parsed fragment, or in a
    fragment it could not run (nesting too deep). Comments are skipped."""
    for u in uncovered(ctx):
        yield u.file, u.line, u.text
    failed = ctx.taint().failed
    if not failed:
        return
    for f, frag in fragments(ctx):
        if id(frag) in failed:
            for ln in f.added:
                if ln.number in frag.added and not is_comment(ln.text):
                    yield f, ln.number, ln.text


def uncovered(ctx: CheckInput) -> Iterator[Uncovered]:
    """Added Python lines outside any parsed fragment (judged by patterns), comments skipped."""
    for py in ctx.python_files():
        yield from uncovered_of(py)
