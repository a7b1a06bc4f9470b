"""The state-store conformance checks of the engine's records on a store: damaged entries in
every bucket of ``ReviewState`` are quarantined, and the ``GrantBook`` keeps its grants
(``conformance.ALL_CHECKS`` runs them after the bucket checks)."""

from __future__ import annotations

from typing import Any

from humangr.engine.errors import StateError

from .base import StateStore
from .conformance_buckets import _fail, _raises

__all__ = ["check_damaged_entries", "check_grants"]


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
