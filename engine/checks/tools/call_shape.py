"""The other readings of a tool call's shape: the same call with its real arguments brought up
from where a hostile agent may have put them.

A call says the same thing when its arguments are spelled as a JSON text
(``{"arguments": "{\\"file_path\\": \\"/etc/sudoers\\", …}"}``), wrapped in an object
(``{"params": {"file_path": …, "content": …}}``), encoded in base64 under a name that says so
(``{"command_b64": "cm0gLXJmIC8="}``), or given a ``kind`` its arguments contradict
(``kind="other"`` with ``file_path`` + ``content``). ``inner_calls`` returns each such
reading as a call of its own, which the registry checks like the call itself (a bounded
depth), so every check reads every form.

Pure and bounded: a few top-level arguments, texts up to ``_MAX_JSON`` characters, gated by a
character test before any parse.
"""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Mapping
from typing import Any

from humangr.contracts import ToolCall, ToolKind

from .view import _by_arguments

__all__ = ["InnerCall", "inner_calls"]

InnerCall = tuple[str, str, ToolCall]
"""(the outer argument it comes from, how it was read, the call read that way)."""

_MAX_JSON = 262_144
_MAX_KEYS = 64
_MAX_INNER = 6
_WRAPPERS = frozenset(
    {
        "params", "parameters", "arguments", "args", "input", "inputs", "kwargs", "payload",
        "options", "request", "tool_input", "call", "body", "data", "spec", "config", "opts",
    }
)  # fmt: skip
"""Argument names that hold the real arguments of a call (``{"params": {…}}``)."""
_ACTING = frozenset({ToolKind.SHELL, ToolKind.FILE_WRITE, ToolKind.FILE_EDIT, ToolKind.FILE_DELETE})
"""Kinds whose arguments, found under another kind, make the call something else."""
_B64_SUFFIXES = ("_base64", "_b64", "base64", "b64")


def _decoded_json(text: str) -> Any:
    """The object or list a JSON text holds, else None (bounded; never raises)."""
    s = text.strip()
    if len(s) < 2 or len(s) > _MAX_JSON or (s[0], s[-1]) not in (("{", "}"), ("[", "]")):
        return None
    try:
        value = json.loads(s)
    except (ValueError, RecursionError):
        return None
    return value if isinstance(value, (dict, list)) else None


def _decoded_base64(text: str) -> str | None:
    """The UTF-8 text a base64 value holds, else None."""
    s = "".join(text.split())
    if not s or len(s) > _MAX_JSON:
        return None
    try:
        raw = base64.b64decode(s + "=" * (-len(s) % 4), validate=False)
        if len(raw) == 0:
            raw = base64.urlsafe_b64decode(s + "=" * (-len(s) % 4))
        return raw.decode("utf-8")
    except (binascii.Error, ValueError, UnicodeDecodeError):
        return None


def _call(call: ToolCall, arguments: Mapping[str, Any], kind: ToolKind | None) -> ToolCall | None:
    if not arguments or not all(isinstance(k, str) for k in arguments):
        return None
    return ToolCall(name=call.name, arguments=dict(arguments), kind=kind, workspace=call.workspace)


def inner_calls(call: ToolCall) -> list[InnerCall]:
    """Every other reading of ``call``'s shape (most calls: none). Never raises."""
    out: list[InnerCall] = []
    arguments = call.arguments
    items = list(arguments.items())[:_MAX_KEYS]
    only = len(arguments) == 1
    for key, value in items:
        low = key.lower()
        if isinstance(value, str) and value[:1] in "{[ \n" and value.strip()[:1] in ("{", "["):
            decoded = _decoded_json(value)
            if decoded is not None:
                if isinstance(decoded, dict) and (only or low in _WRAPPERS):
                    inner = _call(call, decoded, call.kind)
                else:
                    inner = _call(call, {**arguments, key: decoded}, call.kind)
                if inner is not None:
                    out.append((key, "its JSON text decoded", inner))
        elif isinstance(value, str) and low.endswith(_B64_SUFFIXES):
            text = _decoded_base64(value)
            name = key.rstrip("_")
            for suffix in _B64_SUFFIXES:
                if low.endswith(suffix):
                    name = key[: -len(suffix)].rstrip("_-") or "input"
                    break
            if text is not None:
                rest = {k: v for k, v in arguments.items() if k != key}
                inner = _call(call, {**rest, name: text}, call.kind)
                if inner is not None:
                    out.append((key, "its base64 decoded", inner))
        elif isinstance(value, dict) and value and (only or low in _WRAPPERS):
            inner = _call(call, value, call.kind)
            if inner is not None:
                out.append((key, "the object it wraps read as the call's arguments", inner))
        if len(out) >= _MAX_INNER:
            return out
    if call.kind is not None and ToolKind(call.kind) not in _ACTING:
        found = _by_arguments(arguments)
        if found is not None and found[0] in _ACTING:
            inner = _call(call, arguments, None)
            if inner is not None:
                arg = found[1].split("`", 1)[0]
                out.append((arg, f"as its arguments say ({found[0].value})", inner))
    return out
