"""``Backoff``: the one exponential backoff schedule every retry loop uses."""

from __future__ import annotations

import math
import time

import anyio
import pytest

from humangr.engine.backoff import Backoff

pytestmark = pytest.mark.anyio


def test_the_delay_doubles_from_base_up_to_the_cap() -> None:
    backoff = Backoff(0.1, cap=1.0)
    assert list(backoff.delays(6)) == pytest.approx([0.1, 0.2, 0.4, 0.8, 1.0, 1.0])


def test_a_factor_and_cap_give_an_uneven_schedule() -> None:
    # The decision outbox's schedule: 50 ms, 250 ms, then 1 s.
    assert list(Backoff(0.05, factor=5.0, cap=1.0).delays(3)) == pytest.approx([0.05, 0.25, 1.0])


def test_without_a_cap_the_delay_grows_and_a_huge_attempt_does_not_overflow() -> None:
    assert Backoff(0.2).delay(3) == pytest.approx(1.6)
    assert Backoff(0.2).delay(5000) == math.inf
    assert Backoff(0.2, cap=5.0).delay(10**9) == 5.0


def test_a_negative_attempt_counts_as_the_first() -> None:
    assert Backoff(0.5).delay(-3) == 0.5


def test_jitter_only_shortens_a_wait_and_by_at_most_its_fraction() -> None:
    backoff = Backoff(1.0, cap=8.0, jitter=0.25)
    assert backoff.delay(2, rand=lambda: 0.0) == 4.0
    assert backoff.delay(2, rand=lambda: 0.999999) == pytest.approx(3.0, abs=1e-5)
    waits = [backoff.delay(3) for _ in range(200)]
    assert all(6.0 <= w <= 8.0 for w in waits)
    assert len(set(waits)) > 1


def test_delays_without_a_count_goes_on() -> None:
    endless = Backoff(1.0, cap=2.0).delays()
    assert [next(endless) for _ in range(50)][-1] == 2.0


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        ({"base": -1.0}, "first backoff delay"),
        ({"base": math.nan}, "first backoff delay"),
        ({"base": 1.0, "factor": 0.5}, "factor"),
        ({"base": 1.0, "cap": -1.0}, "cap"),
        ({"base": 1.0, "jitter": 1.5}, "jitter"),
        ({"base": 1.0, "jitter": -0.1}, "jitter"),
    ],
)
def test_a_nonsensical_schedule_is_refused(settings: dict[str, float], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        Backoff(**settings)


async def test_sleep_waits_the_delay_and_says_how_long() -> None:
    started = time.monotonic()
    waited = await Backoff(0.02).sleep(1)
    assert waited == pytest.approx(0.04)
    assert time.monotonic() - started >= 0.035


async def test_a_cancelled_sleep_is_not_swallowed() -> None:
    started = time.monotonic()
    with anyio.move_on_after(0.05) as scope:
        await Backoff(10.0).sleep(0)
        pytest.fail("the sleep outlived its cancellation")
    assert scope.cancelled_caught
    assert time.monotonic() - started < 5


async def test_retrying_tries_again_on_the_named_errors_until_one_succeeds() -> None:
    tries: list[int] = []

    async def flaky() -> str:
        tries.append(len(tries))
        if len(tries) < 3:
            raise TimeoutError("no answer yet")
        return "done"

    result = await Backoff(0.001).retrying(flaky, on=(TimeoutError,), within=5.0)
    assert (result, tries) == ("done", [0, 1, 2])


async def test_retrying_raises_the_last_error_once_the_next_try_would_be_too_late() -> None:
    tries = 0

    async def never() -> None:
        nonlocal tries
        tries += 1
        raise TimeoutError(f"try {tries}")

    started = anyio.current_time()
    with pytest.raises(TimeoutError, match=r"try \d+"):
        await Backoff(0.01, factor=1.0).retrying(never, on=(TimeoutError,), within=0.05)
    assert 2 <= tries <= 7
    assert anyio.current_time() - started < 1.0


async def test_retrying_lets_other_errors_through_at_once() -> None:
    tries = 0

    async def broken() -> None:
        nonlocal tries
        tries += 1
        raise ValueError("not a transient fault")

    with pytest.raises(ValueError, match="not a transient"):
        await Backoff(0.001).retrying(broken, on=(TimeoutError,), within=5.0)
    assert tries == 1
