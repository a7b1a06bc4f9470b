"""Encoding and decoding of every message; decoders are built once per type."""

from __future__ import annotations

import hashlib
import re
from functools import cache
from typing import Any, TypeVar

import msgspec

from humangr.engine.errors import ContractError

__all__ = ["canonical_json", "decode", "encode", "sha256_hex"]

T = TypeVar("T")

_encoder = msgspec.json.Encoder()
_canonical_encoder = msgspec.json.Encoder(order="sorted")
_PATH = re.compile(r" - at `(\$[^`]*)`$")


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
    """Decode ``data`` as ``type_``; a problem becomes a ``ContractError`` naming the JSON path."""
    name = getattr(type_, "__name__", repr(type_))
    try:
        return _decoder(type_).decode(data)  # type: ignore[no-any-return, arg-type]
    except msgspec.ValidationError as exc:
        text = str(exc)
        match = _PATH.search(text)
        if match:
            raise ContractError(name, match.group(1), text[: match.start()]) from None
        raise ContractError(name, "$", text) from None
    except msgspec.DecodeError as exc:
        raise ContractError(name, "", f"not valid JSON ({exc})") from None
