"""``MemoryStateStore``: the state store in this process's memory, for tests and one-shot runs.

Nothing survives the process; everything else — revisions, compare-and-set, retention — behaves
as in the durable stores, with one bound of its own: a bucket with a retention (decisions,
reports: history) keeps at most ``max_retained`` entries, the oldest written going first, so a
long-running embedded engine's memory stays bounded whatever its retention. Buckets without one
(pending reviews, the outbox, work in flight) are never trimmed: they hold work not done yet.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from humangr.engine.errors import StateConflict

from .base import Bucket, Entry, check_key, check_name

__all__ = ["MemoryStateStore"]


@dataclass(slots=True)
class _Value:
    value: bytes
    revision: int
    written: float


MAX_RETAINED = 10_000
"""Entries a memory bucket with a retention keeps at most (see the module docstring)."""
_SWEEP = 64
"""Expired entries removed at most per write (the rest on later writes)."""


@dataclass(slots=True)
class MemoryBucket:
    name: str
    ttl: float | None = None
    max_retained: int = MAX_RETAINED
    _items: dict[str, _Value] = field(default_factory=dict)
    """In the order written (a rewrite moves its key to the end), so the oldest come first."""
    _last: int = 0

    def _live(self, key: str) -> _Value | None:
        item = self._items.get(key)
        if item is not None and self.ttl is not None and time.monotonic() - item.written > self.ttl:
            del self._items[key]
            return None
        return item

    def _write(self, key: str, value: bytes) -> int:
        self._last += 1
        items = self._items
        items.pop(key, None)
        now = time.monotonic()
        items[key] = _Value(bytes(value), self._last, now)
        self._trim(now)
        return self._last

    def _trim(self, now: float) -> None:
        """Drop expired entries from the oldest (a few per write), and the oldest beyond
        ``max_retained``."""
        items, ttl = self._items, self.ttl
        if ttl is None:
            return
        for _ in range(_SWEEP):
            oldest = next(iter(items))
            if now - items[oldest].written <= ttl:
                break
            del items[oldest]
        while len(items) > self.max_retained:
            del items[next(iter(items))]

    async def get(self, key: str) -> Entry | None:
        item = self._live(check_key(key))
        return None if item is None else Entry(key, item.value, item.revision)

    async def put(self, key: str, value: bytes) -> int:
        return self._write(check_key(key), value)

    async def create(self, key: str, value: bytes) -> int:
        if self._live(check_key(key)) is not None:
            raise StateConflict(f"{self.name}/{key} exists already")
        return self._write(key, value)

    async def update(self, key: str, value: bytes, revision: int) -> int:
        item = self._live(check_key(key))
        if item is None or item.revision != revision:
            raise StateConflict(f"{self.name}/{key} is not at revision {revision}")
        return self._write(key, value)

    async def delete(self, key: str, *, revision: int | None = None) -> None:
        item = self._live(check_key(key))
        if revision is not None and (item is None or item.revision != revision):
            raise StateConflict(f"{self.name}/{key} is not at revision {revision}")
        self._items.pop(key, None)

    async def entries(self) -> list[Entry]:
        live = [(key, self._live(key)) for key in sorted(self._items)]
        return [Entry(key, item.value, item.revision) for key, item in live if item is not None]


class MemoryStateStore:
    """A ``StateStore`` in memory."""

    description = "memory (nothing survives a restart)"

    def __init__(self, *, max_retained: int = MAX_RETAINED) -> None:
        if max_retained < 1:
            raise ValueError(f"max_retained must be at least 1, not {max_retained}")
        self._buckets: dict[str, MemoryBucket] = {}
        self.max_retained = max_retained
        """Entries each bucket with a retention keeps at most (the oldest written go first)."""

    async def bucket(self, name: str, *, ttl: float | None = None) -> Bucket:
        found = self._buckets.get(check_name(name))
        if found is None:
            found = self._buckets[name] = MemoryBucket(name, ttl, self.max_retained)
        found.ttl = ttl
        return found

    async def close(self) -> None:
        self._buckets.clear()
