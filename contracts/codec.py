"""Encoding and decoding of every message; decoders are built once per type."""

from __future__ import annotations

import hashlib
import re
from functools import cache
from typing import Any, TypeVar

import msgspec

from .errors import ContractError

__all__ = ["canonical_json", "contract_error", "convert", "decode", "encode", "sha256_hex"]

T = TypeVar("T")

_encoder = msgspec.json.Encoder()
_canonical_encoder = msgspec.json.Encoder(order="sorted")
_PATH = re.compile(r" - at `(?:key` in `)?(\$[^`]*)`$")


def contract_error(name: str, exc: msgspec.ValidationError) -> ContractError:
    """``exc`` as a ``ContractError`` on ``name``, with the JSON path msgspec names (``$`` when
    it names none): the one place its message is read."""
    text = str(exc)
    match = _PATH.search(text)
    if match:
        return ContractError(name, match.group(1), text[: match.start()])
    return ContractError(name, "$", text)


def convert(value: Any, type_: type[T]) -> T:
    """``value`` (plain Python: dicts, lists, strings…) as ``type_``, checked as ``decode``
    checks JSON; a problem is a ``ContractError`` naming the JSON path."""
    try:
        return msgspec.convert(value, type_)
    except msgspec.ValidationError as exc:
        raise contract_error(getattr(type_, "__name__", repr(type_)), exc) from None


def encode(message: Any) -> bytes:
    """The JSON bytes of a message."""
    return _encoder.encode(message)


def canonical_json(value: Any) -> bytes:
    """JSON with sorted keys: equal values give equal bytes."""
    return _canonical_encoder.encode(value)


def sha256_hex(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


@cache
def _decoder(type_: type[Any]) -> msgspec.json.Decoder[Any]:
    return msgspec.json.Decoder(type_)


def decode(data: bytes | str, type_: type[T]) -> T:
    """Decode ``data`` as ``type_``. Every problem (bad JSON, bad UTF-8, too deep, a wrong or
    unknown field, a failing check) becomes a ``ContractError``, naming the JSON path when it
    is known; nothing else escapes."""
    name = getattr(type_, "__name__", repr(type_))
    try:
        return _decoder(type_).decode(data)  # type: ignore[no-any-return, arg-type]
    except msgspec.ValidationError as exc:
        raise contract_error(name, exc) from None
    except msgspec.DecodeError as exc:
        # msgspec 0.23 and later check UTF-8 while they parse, and name no path
        if "UTF-8" in str(exc) and _is_bad_utf8(data):
            raise ContractError(name, _bad_text_path(data), _bad_text(data)) from None
        raise ContractError(name, "", f"not valid JSON ({exc})") from None
    except UnicodeError:
        raise ContractError(name, _bad_text_path(data), _bad_text(data)) from None
    except RecursionError:
        raise ContractError(name, "", "JSON nested too deeply") from None
    except Exception as exc:  # a check of the contract failed in an unexpected way
        raise ContractError(name, "", f"cannot be decoded ({type(exc).__name__})") from None


def _is_bad_utf8(data: bytes | str) -> bool:
    if isinstance(data, str):
        return False
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return True
    return False


def _bad_text(data: bytes | str) -> str:
    if isinstance(data, str):
        return "text that is not valid Unicode (a lone surrogate)"
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as exc:
        return f"not valid UTF-8 (byte {exc.start})"
    return "not valid UTF-8"


def _bad_text_path(data: bytes | str) -> str:
    """The JSON path of the first string holding bad UTF-8, if the rest of the JSON parses."""
    if isinstance(data, str):
        data = data.encode("utf-8", "surrogatepass")
    try:
        value = msgspec.json.decode(data.decode("utf-8", "replace"))
    except Exception:  # too deep or not JSON either: the path is not known
        return ""
    todo: list[tuple[str, Any]] = [("$", value)]
    while todo:
        path, item = todo.pop()
        if isinstance(item, str) and "\ufffd" in item:
            return path
        if isinstance(item, dict):
            for key, child in reversed(list(item.items())):
                child_path = f"{path}.{key}"
                if "\ufffd" in key:
                    return child_path
                todo.append((child_path, child))
        elif isinstance(item, list):
            todo.extend((f"{path}[{i}]", child) for i, child in reversed(list(enumerate(item))))
    return ""
