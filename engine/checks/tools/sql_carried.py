"""Strings a text argument carries inside it: a body given as JSON text
(``'{"type": "run_sql", "args": {"sql": "DROP …"}}'``) or as base64 of one. A statement
inside is sent as surely as one in an object argument, so it is read as SQL the same way."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

from .shell_decode import b64_text

__all__ = ["carried_strings"]

_MAX_TEXT = 262_144
_MAX_NODES = 2_000
_MAX_DEPTH = 16
_BASE64 = re.compile(r"[A-Za-z0-9+/_-]{24,}={0,2}")


def _walk(value: Any, path: str, depth: int, budget: list[int]) -> Iterator[tuple[str, str]]:
    budget[0] -= 1
    if budget[0] < 0 or depth > _MAX_DEPTH:
        return
    if isinstance(value, str):
        yield path, value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from _walk(item, f"{path}.{key}"[:200], depth + 1, budget)
    elif isinstance(value, list):
        for i, item in enumerate(value):
            yield from _walk(item, f"{path}[{i}]"[:200], depth + 1, budget)


def _json(text: str) -> Any:
    stripped = text.strip()
    if stripped[:1] not in ("{", "[") or len(stripped) > _MAX_TEXT:
        return None
    try:
        return json.loads(stripped)
    except ValueError:
        return None


def carried_strings(text: str) -> Iterator[tuple[str, str]]:
    """``(path suffix, string)`` of each string inside ``text`` when it is JSON text, or
    base64 of JSON text; nothing otherwise."""
    head = text.lstrip()[:1]
    if head not in ("{", "[") and not (len(text) <= _MAX_TEXT and _BASE64.fullmatch(text.strip())):
        return
    value = _json(text)
    if value is None and head not in ("{", "["):
        plain = b64_text(text.strip())
        value = _json(plain) if plain is not None else None
    if value is not None and not isinstance(value, str):
        yield from _walk(value, "", 0, [_MAX_NODES])
