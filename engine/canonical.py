"""The canonical encoding that signatures and task digests cover.

It is JSON with sorted keys, fields at their default value left out (so a field added later
with a default does not change what older signatures cover), times as their UTC instant and
integral floats as integers (a report built in process and the same report decoded from the
wire encode alike). Each signed text starts with its own tag, so a signature of one kind is
never valid as another.

The underscored helpers here are the engine's signing modules' own (``signed_reports``).
"""

from __future__ import annotations

import base64
import enum
import functools
import hashlib
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any, TypeVar

import msgspec

__all__ = ["canonical_bytes", "shared"]

_EXACT = 2.0**53
"""Integral floats below this are encoded as integers (an int and its float encode alike)."""


@functools.lru_cache(maxsize=64)
def _instant(value: datetime) -> str:
    """``value`` as the UTC instant signed (a report's time is written twice per signature)."""
    moment = value if value.tzinfo is not None else value.replace(tzinfo=UTC)
    moment = moment.astimezone(UTC)
    if moment.year < 1000:  # strftime writes such a year unpadded: those bytes are signed
        return moment.strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    return moment.replace(tzinfo=None).isoformat(timespec="microseconds") + "Z"


def _default(field: msgspec.structs.FieldInfo) -> Any:
    if field.default is not msgspec.NODEFAULT:
        return field.default
    if field.default_factory is not msgspec.NODEFAULT:
        return field.default_factory()
    return msgspec.NODEFAULT


@functools.cache
def _layout(kind: type[msgspec.Struct]) -> tuple[tuple[str, str, Any], ...]:
    """Each field of a Struct type: its name, its encoded name and its default (read once per
    type: ``msgspec.structs.fields`` evaluates the annotations on every call). A default
    made by a factory is made once here and only compared against, never handed out."""
    return tuple(
        (field.name, field.encode_name, _default(field)) for field in msgspec.structs.fields(kind)
    )


_Field = tuple[str, str, Any, bool]
"""A field as ``_fields`` walks it: name, encoded name, default, whether it has a default."""
_EMPTY: frozenset[str] = frozenset()
_MAX_KINDS = 1_024
"""Types whose handling ``_plain`` keeps (a process meets a few dozen; more are not kept)."""
_structs: dict[type, tuple[_Field, ...]] = {}
"""The fields of each Struct type met, in ``msgspec.structs.astuple`` order."""
_kinds: dict[type, Callable[[Any], Any]] = {}
"""How ``_plain`` renders a value of each other (non-leaf) type met."""


_SHARED: dict[int, tuple[msgspec.Struct, Any, str]] = {}
"""Shared frozen values by identity: the value (kept alive, so its id is not reused), its
canonical form and that form's part digest (``shared``)."""
_MAX_SHARED = 256


_S = TypeVar("_S", bound=msgspec.Struct)


def shared(value: _S) -> _S:
    """``value``, a frozen Struct that many reports hold as the very same object (a layer's
    "nothing found"), with its canonical form and digest worked out once for all of them.
    Only for values never changed in place: their form is not computed again."""
    if len(_SHARED) < _MAX_SHARED and id(value) not in _SHARED:
        plain = _plain(value)
        _SHARED[id(value)] = (value, plain, _hash(plain))
    return value


def _plain(value: Any, skip: frozenset[str] = _EMPTY) -> Any:
    """``value`` as plain JSON values, canonically (see the module docstring).

    This runs for every node of every signature and task digest, so each type's handling is
    looked up once (``_structs``, ``_kinds``) rather than found by a chain of ``isinstance``
    checks on every node (tests/signing/test_canonical_fast.py holds that chain, as first
    written, and the digests it gave: the values must stay the same)."""
    kind = type(value)
    if kind is str or kind is int or kind is bool or value is None:
        return value  # the common leaves first
    layout = _structs.get(kind)
    if layout is not None:
        known = _SHARED.get(id(value)) if not skip else None
        if known is not None and known[0] is value:
            return known[1]
        return _fields(value, layout, skip)
    how = _kinds.get(kind)
    if how is not None:
        return how(value)
    if isinstance(value, msgspec.Struct):
        return _fields(value, _struct_fields(kind), skip)
    return _kind(kind)(value)


def _fields(value: msgspec.Struct, layout: tuple[_Field, ...], skip: frozenset[str]) -> Any:
    """A Struct's fields (but ``skip`` and those at their default), by encoded name."""
    out: dict[str, Any] = {}
    for (name, encoded, default, has_default), item in zip(
        layout, msgspec.structs.astuple(value), strict=True
    ):
        if has_default:
            if item is default:
                continue
            try:
                if item == default:
                    continue
            except TypeError:  # as ``_same``: what cannot be compared is not the default
                pass
        if skip and name in skip:
            continue
        leaf = type(item)
        if leaf is str or leaf is int or leaf is bool or item is None:
            out[encoded] = item
        else:
            out[encoded] = _plain(item)
    return out


def _struct_fields(kind: type[msgspec.Struct]) -> tuple[_Field, ...]:
    layout = tuple(
        (name, encoded, default, default is not msgspec.NODEFAULT)
        for name, encoded, default in _layout(kind)
    )
    if len(_structs) < _MAX_KINDS:
        _structs[kind] = layout
    return layout


def _kind(kind: type) -> Callable[[Any], Any]:
    """How to render a value of ``kind`` (not a Struct, nor an exact str, int or bool)."""
    how: Callable[[Any], Any]
    if issubclass(kind, enum.Enum):
        how = _enum_value
    elif issubclass(kind, datetime):
        how = _instant
    elif issubclass(kind, str | int):  # bool is an int
        how = _itself
    elif issubclass(kind, float):
        how = _number
    elif issubclass(kind, dict):
        how = _mapping
    elif issubclass(kind, list | tuple):
        how = _items
    elif issubclass(kind, bytes):
        how = _base64
    else:
        raise TypeError(f"cannot sign a value of type {kind.__name__}")
    if len(_kinds) < _MAX_KINDS:
        _kinds[kind] = how
    return how


def _enum_value(value: enum.Enum) -> Any:
    inner = value._value_
    leaf = type(inner)
    return inner if leaf is str or leaf is int or leaf is bool else _plain(inner)


def _itself(value: Any) -> Any:
    return value


def _number(value: float) -> int | float:
    return int(value) if value.is_integer() and abs(value) < _EXACT else value


def _mapping(value: dict[Any, Any]) -> dict[str, Any]:
    return {str(_plain(key)): _plain(item) for key, item in value.items()}


def _items(value: list[Any] | tuple[Any, ...]) -> list[Any]:
    return [_plain(item) for item in value]


def _base64(value: bytes) -> str:
    return base64.b64encode(value).decode()


def _same(value: Any, default: Any) -> bool:
    try:
        return bool(value == default)
    except TypeError:
        return False


def canonical_bytes(tag: str, value: Any, skip: frozenset[str] = frozenset()) -> bytes:
    """The canonical encoding of ``value`` (without the fields ``skip``), under ``tag``."""
    return msgspec.json.encode([tag, _plain(value, skip)], order="sorted")


def _hash(plain: Any) -> str:
    """The short digest of a canonical form ``plain``: a report's part as ``signed_parts`` keeps
    it."""
    return hashlib.sha256(msgspec.json.encode(plain, order="sorted")).hexdigest()[:16]
