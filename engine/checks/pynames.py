"""Names in Python's AST, with no other dependency: what the taint engine and the checks share
below everything else."""

from __future__ import annotations

import ast

__all__ = ["dotted"]


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
