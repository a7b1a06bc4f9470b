"""The pure circuit breaker with an injected clock (the shared store: test_breaker_store.py)."""

from __future__ import annotations

import pytest

from humangr.engine.enforcer import BreakerStore, CircuitBreaker
from humangr.engine.errors import ConfigError


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


def test_a_trial_whose_lease_ran_out_goes_to_the_next_caller() -> None:
    clock = Clock()
    breaker = opened(clock)
    clock.now += 30
    assert breaker.acquire("first", 10.0) == (True, "half_open")
    clock.now += 9.9
    assert breaker.acquire("second", 10.0) == (False, None)
    clock.now += 0.1
    assert breaker.acquire("second", 10.0) == (True, None)
    assert breaker.trial_owner == "second"
    breaker.release("first")
    assert breaker.trial_running(), "only the holder's release frees the trial"
    breaker.release("second")
    assert not breaker.trial_running()


def test_bad_settings_are_refused() -> None:
    with pytest.raises(ConfigError):
        CircuitBreaker(threshold=0)
    with pytest.raises(ConfigError):
        BreakerStore(cool_down=-1)
