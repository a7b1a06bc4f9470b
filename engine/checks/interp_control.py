"""Control flow the taint engine decides from constants: which ``case`` of a ``match`` runs,
whether a loop's body certainly runs, where ``break`` / ``continue`` leave a body, and
``del`` of one entry of a container.

These are pure helpers of ``Interp`` (``interp.py``): they read values, never report.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Sequence

from .flow import NOCONST, Val

__all__ = ["drop_entry", "ends_in_jump", "has_jump", "pattern_matches", "surely_nonempty"]

_MAX_OR = 64
"""Alternatives of one ``case a | b | ...`` pattern compared at most."""


def pattern_matches(
    pattern: ast.pattern, subject: Val, const_of: Callable[[ast.expr], object]
) -> bool | None:
    """Whether ``pattern`` matches a subject whose constant is ``subject.const``: True or
    False when that is certain, None when it depends on what is not known.

    ``const_of`` evaluates a pattern's value expression to its constant (or NOCONST)."""
    if isinstance(pattern, ast.MatchAs) and pattern.pattern is None:
        return True  # ``case _`` and ``case name``: always
    if isinstance(pattern, ast.MatchAs) and pattern.pattern is not None:
        return pattern_matches(pattern.pattern, subject, const_of)
    if subject.const is NOCONST:
        return None
    if isinstance(pattern, ast.MatchValue):
        value = const_of(pattern.value)
        if value is NOCONST:
            return None
        try:
            return bool(value == subject.const)
        except Exception:
            return None
    if isinstance(pattern, ast.MatchSingleton):
        return pattern.value is subject.const
    if isinstance(pattern, ast.MatchOr) and len(pattern.patterns) <= _MAX_OR:
        results = [pattern_matches(p, subject, const_of) for p in pattern.patterns]
        if any(r is True for r in results):
            return True
        if all(r is False for r in results):
            return False
    return None


def surely_nonempty(v: Val, range_args: list[object] | None = None) -> bool:
    """Whether iterating ``v`` certainly yields at least one element: a constant non-empty
    sequence or string, or ``range(...)`` of constant integers (``range_args``) that is not
    empty."""
    if range_args is not None:
        ints = [a for a in range_args if type(a) is int]
        if not ints or len(ints) != len(range_args) or len(ints) > 3:
            return False
        try:
            return len(range(*ints)) > 0
        except (TypeError, ValueError, OverflowError):
            return False
    if v.items is not None and v.seq:
        return len(v.items) > 0
    if isinstance(v.const, str | bytes | tuple | list | dict | set | frozenset):
        return len(v.const) > 0
    return False


def has_jump(body: list[ast.stmt]) -> bool:
    """Whether a loop body may leave an iteration by a ``break`` or ``continue`` whose
    environment the interpreter does not record: one that is not the last statement of the
    body or of an ``if`` branch (those are kept, see ``Interp._branch``). Jumps of nested
    loops and functions belong to them."""
    for i, node in enumerate(body):
        if isinstance(node, ast.Break | ast.Continue):
            if i != len(body) - 1:
                return True
        elif isinstance(node, ast.If):
            if has_jump(node.body) or has_jump(node.orelse):
                return True
        elif isinstance(node, ast.For | ast.AsyncFor | ast.While):
            if _any_jump(node.orelse):
                return True
        elif _any_jump(list(ast.iter_child_nodes(node))):
            return True
    return False


def _any_jump(nodes: Sequence[ast.AST]) -> bool:
    """Whether ``nodes`` hold a ``break`` / ``continue`` of the enclosing loop."""
    stack = list(nodes)
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Break | ast.Continue):
            return True
        if isinstance(node, ast.For | ast.AsyncFor | ast.While):
            stack.extend(node.orelse)
        elif not isinstance(
            node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef | ast.Lambda
        ):
            stack.extend(ast.iter_child_nodes(node))
    return False


def ends_in_jump(body: list[ast.stmt]) -> bool:
    """Whether a block ends with ``break`` or ``continue``: what it holds then leaves the
    iteration there, not through the statements after it."""
    return bool(body) and isinstance(body[-1], ast.Break | ast.Continue)


def drop_entry(v: Val, index: object) -> tuple[tuple[object, Val], ...] | None:
    """The entries of ``v`` without ``index`` (``del v[index]``), or None when that is not
    known exactly (then the value is kept whole: what it held may still be read)."""
    if v.items is None or index is NOCONST:
        return None
    if v.seq:
        if type(index) is not int or not -len(v.items) <= index < len(v.items):
            return None
        pos = index % len(v.items)
        return tuple(enumerate(x for i, (_, x) in enumerate(v.items) if i != pos))
    kept = tuple((k, x) for k, x in v.items if not (k == index and type(k) is type(index)))
    return kept if len(kept) < len(v.items) else None
