"""JSON objects read with every key once: a key given twice is refused, never guessed. A
parser that keeps the other copy would run what was not reviewed. Light on purpose: the
Claude Code hook imports it on every call."""

from __future__ import annotations

from typing import Any

__all__ = ["unique_keys"]


class _DuplicateKey(ValueError):
    """A JSON object names a key twice (the key is the message)."""


def unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """A ``json.loads`` ``object_pairs_hook`` that refuses a key given twice in one object."""
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise _DuplicateKey(key)
        out[key] = value
    return out
