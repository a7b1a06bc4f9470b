"""The ``StateStore`` protocol: the one seam between the engine's durable state and its storage.

A store holds named buckets of keyed byte values. Every write returns the entry's new
*revision*, a number that only grows within a bucket; ``update`` and ``delete`` may name the
revision they expect (compare-and-set), so that several processes sharing one store never
overwrite each other's work — the way any number of Supervisors agree on who times a review out.
A bucket may have a ``ttl``: an entry not written for that long is gone (retention).
"""

from __future__ import annotations

import re
import string
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from humangr.engine.errors import StateConflict, StateError

__all__ = [
    "Bucket",
    "Entry",
    "StateConflict",
    "StateError",
    "StateStore",
    "check_key",
    "check_name",
]

_KEY_CHARS = "-/_=." + string.ascii_letters + string.digits
_NAME = re.compile(r"[A-Za-z0-9_-]{1,64}")


def check_key(key: str) -> str:
    """``key`` if it is a valid key: 1–255 of ``A-Z a-z 0-9 - _ = . /``, no leading, trailing
    or doubled dot (the keys JetStream KV accepts), else ``StateError``."""
    if (
        not isinstance(key, str)
        or not 0 < len(key) <= 255
        or key.strip(_KEY_CHARS)  # what is left holds a character outside the set
        or key.startswith(".")
        or key.endswith(".")
        or ".." in key
    ):
        raise StateError(f"invalid state key {key!r}: use 1-255 of A-Z a-z 0-9 - _ = . /")
    return key


def check_name(name: str) -> str:
    """``name`` if it is a valid bucket name (``A-Z a-z 0-9 _ -``, 1–64), else ``StateError``."""
    if not isinstance(name, str) or _NAME.fullmatch(name) is None:
        raise StateError(f"invalid bucket name {name!r}: use 1-64 of A-Z a-z 0-9 _ -")
    return name


@dataclass(frozen=True, slots=True)
class Entry:
    """One key's current value and the revision it was written at."""

    key: str
    value: bytes
    revision: int


@runtime_checkable
class Bucket(Protocol):
    """One named collection of keyed values in a ``StateStore``."""

    name: str

    async def get(self, key: str) -> Entry | None:
        """The current entry of ``key``, or ``None`` (never written, deleted or expired)."""
        ...

    async def put(self, key: str, value: bytes) -> int:
        """Write ``value`` whatever is there; returns the new revision."""
        ...

    async def create(self, key: str, value: bytes) -> int:
        """Write ``value`` only if ``key`` has no entry, else ``StateConflict``."""
        ...

    async def update(self, key: str, value: bytes, revision: int) -> int:
        """Write ``value`` only if ``key``'s entry is at ``revision``, else ``StateConflict``."""
        ...

    async def delete(self, key: str, *, revision: int | None = None) -> None:
        """Remove ``key``'s entry (nothing to do if there is none); with ``revision``, only if the
        entry is at that revision, else ``StateConflict``."""
        ...

    async def entries(self) -> list[Entry]:
        """Every current entry, in key order."""
        ...


@runtime_checkable
class StateStore(Protocol):
    """Durable state shared by the engine's actors: JetStream KV, SQLite or memory."""

    description: str
    """What and where the store is (for logs and ``humangr`` output), without credentials."""

    async def bucket(self, name: str, *, ttl: float | None = None) -> Bucket:
        """The bucket called ``name``, created on first use; ``ttl`` (seconds) is its
        retention, applied when it is created or changed."""
        ...

    async def close(self) -> None:
        """Release the store; buckets must not be used afterwards."""
        ...
