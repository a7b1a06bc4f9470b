"""The objects of a request's body and parameters, read whatever way they were passed.

An API call's harm is often in its body: ``{"enable": false}`` under an authentication path, a
role id in a role assignment, an address in a forwarding setting. Bodies come as objects, as
JSON text (``"body": "{\\"enable\\": false}"``) or as lists of objects; this module walks them
all, bounded, and hands each object with the keys above it and the names its siblings give it
(``name``, ``title``, ``nodeId``…), which say what a switch in it is about. Pure.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

__all__ = ["Node", "key_values", "key_words", "nodes", "truthy"]

_MAX_NODES = 2_000
_MAX_JSON = 200_000
_LABELS = frozenset(
    {"name", "key", "flag", "flag_key", "id", "title", "setting", "policy", "display_name",
     "node_id", "uid", "policy_name", "full_name", "type", "rule_name", "function_module",
     "sobject", "object", "entity"}
)  # fmt: skip


@dataclass(frozen=True, slots=True)
class Node:
    """One object of the arguments: its keys (as words), the keys above it, and its labels
    and those of the objects above it."""

    items: tuple[tuple[str, Any], ...]
    above: tuple[str, ...]
    labels: tuple[str, ...]

    def get(self, *keys: str) -> Any:
        """The value of the first of ``keys`` this object has, or ``None``."""
        for want in keys:
            for key, value in self.items:
                if key == want:
                    return value
        return None


_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")
_SEPARATORS = re.compile(r"[^a-z0-9]+")


@functools.lru_cache(maxsize=4_096)
def key_words(text: str) -> str:
    """``hardLimitsEnforced`` as ``hard_limits_enforced``; dashes, dots and spaces as ``_``.
    (Kept per text: a body's keys are a few dozen names met again and again.)"""
    return _SEPARATORS.sub("_", _CAMEL.sub("_", text[:200]).lower()).strip("_")


def truthy(value: object) -> bool:
    """``True``, ``1`` or a text saying yes."""
    if value is True or (isinstance(value, int) and not isinstance(value, bool) and value == 1):
        return True
    return isinstance(value, str) and value.strip().lower() in ("true", "1", "yes", "on")


def _parsed(value: object) -> object:
    if isinstance(value, str) and len(value) <= _MAX_JSON:
        text = value.strip()
        if text[:1] in ("{", "[") and text[-1:] in ("}", "]"):
            try:
                return json.loads(text)
            except ValueError:
                return value
    return value


def nodes(arguments: Mapping[str, Any]) -> Iterator[Node]:
    """Every object of ``arguments`` (JSON text in a string argument included), at most 2,000."""
    todo: list[tuple[tuple[str, ...], tuple[str, ...], object]] = [((), (), arguments)]
    seen = 0
    while todo and seen < _MAX_NODES:
        above, inherited, raw = todo.pop()
        value = _parsed(raw)
        if isinstance(value, list):
            todo.extend((above, inherited, v) for v in value[:50])
            continue
        if not isinstance(value, Mapping):
            continue
        seen += 1
        items = tuple((key_words(str(k)), v) for k, v in list(value.items())[:200])
        own = tuple(v[:200] for k, v in items if k in _LABELS and isinstance(v, str))
        labels = (*own, *inherited)[:8]
        yield Node(items, above, labels)
        for key, child in items:
            if isinstance(child, (Mapping, list)) or (
                isinstance(child, str) and child[:1] in ("{", "[")
            ):
                todo.append(((*above, key), labels, child))


def key_values(value: Any, depth: int = 0) -> Iterator[tuple[str, Any]]:
    """Every key and its value in ``value`` (JSON text at the top decoded; a list's items
    with the key ``""``), depth first, at most 64 items an object or list and 6 levels down."""
    if depth == 0:
        value = _parsed(value)
    if depth > 6:
        return
    if isinstance(value, Mapping):
        for k, v in list(value.items())[:64]:
            yield str(k), v
            yield from key_values(v, depth + 1)
    elif isinstance(value, list):
        for v in value[:64]:
            yield "", v
            yield from key_values(v, depth + 1)
