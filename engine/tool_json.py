"""A JSON value as indented text, cut to a budget of characters: how a tool call's nested
arguments are shown. Iterative (no recursion on the value, whatever its depth) and bounded."""

from __future__ import annotations

import json
from typing import Any

__all__ = ["pretty_json"]


def pretty_json(value: Any, limit: int) -> tuple[str, bool]:
    """``value`` as JSON indented by two spaces, at most ``limit`` characters, and whether it
    was cut. Iterative: no recursion on the value, whatever its depth."""
    out: list[str] = []
    used = 0
    stack: list[str | tuple[Any, int]] = [(value, 0)]
    while stack:
        item = stack.pop()
        if isinstance(item, tuple):
            node, depth = item
            if isinstance(node, dict) and node:
                pad, keys = "  " * (depth + 1), list(node)
                todo: list[str | tuple[Any, int]] = ["{\n"]
                for n, key in enumerate(keys):
                    todo += [f"{pad}{_quote(str(key), limit)}: ", (node[key], depth + 1)]
                    todo.append(",\n" if n < len(keys) - 1 else "\n")
                todo.append("  " * depth + "}")
                stack.extend(reversed(todo))
                continue
            if isinstance(node, list) and node:
                pad = "  " * (depth + 1)
                todo = ["[\n"]
                for n, child in enumerate(node):
                    todo += [pad, (child, depth + 1), ",\n" if n < len(node) - 1 else "\n"]
                todo.append("  " * depth + "]")
                stack.extend(reversed(todo))
                continue
            item = _scalar(node, limit - used + 1)
        if used + len(item) > limit:
            out.append(item[: limit - used])
            return "".join(out), True
        out.append(item)
        used += len(item)
    return "".join(out), False


def _quote(text: str, limit: int) -> str:
    cut = text[: limit + 1]
    return json.dumps(cut, ensure_ascii=False)[: limit + 2]


def _scalar(value: Any, limit: int) -> str:
    if isinstance(value, str):
        return _quote(value, limit)
    if isinstance(value, dict):
        return "{}"
    if isinstance(value, list):
        return "[]"
    if value is None or isinstance(value, bool | int | float):
        return json.dumps(value)
    return _quote(str(value)[: limit + 1], limit)
