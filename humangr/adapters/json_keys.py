"""JSON objects read with every key once: a key given twice is refused, never guessed. A
parser that keeps the other copy would run what was not reviewed. Light on purpose: the
Claude Code hook imports it on every call."""

from __future__ import annotations

import json
from typing import Any

__all__ = ["key_given_twice"]


class _Twice(ValueError):
    """A JSON object names a key twice (the key is the message)."""


def _unique(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise _Twice(key)
        out[key] = value
    return out


def key_given_twice(text: str | bytes) -> str | None:
    """The first key some object of the JSON ``text`` gives twice, else ``None``. Raises
    ``ValueError`` (or ``RecursionError``) when ``text`` is not JSON, as ``json.loads`` does."""
    try:
        json.loads(text, object_pairs_hook=_unique)
    except _Twice as exc:
        return str(exc)
    return None
