"""A guarded function call as the tool call that is reviewed, and the values it runs with.

The call's bound arguments become a ``ToolCall`` whose ``arguments`` are their JSON form —
built value by value, never with ``repr`` or ``str`` of the caller's objects, so a hostile
``__repr__`` decides nothing. The function then runs with the reviewed values: the originals
when they are immutable, else copies built from the reviewed JSON, so nothing can change
between the review and the call. Nothing is cut silently: a value with no JSON form, nested
too deeply, carrying text that is not valid UTF-8, or past the size limit is refused with an
``ArgumentError`` naming the argument (or, when the caller opts in, cut and marked "not fully
reviewed", which a human must then approve).
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

import anyio

from humangr.contracts import ActionContext, ToolCall, ToolKind, canonical_json
from humangr.engine.checks.tools.edits import edit_path, edited_diff

from .call_values import ArgumentError, Encoder, Encoding, run_value

__all__ = [
    "ArgumentError",
    "Oversize",
    "PreparedCall",
    "call_name",
    "edited_file_diff",
    "prepare_call",
    "tool_action",
]

Oversize = Literal["refuse", "review"]
_SKIPPED = ("self", "cls")


@dataclass(frozen=True, slots=True)
class PreparedCall:
    """The tool call to review and the arguments to call the function with once approved."""

    tool_call: ToolCall
    args: tuple[Any, ...]
    kwargs: dict[str, Any]


def _read_signature(func: Callable[..., Any]) -> inspect.Signature:
    try:
        return inspect.signature(func, eval_str=True)
    except Exception:  # annotations naming what is not importable here: rebuild by value type
        return inspect.signature(func)


_NAMED = (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)
_Named = tuple[tuple[str, Any, bool], ...]
"""The parameters of a signature of named ones only: name, default, whether keyword-only."""


def _named(signature: inspect.Signature) -> _Named | None:
    params = signature.parameters.values()
    if any(p.kind not in _NAMED for p in params):
        return None
    return tuple((p.name, p.default, p.kind is inspect.Parameter.KEYWORD_ONLY) for p in params)


@functools.lru_cache(maxsize=1024)
def _cached_binder(func: Callable[..., Any]) -> tuple[inspect.Signature, _Named | None]:
    signature = _read_signature(func)
    return signature, _named(signature)


def _bind(
    func: Callable[..., Any], args: tuple[Any, ...], kwargs: Mapping[str, Any]
) -> inspect.BoundArguments:
    """``signature.bind(*args, **kwargs)`` with the defaults applied. A call of a function of
    named parameters only that binds cleanly is bound here; any other (``*args``,
    ``**kwargs``, positional-only parameters, a wrong call) by ``inspect``, whose TypeError
    for a wrong call is raised as the call itself would raise it."""
    try:
        signature, named = _cached_binder(func)
    except TypeError:  # a callable that cannot be hashed
        signature, named = _read_signature(func), None
    if named is not None and len(args) <= len(named):
        given = dict(zip((name for name, _, _ in named), args, strict=False))
        if not any(only for _, _, only in named[: len(args)]) and not given.keys() & kwargs:
            given.update(kwargs)
            arguments: dict[str, Any] = {}
            for name, default, _ in named:
                value = given.pop(name, default)
                if value is inspect.Parameter.empty:
                    break  # a missing argument: inspect says which
                arguments[name] = value
            else:
                if not given:  # no unknown keyword left
                    return inspect.BoundArguments(signature, arguments)
    bound = signature.bind(*args, **kwargs)  # a wrong call raises TypeError, as it would
    bound.apply_defaults()
    return bound


def _pairs(
    func: Callable[..., Any], args: tuple[Any, ...], kwargs: Mapping[str, Any]
) -> tuple[inspect.BoundArguments, list[tuple[str, str, Any, Any]]]:
    """The bound call and its reviewed arguments: (argument name, parameter, value,
    annotation); ``self``/``cls`` of methods are left out."""
    bound = _bind(func, args, kwargs)
    signature = bound.signature
    params = list(signature.parameters.values())
    skip = params[0].name if params and params[0].name in _SKIPPED else None
    pairs: list[tuple[str, str, Any, Any]] = []
    for key, value in bound.arguments.items():
        param = signature.parameters[key]
        if key == skip and param.kind is not inspect.Parameter.VAR_POSITIONAL:
            continue
        if param.kind is inspect.Parameter.VAR_KEYWORD:
            pairs.extend((k, key, v, inspect.Parameter.empty) for k, v in value.items())
        else:
            annotation = param.annotation
            if param.kind is inspect.Parameter.VAR_POSITIONAL:
                annotation = inspect.Parameter.empty
            pairs.append((key, key, value, annotation))
    return bound, pairs


def _fit(
    tool: str, arguments: dict[str, Any], max_bytes: int, oversize: Oversize
) -> tuple[dict[str, Any], list[str]]:
    """The arguments within ``max_bytes`` of JSON: refused past it, or (opted in) the largest
    string arguments cut and named as not fully reviewed."""
    size = len(canonical_json(arguments))
    if size <= max_bytes:
        return arguments, []
    sizes = sorted(((len(canonical_json(v)), k) for k, v in arguments.items()), reverse=True)
    largest = sizes[0][1]
    if oversize == "refuse":
        raise ArgumentError(
            tool,
            largest,
            f"the arguments are {size:,} bytes as JSON, past the review limit of {max_bytes:,}: "
            "pass large content by reference, split the call, or opt in to a partial review "
            "(guard(oversize='review'), which always needs a human)",
        )
    fitted = dict(arguments)
    cut: list[str] = []
    for _length, key in sizes:
        if size <= max_bytes:
            break
        value = fitted[key]
        text = value if isinstance(value, str) else canonical_json(value).decode("utf-8")
        keep = max(0, len(text) - (size - max_bytes) - 64)
        fitted[key] = text[:keep] + f" …[HUMANGR: {len(text) - keep:,} characters not reviewed]"
        cut.append(key)
        size = len(canonical_json(fitted))
    if size > max_bytes:
        raise ArgumentError(tool, largest, f"the arguments cannot be cut to {max_bytes:,} bytes")
    return fitted, cut


def prepare_call(
    func: Callable[..., Any],
    args: tuple[Any, ...],
    kwargs: Mapping[str, Any],
    *,
    tool: str,
    kind: ToolKind | None = None,
    workspace: str | None = None,
    encoders: Mapping[type, Encoder] | None = None,
    decoders: Mapping[type, Encoder] | None = None,
    max_bytes: int,
    oversize: Oversize = "refuse",
) -> PreparedCall:
    """The ``ToolCall`` that reviews ``func(*args, **kwargs)`` and the values to run it with.
    Raises ``ArgumentError`` (naming the argument) for what cannot be reviewed faithfully."""
    bound, pairs = _pairs(func, args, kwargs)
    encoders = encoders or {}
    decoders = decoders or {}
    reviewed: dict[str, Any] = {}
    encodings: dict[str, Encoding] = {}
    for name, _param, value, _annotation in pairs:
        encodings[name] = Encoding(tool, name, encoders)
        reviewed[name] = encodings[name].json(value)
    fitted, cut = _fit(tool, reviewed, max_bytes, oversize)
    call = ToolCall(name=tool, arguments=fitted, kind=kind, workspace=workspace, truncated=cut)
    run: dict[str, Any] = {}
    for name, _param, value, annotation in pairs:
        run[name] = run_value(encodings[name], value, reviewed[name], annotation, decoders)
    for _name, param, _value, _annotation in pairs:
        if param in bound.arguments and bound.signature.parameters[param].kind not in (
            inspect.Parameter.VAR_KEYWORD,
        ):
            bound.arguments[param] = run[param]
    var_kw = [
        p for p in bound.signature.parameters.values() if p.kind is inspect.Parameter.VAR_KEYWORD
    ]
    if var_kw:
        bound.arguments[var_kw[0].name] = {
            k: run[k] for k in bound.arguments.get(var_kw[0].name, {})
        }
    return PreparedCall(tool_call=call, args=bound.args, kwargs=bound.kwargs)


def call_name(func: Callable[..., Any]) -> str:
    """``module.qualname`` of ``func``, the name a review shows."""
    module = str(getattr(func, "__module__", None) or "")
    qualname = str(getattr(func, "__qualname__", None) or getattr(func, "__name__", "call"))
    return f"{module}.{qualname}" if module and module != "__main__" else qualname


def tool_action(
    prepared: PreparedCall,
    *,
    agent_id: str,
    action_type: str,
    call: str,
    code_diff: str | None = None,
) -> ActionContext:
    """The action that reviews a prepared call of the function ``call`` for ``agent_id``;
    ``code_diff``: an edit call applied to the file it edits (``edited_file_diff``)."""
    tool = prepared.tool_call
    kind = f" ({tool.kind.value})" if tool.kind is not None else ""
    return ActionContext(
        agent_id=agent_id,
        action_type=action_type,
        action_description=f"Agent {agent_id} calls the tool {tool.name}{kind} ({call[:300]}).",
        code_diff=code_diff,
        tool_call=tool,
    )


async def edited_file_diff(call: ToolCall, *, max_bytes: int) -> str | None:
    """For an edit call whose file can be read here (relative paths from the workspace, else
    the current folder): the diff of the edit applied to it, so the checks read the edit in
    its context. ``None`` when the file cannot be read or the edit does not apply."""
    path = edit_path(call)
    if path is None:
        return None
    target = anyio.Path(call.workspace or ".") / path
    try:
        data = await target.read_bytes() if await target.is_file() else None
    except OSError:
        return None
    if data is None or len(data) > max_bytes:
        return None
    try:
        before = data.decode("utf-8")
    except UnicodeDecodeError:
        return None
    diff = edited_diff(call, before)
    if diff is None or len(diff.encode("utf-8")) > max_bytes:
        return None
    return diff
