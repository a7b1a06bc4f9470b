"""The state-store conformance checks of plain buckets: values, revisions, compare-and-set,
deletes, listings, keys, retention and concurrent claims (``conformance.ALL_CHECKS`` runs them
all). Each raises ``AssertionError`` saying what misbehaved."""

from __future__ import annotations

from collections.abc import Awaitable

import anyio

from humangr.engine.errors import StateConflict, StateError

from .base import StateStore

__all__ = [
    "check_compare_and_set",
    "check_concurrent_claims",
    "check_create",
    "check_delete",
    "check_entries",
    "check_keys",
    "check_put_get",
    "check_retention",
    "check_revisions",
]


def _fail(message: str) -> AssertionError:
    return AssertionError(message)


async def _raises(kind: type[BaseException], call: Awaitable[object], what: str) -> None:
    try:
        await call
    except kind:
        return
    except Exception as exc:
        raise _fail(f"{what}: expected {kind.__name__}, got {type(exc).__name__}: {exc}") from exc
    raise _fail(f"{what}: expected {kind.__name__}, nothing was raised")


async def check_put_get(store: StateStore, name: str) -> None:
    """A value comes back byte for byte; a missing key is ``None``."""
    bucket = await store.bucket(name)
    if await bucket.get("missing") is not None:
        raise _fail("get of a key never written must be None")
    for value in (b"", b"\x00\xff binary", b"x" * 100_000):
        await bucket.put("k", value)
        entry = await bucket.get("k")
        if entry is None or entry.value != value or entry.key != "k":
            raise _fail(f"put then get of {len(value)} bytes returned {entry!r}")
    again = await store.bucket(name)
    entry = await again.get("k")
    if entry is None or entry.value != b"x" * 100_000:
        raise _fail("the same bucket opened again must see the values written")


async def check_revisions(store: StateStore, name: str) -> None:
    """Every write returns a revision larger than any before in the bucket; get reports it."""
    bucket = await store.bucket(name)
    seen = [await bucket.put("a", b"1"), await bucket.put("b", b"1"), await bucket.put("a", b"2")]
    if seen != sorted(seen) or len(set(seen)) != 3:
        raise _fail(f"revisions must grow with every write: {seen}")
    entry = await bucket.get("a")
    if entry is None or entry.revision != seen[-1]:
        raise _fail(f"get must report the revision of the last write ({seen[-1]}): {entry!r}")


async def check_create(store: StateStore, name: str) -> None:
    """``create`` writes only a key without an entry; after a delete it may create again."""
    bucket = await store.bucket(name)
    first = await bucket.create("k", b"first")
    await _raises(StateConflict, bucket.create("k", b"second"), "create of an existing key")
    entry = await bucket.get("k")
    if entry is None or entry.value != b"first" or entry.revision != first:
        raise _fail(f"a failed create must leave the entry as it was: {entry!r}")
    await bucket.delete("k")
    await bucket.create("k", b"again")
    entry = await bucket.get("k")
    if entry is None or entry.value != b"again":
        raise _fail("create after delete must succeed")


async def check_compare_and_set(store: StateStore, name: str) -> None:
    """``update`` and ``delete`` with a revision succeed only at that revision."""
    bucket = await store.bucket(name)
    first = await bucket.put("k", b"1")
    second = await bucket.update("k", b"2", first)
    await _raises(StateConflict, bucket.update("k", b"3", first), "update at a stale revision")
    await _raises(StateConflict, bucket.update("nope", b"3", first), "update of a missing key")
    await _raises(StateConflict, bucket.delete("k", revision=first), "delete at a stale revision")
    entry = await bucket.get("k")
    if entry is None or entry.value != b"2" or entry.revision != second:
        raise _fail(f"failed compare-and-sets must leave the entry as it was: {entry!r}")
    await bucket.delete("k", revision=second)
    if await bucket.get("k") is not None:
        raise _fail("delete at the current revision must remove the entry")
    await _raises(StateConflict, bucket.delete("k", revision=second), "delete of a removed key")


async def check_delete(store: StateStore, name: str) -> None:
    """Delete removes the entry from get and entries; deleting nothing is not an error."""
    bucket = await store.bucket(name)
    await bucket.put("a", b"1")
    await bucket.put("b", b"2")
    await bucket.delete("a")
    await bucket.delete("a")
    await bucket.delete("never")
    if await bucket.get("a") is not None:
        raise _fail("a deleted key must read as None")
    keys = [entry.key for entry in await bucket.entries()]
    if keys != ["b"]:
        raise _fail(f"entries after a delete: {keys}, expected ['b']")


async def check_entries(store: StateStore, name: str) -> None:
    """``entries`` lists every current entry once, in key order, with its latest value."""
    bucket = await store.bucket(name)
    if await bucket.entries() != []:
        raise _fail("a new bucket must have no entries")
    for key in ("c", "a.b", "b/x"):
        await bucket.put(key, key.encode())
    await bucket.put("c", b"latest")
    found = [(e.key, e.value) for e in await bucket.entries()]
    expected = [("a.b", b"a.b"), ("b/x", b"b/x"), ("c", b"latest")]
    if found != expected:
        raise _fail(f"entries: {found}, expected {expected}")
    other = await store.bucket(f"{name}-other")
    if await other.entries() != []:
        raise _fail("buckets must not share entries")


async def check_keys(store: StateStore, name: str) -> None:
    """Keys outside the portable alphabet are refused with ``StateError``."""
    bucket = await store.bucket(name)
    for bad in ("", "a b", "a*", ".a", "a.", "a..b", "ä", "x" * 256, "a>b"):
        await _raises(StateError, bucket.put(bad, b"v"), f"put with the key {bad!r}")
    await bucket.put("Az09-_=./x", b"ok")


async def check_retention(store: StateStore, name: str) -> None:
    """An entry not written for longer than the bucket's ttl is gone."""
    bucket = await store.bucket(name, ttl=1.0)
    await bucket.put("old", b"1")
    await anyio.sleep(1.6)
    await bucket.put("new", b"2")
    if await bucket.get("old") is not None:
        raise _fail("an entry older than the ttl must be gone")
    keys = [entry.key for entry in await bucket.entries()]
    if keys != ["new"]:
        raise _fail(f"entries after the ttl: {keys}, expected ['new']")


async def check_concurrent_claims(store: StateStore, name: str) -> None:
    """Of many concurrent compare-and-sets on one revision, exactly one wins."""
    bucket = await store.bucket(name)
    revision = await bucket.put("job", b"open")
    winners: list[int] = []

    async def claim(n: int) -> None:
        try:
            await bucket.update("job", f"claimed by {n}".encode(), revision)
        except StateConflict:
            return
        winners.append(n)

    async with anyio.create_task_group() as tg:
        for n in range(10):
            tg.start_soon(claim, n)
    if len(winners) != 1:
        raise _fail(f"{len(winners)} concurrent claims won; exactly one must")
    entry = await bucket.get("job")
    if entry is None or entry.value != f"claimed by {winners[0]}".encode():
        raise _fail(f"the winner's value must be stored: {entry!r}")
