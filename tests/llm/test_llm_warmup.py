"""``CacheWarmer``: one call leads a prefix, the others wait for its start, and nobody hangs."""

from __future__ import annotations

import anyio
import anyio.lowlevel
import pytest

from humangr.engine.errors import ConfigError
from humangr.engine.llm.warmup import (
    UNKNOWN_MODEL_MIN_TOKENS,
    CacheWarmer,
    WarmupSettings,
    estimate_tokens,
    min_cacheable_tokens,
    warmup_settings,
)

pytestmark = pytest.mark.anyio

KEY = b"prefix-1"


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.mark.parametrize(
    ("model", "minimum"),
    [
        ("claude-sonnet-4-5", 1024),
        ("claude-sonnet-4-5-20250929", 1024),
        ("claude-sonnet-4-6", 1024),
        ("claude-opus-4-7", 2048),
        ("claude-opus-4-8", 1024),
        ("claude-opus-5", 512),
        ("claude-fable-5-2", 512),
        ("claude-mythos-preview", 2048),
        ("claude-opus-4-1-20250805", 1024),
        ("claude-opus-4-5", 4096),
        ("claude-opus-4-6", 4096),
        ("claude-haiku-4-5", 4096),
        ("claude-3-5-haiku-latest", 2048),
        ("us.anthropic.claude-sonnet-4-20250514-v1:0", 1024),
        ("CLAUDE-3-7-SONNET", 1024),
        ("some-new-model", UNKNOWN_MODEL_MIN_TOKENS),
        ("", UNKNOWN_MODEL_MIN_TOKENS),
    ],
)
def test_minimum_cacheable_length_per_model(model: str, minimum: int) -> None:
    assert min_cacheable_tokens(model) == minimum


def test_token_estimate_is_a_low_one() -> None:
    assert estimate_tokens(0) == 0
    assert estimate_tokens(-5) == 0
    assert estimate_tokens(4095) == 1023
    assert estimate_tokens(4096) == 1024


def test_settings_are_checked() -> None:
    with pytest.raises(ValueError, match="hold_s must be >= 0"):
        CacheWarmer(hold_s=-1)
    with pytest.raises(ValueError, match="max_entries >= 1"):
        CacheWarmer(hold_s=1, max_entries=0)


async def test_one_call_leads_the_others_wait_for_its_start() -> None:
    warmer = CacheWarmer(hold_s=30)
    order: list[str] = []
    started = anyio.Event()

    async def leader() -> None:
        async with warmer.turn(KEY) as turn:
            assert turn.leader
            order.append("leader sent")
            await started.wait()
            order.append("leader began")
            turn.started()
            await anyio.sleep(0.05)
            order.append("leader done")

    async def follower(name: str) -> None:
        async with warmer.turn(KEY) as turn:
            assert not turn.leader
            order.append(name)

    with anyio.fail_after(5):
        async with anyio.create_task_group() as tg:
            tg.start_soon(leader)
            await anyio.wait_all_tasks_blocked()
            tg.start_soon(follower, "f1")
            tg.start_soon(follower, "f2")
            await anyio.wait_all_tasks_blocked()
            assert order == ["leader sent"], "followers wait while the leader has not begun"
            started.set()
    assert order[:2] == ["leader sent", "leader began"]
    assert set(order[2:4]) == {"f1", "f2"}, "released at the start, not at the end"
    assert order[-1] == "leader done"
    assert (warmer.led, warmer.held) == (1, 2)


async def test_a_warm_prefix_goes_at_once_and_other_prefixes_are_independent() -> None:
    warmer = CacheWarmer(hold_s=30)
    async with warmer.turn(KEY) as turn:
        turn.started()
    with anyio.fail_after(1):
        async with warmer.turn(KEY) as again:
            assert not again.leader
        async with warmer.turn(b"other") as other:
            assert other.leader
    assert warmer.held == 0


@pytest.mark.parametrize("how", ["error", "cancel"])
async def test_a_leader_that_fails_or_is_cancelled_releases_the_others(how: str) -> None:
    warmer = CacheWarmer(hold_s=30)
    released: list[str] = []

    async def leader() -> None:
        with anyio.CancelScope() as scope:
            try:
                async with warmer.turn(KEY) as turn:
                    assert turn.leader
                    await anyio.wait_all_tasks_blocked()
                    if how == "cancel":
                        scope.cancel()
                        await anyio.sleep(10)
                    raise RuntimeError("HTTP 500")
            except RuntimeError:
                pass

    async def follower() -> None:
        async with warmer.turn(KEY) as turn:
            assert not turn.leader
            released.append("go")

    with anyio.fail_after(5):
        async with anyio.create_task_group() as tg:
            tg.start_soon(leader)
            await anyio.lowlevel.checkpoint()
            tg.start_soon(follower)
            tg.start_soon(follower)
    assert released == ["go", "go"], "released at once, long before hold_s"
    assert len(warmer) == 0, "a prefix whose leader never began is not warm"
    async with warmer.turn(KEY) as next_call:
        assert next_call.leader, "the next call leads again"


async def test_nobody_waits_longer_than_hold_s() -> None:
    warmer = CacheWarmer(hold_s=0.1)
    waited: list[float] = []
    hang = anyio.Event()

    async def leader() -> None:
        async with warmer.turn(KEY):
            await hang.wait()

    async def follower() -> None:
        before = anyio.current_time()
        async with warmer.turn(KEY) as turn:
            assert not turn.leader
            waited.append(anyio.current_time() - before)

    with anyio.fail_after(5):
        async with anyio.create_task_group() as tg:
            tg.start_soon(leader)
            await anyio.lowlevel.checkpoint()
            tg.start_soon(follower)
            await anyio.sleep(0.3)
            tg.start_soon(follower)
            await anyio.sleep(0.05)
            hang.set()
    assert 0.08 <= waited[0] < 1.0
    assert waited[1] < 0.05, "past hold_s a new call does not wait either"


async def test_a_cancelled_follower_leaves_the_others_unharmed() -> None:
    warmer = CacheWarmer(hold_s=30)
    go = anyio.Event()
    done: list[str] = []

    async def leader() -> None:
        async with warmer.turn(KEY) as turn:
            await go.wait()
            turn.started()

    async def follower(name: str) -> None:
        async with warmer.turn(KEY):
            done.append(name)

    with anyio.fail_after(5):
        async with anyio.create_task_group() as tg:
            tg.start_soon(leader)
            await anyio.lowlevel.checkpoint()
            with anyio.move_on_after(0.05) as scope:
                await follower("cancelled")
            assert scope.cancelled_caught
            tg.start_soon(follower, "kept")
            await anyio.wait_all_tasks_blocked()
            go.set()
    assert done == ["kept"]


async def test_memory_is_bounded_and_warm_entries_expire() -> None:
    clock = Clock()
    warmer = CacheWarmer(hold_s=30, ttl_s=60, max_entries=3, clock=clock)
    for n in range(10):
        async with warmer.turn(bytes([n])) as turn:
            turn.started()
    assert len(warmer) == 3
    async with warmer.turn(bytes([9])) as warm:
        assert not warm.leader
    clock.now += 59
    async with warmer.turn(bytes([9])) as refreshed:
        assert not refreshed.leader, "each use keeps the entry warm (as the API's cache does)"
    clock.now += 61
    async with warmer.turn(bytes([9])) as expired:
        assert expired.leader


def test_settings_default_to_streamed_warming() -> None:
    assert warmup_settings(environ={}) == WarmupSettings(enabled=True, stream=True, delay_s=2.0)


@pytest.mark.parametrize(
    ("env", "expected"),
    [
        ({"HUMANGR_CACHE_WARMING": "off"}, WarmupSettings(enabled=False)),
        ({"HUMANGR_CACHE_WARMING": " Delay "}, WarmupSettings(stream=False)),
        ({"HUMANGR_CACHE_WARMING": ""}, WarmupSettings()),
        ({"HUMANGR_WARMUP_DELAY_MS": "750"}, WarmupSettings(delay_s=0.75)),
        ({"HUMANGR_WARMUP_DELAY_MS": "0"}, WarmupSettings(delay_s=0.0)),
    ],
)
def test_settings_from_the_environment(env: dict[str, str], expected: WarmupSettings) -> None:
    assert warmup_settings(environ=env) == expected


def test_explicit_settings_win_over_the_environment() -> None:
    env = {"HUMANGR_CACHE_WARMING": "off", "HUMANGR_WARMUP_DELAY_MS": "100"}
    assert warmup_settings(True, False, 3.0, environ=env) == WarmupSettings(True, False, 3.0)


@pytest.mark.parametrize(
    ("env", "fragment"),
    [
        ({"HUMANGR_CACHE_WARMING": "sometimes"}, "stream, delay or off"),
        ({"HUMANGR_CACHE_WARMING": "x" * 10_000}, "stream, delay or off"),
        ({"HUMANGR_WARMUP_DELAY_MS": "soon"}, "HUMANGR_WARMUP_DELAY_MS"),
        ({"HUMANGR_WARMUP_DELAY_MS": "-5"}, "HUMANGR_WARMUP_DELAY_MS"),
        ({"HUMANGR_WARMUP_DELAY_MS": "nan"}, "HUMANGR_WARMUP_DELAY_MS"),
        ({"HUMANGR_WARMUP_DELAY_MS": "1e12"}, "HUMANGR_WARMUP_DELAY_MS"),
    ],
)
def test_bad_settings_are_config_errors(env: dict[str, str], fragment: str) -> None:
    with pytest.raises(ConfigError, match=fragment) as caught:
        warmup_settings(environ=env)
    assert len(str(caught.value)) < 200


def test_anthropic_llm_takes_its_warming_from_the_environment(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from humangr.engine.llm import AnthropicLLM

    monkeypatch.setenv("HUMANGR_CACHE_WARMING", "off")
    assert AnthropicLLM(api_key="k").warmer is None
    monkeypatch.setenv("HUMANGR_CACHE_WARMING", "delay")
    monkeypatch.setenv("HUMANGR_WARMUP_DELAY_MS", "500")
    delayed = AnthropicLLM(api_key="k")
    assert delayed.warmer is not None
    assert delayed.warmer.hold_s == 0.5
    assert not delayed.stream
    monkeypatch.setenv("HUMANGR_CACHE_WARMING", "bogus")
    with pytest.raises(ConfigError):
        AnthropicLLM(api_key="k")
