"""``MemoryStateStore`` keeps a long-running embedded engine's memory bounded: a bucket with a
retention keeps at most ``max_retained`` entries (the oldest written go first) and sweeps
expired ones as it is written; a bucket without one is never trimmed."""

from __future__ import annotations

import anyio
import pytest

from humangr.engine.state import MemoryStateStore
from humangr.engine.state.memory import MemoryBucket

pytestmark = pytest.mark.anyio


async def test_a_retained_bucket_keeps_the_newest_entries_only() -> None:
    store = MemoryStateStore(max_retained=3)
    history = await store.bucket("decisions", ttl=3600)
    for n in range(10):
        await history.put(f"k{n}", b"x")
    assert [e.key for e in await history.entries()] == ["k7", "k8", "k9"]
    assert await history.get("k0") is None


async def test_a_rewrite_counts_as_the_newest() -> None:
    store = MemoryStateStore(max_retained=2)
    history = await store.bucket("decisions", ttl=3600)
    await history.put("a", b"1")
    await history.put("b", b"1")
    await history.put("a", b"2")  # a is now the newest: b goes first
    await history.put("c", b"1")
    assert sorted(e.key for e in await history.entries()) == ["a", "c"]
    entry = await history.get("a")
    assert entry is not None
    assert entry.value == b"2"


async def test_work_buckets_without_a_retention_are_never_trimmed() -> None:
    store = MemoryStateStore(max_retained=2)
    pending = await store.bucket("pending")
    for n in range(50):
        await pending.create(f"k{n}", b"x")
    assert len(await pending.entries()) == 50


async def test_expired_entries_are_swept_without_being_read() -> None:
    store = MemoryStateStore()
    history = await store.bucket("reports", ttl=0.05)
    for n in range(100):
        await history.put(f"old{n}", b"x" * 1000)
    await anyio.sleep(0.1)
    await history.put("new", b"x")
    await history.put("newer", b"x")
    # the old ones went on those two writes (up to 64 a write), none of them read
    assert isinstance(history, MemoryBucket)
    assert list(history._items) == ["new", "newer"]


async def test_a_nonsensical_bound_is_refused() -> None:
    with pytest.raises(ValueError, match="max_retained"):
        MemoryStateStore(max_retained=0)
