"""Structured replies: the tool's self-contained ``input_schema`` and decoding of replies."""

from __future__ import annotations

import copy
import re
from functools import cache
from typing import Any

import msgspec

from humangr.contracts import Usage, decode
from humangr.engine.errors import ContractError

from .errors import LLMReplyInvalid

__all__ = ["decode_reply", "schema_name", "tool_input_schema", "tool_name_for"]

_TOOL_NAME_BAD = re.compile(r"[^A-Za-z0-9_-]")


def schema_name(schema: type[Any]) -> str:
    return getattr(schema, "__name__", repr(schema))


def tool_name_for(schema: type[Any]) -> str:
    """The name of the forced tool that carries a reply of type ``schema``."""
    return "submit_" + _TOOL_NAME_BAD.sub("_", schema_name(schema))[:56]


def tool_input_schema(schema: type[Any]) -> dict[str, Any]:
    """The msgspec JSON Schema of ``schema`` as a self-contained object schema.

    The Messages API wants ``{"type": "object", ...}`` at the top of ``input_schema``, so the
    top-level ``$ref`` is resolved and every other ``$ref`` inlined. Recursive types keep the
    ``$defs`` they need at the top, where their ``#/$defs/...`` references still resolve.
    """
    return copy.deepcopy(_input_schema(schema))  # type: ignore[arg-type]


@cache
def _input_schema(schema: type[Any]) -> dict[str, Any]:
    full = msgspec.json.schema(schema)
    defs: dict[str, Any] = full.get("$defs", {})
    recursive: set[str] = set()

    def inline(node: Any, stack: frozenset[str]) -> Any:
        if isinstance(node, list):
            return [inline(item, stack) for item in node]
        if not isinstance(node, dict):
            return node
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith("#/$defs/"):
            name = ref.removeprefix("#/$defs/")
            if name in stack:
                recursive.add(name)
                return node
            target = inline(defs[name], stack | {name})
            rest = {k: inline(v, stack) for k, v in node.items() if k not in ("$ref", "$defs")}
            return {**target, **rest}
        return {k: inline(v, stack) for k, v in node.items() if k != "$defs"}

    root = inline(full, frozenset())
    if root.get("type") != "object":
        raise TypeError(
            f"{schema_name(schema)} is not a JSON object type; structured replies need a "
            "msgspec Struct (the tool input must be an object)"
        )
    if recursive:
        root["$defs"] = {name: defs[name] for name in sorted(defs)}
    return root  # type: ignore[no-any-return]


def decode_reply(
    raw: str, schema: type[Any], *, usage: Usage | None = None, model: str | None = None
) -> Any:
    """Decode the raw JSON ``raw`` into ``schema``; failure → ``LLMReplyInvalid`` with ``raw``."""
    try:
        return decode(raw, schema)
    except ContractError as exc:
        problem = f"at {exc.path}: {exc.problem}" if exc.path else exc.problem
        raise LLMReplyInvalid(
            schema_name(schema), [problem], raw=raw, usage=usage, model=model
        ) from None
