"""Circuit breakers shared through a state store: the same behaviour over memory, SQLite and
JetStream KV, failures counted once each when workers fail at once, one half-open trial across
workers, damaged entries refused."""

from __future__ import annotations

from pathlib import Path

import anyio
import msgspec
import pytest

from humangr.engine.enforcer import BreakerStore
from humangr.engine.enforcer.breaker import BUCKET
from humangr.engine.errors import StateError
from humangr.engine.state import SqliteStateStore, StateStore

pytestmark = pytest.mark.anyio
KEY = ("demo", "dev", "implement_task")


class Clock:
    def __init__(self) -> None:
        self.now = 1_700_000_000.0

    def __call__(self) -> float:
        return self.now


def workers(store: StateStore, clock: Clock, count: int = 3) -> list[BreakerStore]:
    """``count`` agent workers' views of the breakers, all on ``store``."""
    return [BreakerStore(store, threshold=3, cool_down=30.0, clock=clock) for _ in range(count)]


async def test_the_lifecycle_is_the_same_in_every_store(state_store: StateStore) -> None:
    clock = Clock()
    breakers = BreakerStore(state_store, threshold=3, cool_down=30.0, clock=clock)
    assert (await breakers.fail(KEY))[0] is None
    assert (await breakers.fail(KEY))[0] is None
    assert (await breakers.get(KEY)).failures == 2
    change, breaker = await breakers.fail(KEY)
    assert (change, breaker.state, breaker.failures, breaker.opened_at) == (
        "open",
        "open",
        3,
        clock.now,
    )
    allowed, change, _, _ = await breakers.acquire(KEY, lease=60)
    assert (allowed, change) == (False, None)
    clock.now += 30
    allowed, change, token, breaker = await breakers.acquire(KEY, lease=60)
    assert (allowed, change, breaker.state) == (True, "half_open", "half_open")
    assert (await breakers.acquire(KEY, lease=60))[:2] == (False, None)
    await breakers.release(KEY, token)
    allowed, _, _, _ = await breakers.acquire(KEY, lease=60)
    assert allowed, "a released trial lets the next call try"
    change, breaker = await breakers.succeed(KEY)
    assert (change, breaker.state, breaker.failures) == ("closed", "closed", 0)
    bucket = await state_store.bucket(BUCKET)
    assert await bucket.entries() == [], "a clean closed breaker leaves no entry"
    other = ("demo", "qa", "validate_task")
    await breakers.fail(other)
    assert [key for key, _ in await breakers.items()] == [other]


async def test_failures_of_workers_count_once_each(state_store: StateStore) -> None:
    clock = Clock()
    many = [BreakerStore(state_store, threshold=20, clock=clock) for _ in range(12)]
    async with anyio.create_task_group() as tg:
        for breakers in many:
            tg.start_soon(breakers.fail, KEY)
    breaker = await many[0].get(KEY)
    assert breaker.failures == 12, "a concurrent failure was lost or counted twice"
    assert breaker.state == "closed"


async def test_three_failures_across_workers_open_the_breaker_for_all(
    state_store: StateStore,
) -> None:
    clock = Clock()
    first, second, third = workers(state_store, clock)
    await first.fail(KEY)
    await second.fail(KEY)
    change, _ = await third.fail(KEY)
    assert change == "open"
    for breakers in (first, second, third):
        allowed, _, _, breaker = await breakers.acquire(KEY, lease=60)
        assert not allowed
        assert breaker.state == "open"


async def test_one_half_open_trial_across_workers(state_store: StateStore) -> None:
    clock = Clock()
    many = workers(state_store, clock, count=10)
    for breakers in many[:3]:
        await breakers.fail(KEY)
    clock.now += 30
    granted: list[tuple[int, str]] = []

    async def ask(n: int) -> None:
        allowed, _, token, _ = await many[n].acquire(KEY, lease=60)
        if allowed:
            granted.append((n, token))

    async with anyio.create_task_group() as tg:
        for n in range(len(many)):
            tg.start_soon(ask, n)
    assert len(granted) == 1, f"{len(granted)} workers took the half-open trial"
    holder, token = granted[0]
    other = many[(holder + 1) % len(many)]
    assert not (await other.acquire(KEY, lease=60))[0]
    await other.release(KEY, "someone-else")
    assert not (await other.acquire(KEY, lease=60))[0], "only the holder releases the trial"
    await many[holder].release(KEY, token)
    assert (await other.acquire(KEY, lease=60))[0]


async def test_a_trial_held_by_a_dead_worker_lapses_after_its_lease(
    state_store: StateStore,
) -> None:
    clock = Clock()
    dead, alive = workers(state_store, clock, count=2)
    for _ in range(3):
        await dead.fail(KEY)
    clock.now += 30
    assert (await dead.acquire(KEY, lease=100))[0]
    clock.now += 99
    assert not (await alive.acquire(KEY, lease=100))[0]
    clock.now += 1
    allowed, _, _, breaker = await alive.acquire(KEY, lease=100)
    assert allowed
    assert breaker.state == "half_open"


async def test_an_open_breaker_is_seen_by_a_new_process(tmp_path: Path) -> None:
    clock = Clock()
    first_store = SqliteStateStore(tmp_path / "state.db")
    for _ in range(3):
        await BreakerStore(first_store, clock=clock).fail(KEY)
    await first_store.close()
    second_store = SqliteStateStore(tmp_path / "state.db")
    try:
        breaker = await BreakerStore(second_store, clock=clock).get(KEY)
        assert (breaker.state, breaker.failures, breaker.opened_at) == ("open", 3, clock.now)
    finally:
        await second_store.close()


@pytest.mark.parametrize(
    "value",
    [
        b"{not json",
        b"\xff\xfe\x00",
        b'{"state": "melted", "failures": 3}',
        b'{"state": "open", "failures": "three"}',
        b'{"state": "open", "failures": 3, "extra": true}',
        b"[" * 1000 + b"]" * 1000,
    ],
    ids=["not json", "bad bytes", "unknown state", "wrong type", "unknown field", "deep nesting"],
)
async def test_a_damaged_entry_is_an_error_naming_the_key(
    state_store: StateStore, value: bytes
) -> None:
    bucket = await state_store.bucket(BUCKET)
    await bucket.put("demo/dev/implement_task", value)
    breakers = BreakerStore(state_store)
    with pytest.raises(StateError, match=r"demo/dev/implement_task .* is damaged.*delete the key"):
        await breakers.acquire(KEY, lease=60)
    with pytest.raises(StateError, match="is damaged"):
        await breakers.fail(KEY)


async def test_entries_outside_the_breaker_shape_are_not_listed(state_store: StateStore) -> None:
    bucket = await state_store.bucket(BUCKET)
    await bucket.put("not-a-breaker", msgspec.json.encode({"state": "open"}))
    breakers = BreakerStore(state_store)
    await breakers.fail(KEY)
    assert [key for key, _ in await breakers.items()] == [KEY]
