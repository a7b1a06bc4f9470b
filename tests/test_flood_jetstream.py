"""Issue 24, item 4, on JetStream and in processes of their own: a flood of large actions
submitted at once to a Supervisor (``humangr serve --role supervisor --jetstream --llm none``)
ends with every one decided, a small action behind them is decided within seconds, and the
Supervisor's memory stays bounded. Fewer and smaller actions than ``humangr bench --flood``
(200 × 1 MB), so that it runs in a test's time; the same code measures both."""

from __future__ import annotations

import anyio
import pytest

from humangr.cli.bench_flood import bench_flood, flood_action, peak_rss_mb

pytestmark = pytest.mark.nats


@pytest.mark.anyio
async def test_a_jetstream_flood_is_all_decided_and_a_small_action_is_not_starved() -> None:
    with anyio.fail_after(300):
        result = await bench_flood(jetstream=True, actions=24, size=300_000, timeout=240)
    assert result["outcomes"] == {"decided": 24}, result
    assert result["small"]["outcome"] == "decided", result
    assert result["small"]["seconds"] < 15, result
    assert result["supervisor_peak_rss_mb"] is not None
    assert result["supervisor_peak_rss_mb"] < 500, result


def test_flood_actions_are_distinct_and_within_the_diff_limit() -> None:
    first, second = flood_action(1, 1_000_000), flood_action(2, 1_000_000)
    assert first.code_diff != second.code_diff
    for action in (first, second):
        size = len((action.code_diff or "").encode())
        assert 990_000 < size <= 1_000_000


def test_peak_rss_is_read_from_proc() -> None:
    import os

    peak = peak_rss_mb(os.getpid())
    assert peak is None or peak > 1
