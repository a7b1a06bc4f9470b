"""The state-store conformance kit: checks that any ``StateStore`` behaves as the engine expects.

Each ``check_*`` takes an open store and a bucket name of its own (so checks can share a store)
and raises ``AssertionError`` saying what misbehaved. Usage::

    for check in ALL_CHECKS:
        await check(store, f"conf-{uuid.uuid4().hex[:8]}")
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import anyio

from humangr.engine.errors import StateConflict, StateError

from .base import StateStore

__all__ = [
    "ALL_CHECKS",
    "Check",
    "check_compare_and_set",
    "check_concurrent_claims",
    "check_create",
    "check_damaged_entries",
    "check_delete",
    "check_entries",
    "check_grants",
    "check_keys",
    "check_put_get",
    "check_retention",
    "check_revisions",
]

Check = Callable[[StateStore, str], Awaitable[None]]


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


_WRONG_TYPE = {
    "outbox": b'{"owner": "x", "lease_until": 1.0, "kind": "pending"}',
    "other": b'{"owner": "x", "lease_until": 1.0, "kind": "outbox"}',
}


def _damaged_values(bucket: str) -> dict[str, bytes]:
    wrong = _WRONG_TYPE["outbox" if bucket == "outbox" else "other"]
    return {
        "garbage": b"\x00\xff\xfe\x93 not json {{",
        "truncated": b'{"owner": "x", "lease_un',
        "wrong-type": wrong,
        "empty": b"",
        "not-an-object": b"[1, 2, 3]",
    }


async def check_damaged_entries(store: StateStore, name: str) -> None:
    """Garbage, truncated and wrong-type values in every bucket of ``ReviewState`` come back
    byte for byte from the store, and ``ReviewState`` quarantines each once (a copy in the
    quarantine bucket, ``on_damaged`` told): a decision is kept and raises ``DamagedEntry``,
    an outbox entry is rebuilt, anything else is removed; nothing else is raised."""
    from .records import QUARANTINE_BUCKET, DamagedEntry, Quarantine
    from .reviews import ReviewState

    told: list[tuple[str, str, str]] = []

    async def on_damaged(damaged: Any) -> None:
        if damaged.key.startswith(name):
            told.append((damaged.bucket, damaged.key, damaged.fate))

    readers = []
    for owner in ("conf-a", "conf-b"):
        state = ReviewState(
            store, owner=owner, retention_s=3600, review_deadline_s=60, on_damaged=on_damaged
        )
        await state.open()
        readers.append(state)
    written: dict[tuple[str, str], bytes] = {}
    revisions: dict[tuple[str, str], int] = {}
    for bucket in ("decisions", "outbox", "pending", "inflight", "reports"):
        raw = await store.bucket(bucket)
        for kind, value in _damaged_values(bucket).items():
            key = f"{name}-{bucket}-{kind}"
            await raw.put(key, value)
            entry = await raw.get(key)
            if entry is None or entry.value != value:
                raise _fail(f"{bucket}/{key}: a damaged value must come back as written")
            written[(bucket, key)] = value
            revisions[(bucket, key)] = entry.revision
    for n, state in enumerate(readers):
        for bucket, key in written:
            if bucket == "outbox" and n > 0:  # rebuilt by the first reader: sound now
                continue
            try:
                if bucket == "decisions":
                    await _raises(DamagedEntry, state.decision(key), f"a damaged decision {key}")
                elif bucket == "reports":
                    if await state.latest(key) is not None:
                        raise _fail(f"a damaged report index entry {key} must read as None")
                else:
                    records = getattr(state, bucket)
                    if await records.get(key) is not None:
                        raise _fail(f"a damaged {bucket} entry {key} must read as None")
            except StateError as exc:
                if not isinstance(exc, DamagedEntry):
                    raise _fail(f"reading the damaged {bucket}/{key}: {exc}") from exc
    expected = sorted(
        (bucket, key, {"decisions": "kept", "outbox": "rebuilt"}.get(bucket, "removed"))
        for bucket, key in written
    )
    if sorted(told) != expected:
        raise _fail(f"each damaged entry must be reported once: {sorted(told)} != {expected}")
    held = await store.bucket(QUARANTINE_BUCKET)
    for (bucket, key), revision in revisions.items():
        if await held.get(Quarantine.key_of(bucket, key, revision)) is None:
            raise _fail(f"the damaged {bucket}/{key} must have a copy in the quarantine bucket")
    await _check_fates(store, readers[0], written)


async def _check_fates(
    store: StateStore, state: Any, written: dict[tuple[str, str], bytes]
) -> None:
    for (bucket, key), value in written.items():
        entry = await (await store.bucket(bucket)).get(key)
        if bucket == "decisions" and (entry is None or entry.value != value):
            raise _fail(f"a damaged decision {key} must stay as it was")
        if bucket == "outbox":
            stored = await state.outbox.get(key)
            if stored is None or stored.value.owner not in ("conf-a", "conf-b"):
                raise _fail(f"a damaged outbox entry {key} must be rebuilt: {entry!r}")
        if bucket in ("pending", "inflight", "reports") and entry is not None:
            raise _fail(f"a damaged {bucket} entry {key} must be removed: {entry!r}")


def _grant(gid: str, *, expires_in: float, scope: str = "exact") -> Any:
    from datetime import timedelta

    from humangr.contracts import Grant
    from humangr.contracts.types import utc_now

    now = utc_now()
    return Grant(
        id=gid,
        agent_id="coder",
        tool="bash",
        scope="tool" if scope == "tool" else "exact",
        arguments_digest="0" * 64 if scope == "exact" else None,
        reviewer="conformance",
        reason="conformance check",
        action_id="a1",
        created_at=now,
        expires_at=now + timedelta(seconds=expires_in),
    )


async def check_grants(store: StateStore, name: str) -> None:
    """Grants: put, list in id order, count uses, one grant per id, expire, revoke; garbage,
    wrong-type, naive-time and misplaced entries are quarantined, removed and never listed."""
    import msgspec

    from humangr.contracts.types import utc_now

    from .grants import GrantBook

    told: list[str] = []

    async def on_damaged(damaged: Any) -> None:
        told.append(damaged.key)

    book = await GrantBook(store, on_damaged=on_damaged, bucket=name).open()
    live, old = _grant("g-live", expires_in=3600), _grant("g-old", expires_in=-1, scope="tool")
    if not (await book.add(live) and await book.add(old)):
        raise _fail("adding new grants must succeed")
    if await book.add(_grant("g-live", expires_in=60)):
        raise _fail("a second grant with a taken id must be refused")
    if [g.id for g in await book.all()] != ["g-live", "g-old"]:
        raise _fail(f"grants must list in id order: {await book.all()}")
    if [g.id for g in await book.active(utc_now())] != ["g-live"]:
        raise _fail("an expired grant must not be active")
    if not (await book.used("g-live") and await book.used("g-live")):
        raise _fail("a use of a grant must be counted")
    counted = await book.get("g-live")
    if counted is None or counted.uses != 2:
        raise _fail(f"two uses must be counted: {counted!r}")
    raw = await store.bucket(name)
    misplaced = msgspec.json.encode(msgspec.structs.replace(live, id="g-other"))
    naive = msgspec.json.decode(msgspec.json.encode(live))
    naive["expires_at"] = "2999-01-01T00:00:00"
    damaged = {
        "d-garbage": b"\x00\xff not json {{",
        "d-truncated": msgspec.json.encode(live)[:40],
        "d-wrong-type": b'{"owner": "x", "lease_until": 1.0, "kind": "outbox"}',
        "d-misplaced": misplaced,
        "d-naive": msgspec.json.encode(naive),
    }
    for key, value in damaged.items():
        await raw.put(key, value)
    if [g.id for g in await book.all()] != ["g-live", "g-old"]:
        raise _fail("damaged grants must never be listed")
    if sorted(told) != sorted(damaged):
        raise _fail(f"each damaged grant must be reported once: {sorted(told)}")
    for key in damaged:
        if await raw.get(key) is not None:
            raise _fail(f"a damaged grant {key} must be removed")
    if await book.expire(utc_now()) != ["g-old"] or await book.get("g-old") is not None:
        raise _fail("expire must remove the expired grant only")
    if not await book.revoke("g-live") or await book.get("g-live") is not None:
        raise _fail("a revoked grant must be gone at once")
    if await book.revoke("g-live") or await book.used("g-live"):
        raise _fail("revoking or using an unknown grant must say so, not raise")


ALL_CHECKS: tuple[Check, ...] = (
    check_put_get,
    check_revisions,
    check_create,
    check_compare_and_set,
    check_delete,
    check_entries,
    check_keys,
    check_retention,
    check_concurrent_claims,
    check_damaged_entries,
    check_grants,
)
