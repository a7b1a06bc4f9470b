"""Circuit breaker states with an injected clock, and their persistence."""

from __future__ import annotations

from pathlib import Path

import pytest

from humangr.engine.enforcer import BreakerStore, CircuitBreaker
from humangr.engine.errors import ConfigError, StateFileError


class Clock:
    def __init__(self, now: float = 1_700_000_000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def opened(clock: Clock) -> CircuitBreaker:
    breaker = CircuitBreaker(threshold=3, cool_down=30.0, clock=clock)
    for _ in range(3):
        assert breaker.acquire() == (True, None)
        breaker.fail()
    return breaker


def test_three_consecutive_failures_open_the_breaker() -> None:
    breaker = CircuitBreaker(threshold=3, cool_down=30.0, clock=Clock())
    assert breaker.fail() is None
    assert breaker.fail() is None
    assert (breaker.state, breaker.failures) == ("closed", 2)
    assert breaker.fail() == "open"
    assert (breaker.state, breaker.failures) == ("open", 3)
    assert breaker.acquire() == (False, None)


def test_a_success_resets_the_consecutive_count() -> None:
    breaker = CircuitBreaker(threshold=3, clock=Clock())
    breaker.fail()
    breaker.fail()
    assert breaker.succeed() is None
    breaker.fail()
    breaker.fail()
    assert breaker.state == "closed"


def test_open_turns_half_open_after_the_cool_down_and_allows_one_trial() -> None:
    clock = Clock()
    breaker = opened(clock)
    clock.now += 29.9
    assert breaker.acquire() == (False, None)
    clock.now += 0.1
    assert breaker.acquire() == (True, "half_open")
    assert breaker.state == "half_open"
    assert breaker.acquire() == (False, None)


def test_a_successful_trial_closes_the_breaker() -> None:
    clock = Clock()
    breaker = opened(clock)
    clock.now += 30
    breaker.acquire()
    assert breaker.succeed() == "closed"
    assert (breaker.state, breaker.failures, breaker.opened_at) == ("closed", 0, None)
    assert breaker.acquire() == (True, None)


def test_a_failed_trial_reopens_the_breaker_for_a_new_cool_down() -> None:
    clock = Clock()
    breaker = opened(clock)
    clock.now += 30
    breaker.acquire()
    assert breaker.fail() == "open"
    assert breaker.opened_at == clock.now
    clock.now += 29
    assert breaker.acquire() == (False, None)
    clock.now += 1
    assert breaker.acquire() == (True, "half_open")


def test_a_released_trial_lets_the_next_call_try() -> None:
    clock = Clock()
    breaker = opened(clock)
    clock.now += 30
    breaker.acquire()
    breaker.release()
    assert breaker.state == "half_open"
    assert breaker.acquire() == (True, None)


def test_bad_settings_are_refused() -> None:
    with pytest.raises(ConfigError):
        CircuitBreaker(threshold=0)
    with pytest.raises(ConfigError):
        BreakerStore(cool_down=-1)


def test_states_are_persisted_and_restored_by_a_new_store(tmp_path: Path) -> None:
    path = tmp_path / "state" / "breakers.json"
    clock = Clock()
    store = BreakerStore(path, threshold=3, cool_down=30.0, clock=clock)
    key = ("demo", "dev", "implement_task")
    for _ in range(3):
        store.get(key).fail()
    store.get(("demo", "qa", "validate_task")).fail()
    store.get(("demo", "pm", "generate_backlog")).succeed()
    store.save()

    restored = BreakerStore(path, threshold=3, cool_down=30.0, clock=clock)
    breaker = restored.get(key)
    assert (breaker.state, breaker.failures, breaker.opened_at) == ("open", 3, clock.now)
    assert breaker.acquire() == (False, None)
    assert restored.get(("demo", "qa", "validate_task")).failures == 1
    clock.now += 30
    assert breaker.acquire() == (True, "half_open")
    assert sorted(p.name for p in path.parent.iterdir()) == ["breakers.json"]


@pytest.mark.anyio
async def test_persist_writes_from_a_thread(tmp_path: Path) -> None:
    path = tmp_path / "breakers.json"
    store = BreakerStore(path, threshold=1, clock=Clock())
    store.get(("p", "cto", "validate_backlog")).fail()
    await store.persist()
    assert BreakerStore(path).get(("p", "cto", "validate_backlog")).state == "open"


@pytest.mark.parametrize(
    "content",
    [
        b"{not json",
        b"\xff\xfe\x00",
        b'{"version": 1, "breakers": {"p/cto": {"state": "open", "failures": 3}}}',
        b'{"version": 1, "breakers": {"p/cto/m": {"state": "melted", "failures": 3}}}',
        b"[" * 1000 + b"]" * 1000,
    ],
    ids=["not json", "bad bytes", "bad key", "unknown state", "deep nesting"],
)
def test_a_corrupt_state_file_is_a_clear_error(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "breakers.json"
    path.write_bytes(content)
    with pytest.raises(StateFileError, match=r"breakers\.json: .*; fix or remove the file") as info:
        BreakerStore(path)
    assert info.value.path == str(path)
