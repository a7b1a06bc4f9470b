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

import dataclasses
import datetime as dt
import decimal
import enum
import functools
import inspect
import math
import pathlib
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

import anyio
import msgspec

from humangr.contracts import ActionContext, ToolCall, ToolKind, canonical_json
from humangr.contracts.review import MAX_TOOL_DEPTH
from humangr.engine.checks.tools.edits import edit_path, edited_diff
from humangr.engine.errors import ContractError

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
Encoder = Callable[[Any], Any]
_SKIPPED = ("self", "cls")
_MAX_INT = 2**63
_IMMUTABLE_LEAVES = frozenset(
    {
        type(None),
        bool,
        int,
        float,
        str,
        bytes,
        decimal.Decimal,
        uuid.UUID,
        dt.date,
        dt.datetime,
        dt.time,
        dt.timedelta,
        pathlib.PurePosixPath,
        pathlib.PureWindowsPath,
        pathlib.PosixPath,
        pathlib.WindowsPath,
    }
)
"""Types whose values cannot change: passed to the function as they are. Exact types only — a
subclass may override what the function calls."""
_PATHS = (pathlib.PurePosixPath, pathlib.PureWindowsPath)


class ArgumentError(ContractError):
    """An argument of a guarded call cannot be reviewed as it is; the call did not run."""

    def __init__(self, tool: str, argument: str, problem: str) -> None:
        super().__init__("ToolCall", f"argument `{argument}` of {tool}", problem)
        self.tool = tool
        self.argument = argument


@dataclass(frozen=True, slots=True)
class PreparedCall:
    """The tool call to review and the arguments to call the function with once approved."""

    tool_call: ToolCall
    args: tuple[Any, ...]
    kwargs: dict[str, Any]


def _type_name(value: Any) -> str:
    try:
        name = type.__getattribute__(type(value), "__name__")
    except Exception:  # a hostile metaclass: the name is not needed to refuse
        name = "object"
    return str(name)[:64] if isinstance(name, str) else "object"


class _Encoding:
    """Turns one argument into plain JSON values, refusing what has no faithful JSON form."""

    def __init__(self, tool: str, argument: str, encoders: Mapping[type, Encoder]) -> None:
        self.tool = tool
        self.argument = argument
        self.encoders = encoders

    def fail(self, where: str, problem: str) -> ArgumentError:
        return ArgumentError(self.tool, self.argument + where, problem)

    def encoder(self, value: Any) -> Encoder | None:
        for klass in type(value).__mro__:
            found = self.encoders.get(klass)
            if found is not None:
                return found
        return None

    def json(self, value: Any, where: str = "", depth: int = 1) -> Any:
        if depth > MAX_TOOL_DEPTH:
            raise self.fail(where, f"nests deeper than {MAX_TOOL_DEPTH} levels")
        if value is None or isinstance(value, bool):
            return value
        if isinstance(value, enum.Enum):
            return self.json(value.value, where, depth)
        if isinstance(value, int):
            if not -_MAX_INT <= value < _MAX_INT:
                raise self.fail(where, "an integer too large for JSON (pass it as a string)")
            return int(value)
        if isinstance(value, float):
            if not math.isfinite(value):
                raise self.fail(where, f"{value} has no JSON form (pass it as a string)")
            return float(value)
        if isinstance(value, str):
            return self.text(str.__str__(value), where)
        if type(value) in _IMMUTABLE_LEAVES and isinstance(value, _PATHS):
            return self.text(str(value), where)
        if isinstance(value, bytes | bytearray | memoryview):
            try:
                return bytes(value).decode("utf-8")
            except UnicodeDecodeError as exc:
                raise self.fail(
                    where, f"bytes that are not valid UTF-8 (byte {exc.start})"
                ) from None
        if isinstance(value, dict):
            out: dict[str, Any] = {}
            for key, child in value.items():
                if not isinstance(key, str):
                    raise self.fail(where, f"a key of type {_type_name(key)}: keys must be strings")
                name = self.text(str.__str__(key), where)
                out[name] = self.json(child, f"{where}.{name}"[:256], depth + 1)
            return out
        if isinstance(value, list | tuple):
            return [self.json(c, f"{where}[{i}]", depth + 1) for i, c in enumerate(value)]
        if isinstance(value, set | frozenset):
            items = [self.json(c, f"{where}[]", depth + 1) for c in value]
            return sorted(items, key=canonical_json)
        encoder = self.encoder(value)
        if encoder is not None:
            return self.json(encoder(value), where, depth + 1)
        if dataclasses.is_dataclass(value) or isinstance(
            value, msgspec.Struct | dt.date | dt.time | uuid.UUID | decimal.Decimal
        ):
            try:
                plain = msgspec.to_builtins(value, builtin_types=(bytes, bytearray, memoryview))
            except (TypeError, ValueError, msgspec.EncodeError) as exc:
                raise self.fail(where, f"a {_type_name(value)} with no JSON form ({exc})") from None
            return self.json(plain, where, depth + 1)
        raise self.fail(
            where,
            f"a {_type_name(value)} has no JSON form: pass JSON values (str, numbers, lists, "
            f"dicts, dataclasses) or register an encoder: guard(encoders={{{_type_name(value)}: "
            "to_json})",
        )

    def text(self, value: str, where: str) -> str:
        try:
            value.encode("utf-8")
        except UnicodeEncodeError as exc:
            raise self.fail(
                where, f"text that is not valid UTF-8 (a lone surrogate at {exc.start})"
            ) from None
        return value


def _immutable(value: Any, depth: int = 0) -> bool:
    if depth > MAX_TOOL_DEPTH:
        return False
    kind = type(value)
    if kind in _IMMUTABLE_LEAVES:
        return True
    if isinstance(value, enum.Enum):
        return _immutable(value.value, depth + 1)
    if kind is tuple or kind is frozenset:
        return all(_immutable(v, depth + 1) for v in value)
    return False


def _plain(value: Any, depth: int = 0) -> bool:
    """Only JSON types (lists, dicts with string keys, str, numbers, None): the reviewed JSON
    decodes to an equal value of the same types."""
    if depth > MAX_TOOL_DEPTH:
        return False
    if value is None or type(value) in (bool, int, float, str):
        return True
    if type(value) is list:
        return all(_plain(v, depth + 1) for v in value)
    if type(value) is dict:
        return all(type(k) is str and _plain(v, depth + 1) for k, v in value.items())
    return False


def _run_value(
    encoding: _Encoding,
    original: Any,
    reviewed: Any,
    annotation: Any,
    decoders: Mapping[type, Encoder],
) -> Any:
    """What the function receives for one argument: never something the review did not see."""
    if _immutable(original):
        return original
    if _plain(original):
        return msgspec.json.decode(msgspec.json.encode(reviewed))
    if isinstance(original, str | int | float) and not isinstance(original, enum.Enum):
        return reviewed  # a subclass of a builtin: the builtin value that was reviewed
    if isinstance(original, bytes):
        return reviewed.encode("utf-8")
    if isinstance(original, bytearray):
        return bytearray(reviewed.encode("utf-8"))
    for klass in type(original).__mro__:
        if klass in decoders:
            return decoders[klass](msgspec.json.decode(msgspec.json.encode(reviewed)))
    if encoding.encoder(original) is not None:
        return original  # a registered encoder without a decoder: the type is declared immutable
    usable = annotation is not inspect.Parameter.empty and not isinstance(annotation, str)
    container = isinstance(original, list | tuple | dict | set | frozenset)
    target = annotation if usable and container else type(original)
    try:
        return msgspec.convert(reviewed, target, strict=False)
    except (TypeError, ValueError, msgspec.ValidationError) as exc:
        raise encoding.fail(
            "",
            f"a {_type_name(original)} cannot be rebuilt from its reviewed JSON ({exc}): annotate "
            "the parameter with its type, pass JSON values, or register a decoder",
        ) from None


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
    encodings: dict[str, _Encoding] = {}
    for name, _param, value, _annotation in pairs:
        encodings[name] = _Encoding(tool, name, encoders)
        reviewed[name] = encodings[name].json(value)
    fitted, cut = _fit(tool, reviewed, max_bytes, oversize)
    call = ToolCall(name=tool, arguments=fitted, kind=kind, workspace=workspace, truncated=cut)
    run: dict[str, Any] = {}
    for name, _param, value, annotation in pairs:
        run[name] = _run_value(encodings[name], value, reviewed[name], annotation, decoders)
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
