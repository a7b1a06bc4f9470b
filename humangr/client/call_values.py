"""The values of a guarded call: each argument turned into plain JSON (refusing what has no
faithful JSON form), and the value the function then runs with, never one the review did not
see: the original when it is immutable, else a copy built from the reviewed JSON."""

from __future__ import annotations

import dataclasses
import datetime as dt
import decimal
import enum
import inspect
import math
import pathlib
import uuid
from collections.abc import Callable, Mapping
from typing import Any

import msgspec

from humangr.contracts import canonical_json
from humangr.contracts.review import MAX_TOOL_DEPTH
from humangr.engine.errors import ContractError

__all__ = ["ArgumentError", "Encoder", "Encoding", "run_value"]

Encoder = Callable[[Any], Any]
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


def _type_name(value: Any) -> str:
    try:
        name = type.__getattribute__(type(value), "__name__")
    except Exception:  # a hostile metaclass: the name is not needed to refuse
        name = "object"
    return str(name)[:64] if isinstance(name, str) else "object"


class Encoding:
    """Turns one argument into plain JSON values, refusing what has no faithful JSON form."""

    def __init__(self, tool: str, argument: str, encoders: Mapping[type, Encoder]) -> None:
        self.tool = tool
        self.argument = argument
        self.encoders = encoders

    def fail(self, where: str, problem: str) -> ArgumentError:
        """The error naming this argument (and ``where`` inside it) and what is wrong."""
        return ArgumentError(self.tool, self.argument + where, problem)

    def encoder(self, value: Any) -> Encoder | None:
        """The encoder registered for ``value``'s type or its nearest base, if any."""
        for klass in type(value).__mro__:
            found = self.encoders.get(klass)
            if found is not None:
                return found
        return None

    def json(self, value: Any, where: str = "", depth: int = 1) -> Any:
        """``value`` as plain JSON values; raises ``ArgumentError`` for what has no faithful
        JSON form."""
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
        """``value`` if it is valid UTF-8 (no lone surrogates), else ``ArgumentError``."""
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


def run_value(
    encoding: Encoding,
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
