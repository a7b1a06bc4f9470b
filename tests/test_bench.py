"""``humangr bench`` reports what it promises (its numbers are recorded, never asserted)."""

from __future__ import annotations

import json
from typing import Any

import anyio
import pytest

from humangr.cli.bench_engine import bench_bus, ceiling_share, durable, new_prefix, open_bench_bus
from humangr.cli.bench_tools import NEW_TEXTS, SAMPLE_CALLS
from humangr.cli.main import main
from humangr.engine.bus.nats import NatsBus

KEYS = {
    "decisions_per_s",
    "p50_ms",
    "p99_ms",
    "messages_per_decision",
    "bus_roundtrip_us",
    "bus_msgs_per_s",
    "ceiling_share",
    "rss_mb",
    "local_only",
    "policy_deny",
    "outcomes",
}


def test_memory_bench_reports_every_figure(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", "--actions", "20", "--concurrency", "5", "--format", "json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert set(result["memory"]) == KEYS
    # a submission, its receipt and the decision: the engine's own layers get their tasks
    # and give their reports in process
    assert result["memory"]["messages_per_decision"] == 3.0
    assert result["machine"]["python"]
    assert result["memory"]["local_only"] is False
    assert result["memory"]["outcomes"] == {"approved": 20}
    numbers = {k: v for k, v in result["memory"].items() if isinstance(v, int | float)}
    zero = [key for key, value in numbers.items() if not isinstance(value, bool) and value <= 0]
    assert zero == [], f"figures reported as zero or less: {zero} in {numbers}"


def test_a_slow_runs_small_ceiling_share_is_reported_not_rounded_to_zero() -> None:
    # 50 decisions/s of 3 messages on a bus moving 200,000 messages/s: 0.075 %
    assert ceiling_share(50.0, 3.0, 200_000.0) == 0.00075
    assert ceiling_share(1000.0, 3.0, 6000.0) == 0.5
    assert ceiling_share(1.0, 0.0, 3.0) == 0.333


def test_policy_deny_decisions_are_settled_by_the_rule(capsys: pytest.CaptureFixture[str]) -> None:
    """``--policy-deny`` measures decisions the policy settles alone: every one is rejected
    and the only messages are the submission, its receipt and the decision."""
    args = ["bench", "--actions", "20", "--concurrency", "5", "--policy-deny", "--local-only"]
    assert main([*args, "--format", "json"]) == 0
    result = json.loads(capsys.readouterr().out)["memory"]
    assert result["policy_deny"] is True
    assert result["outcomes"] == {"rejected": 20}
    assert result["messages_per_decision"] == 3.0


def test_rounds_on_one_engine_report_each_with_its_memory(
    capsys: pytest.CaptureFixture[str],
) -> None:
    args = ["bench", "--actions", "10", "--concurrency", "5", "--rounds", "3", "--local-only"]
    assert main([*args, "--format", "json"]) == 0
    result = json.loads(capsys.readouterr().out)["memory"]
    assert len(result["rounds"]) == 3
    assert all(r["decisions_per_s"] > 0 and r["rss_mb"] > 0 for r in result["rounds"])
    assert result["decisions_per_s"] == result["rounds"][-1]["decisions_per_s"]
    # the local checks alone: a submission, its receipt, the decision; no layer task
    assert result["local_only"] is True
    assert result["messages_per_decision"] == 3.0


def test_rounds_must_be_a_positive_whole_number(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", "--rounds", "0"]) != 0
    assert "--rounds: expected a whole number of at least 1" in capsys.readouterr().err


@pytest.mark.anyio
@pytest.mark.nats
async def test_nats_bench_with_layer_worker_processes(nats_url: str) -> None:
    bus = await NatsBus.connect(nats_url)
    try:
        with anyio.fail_after(120):
            result = await bench_bus(
                bus, actions=20, concurrency=5, layer_processes=1, nats_url=nats_url
            )
    finally:
        await bus.close()
    assert set(result) == KEYS
    assert result["messages_per_decision"] == 17.0, "reports from the worker count too"


@pytest.mark.anyio
@pytest.mark.nats
async def test_jetstream_bench_with_a_layer_worker_process(nats_url: str) -> None:
    prefix = new_prefix()
    async with open_bench_bus("jetstream", nats_url, prefix) as (bus, url):
        assert durable(bus)
        with anyio.fail_after(120):
            result = await bench_bus(
                bus, actions=10, concurrency=5, layer_processes=1, nats_url=url, prefix=prefix
            )
    assert set(result) == KEYS
    assert result["decisions_per_s"] > 0
    # stored by JetStream (no receipt): a submission, up to 7 tasks and 7 reports (the worker's
    # counted as the Supervisor handles them), the decision
    assert 10.0 <= result["messages_per_decision"] <= 16.0


LLM_KEYS = {
    "outcomes",
    "calls_per_decision",
    "requests_per_decision",
    "input_tokens_per_decision",
    "output_tokens_per_decision",
    "cache_read_share",
    "cache_write_share",
    "usd_per_decision",
    "latency_ms",
    "latency_calls",
    "no_llm_ms",
    "over_no_llm_calls",
}


def llm_bench(capsys: pytest.CaptureFixture[str], *extra: str) -> dict[str, Any]:
    args = ["bench", "--llm-latency", "40", "--actions", "1", "--format", "json", *extra]
    assert main(args) == 0
    return dict(json.loads(capsys.readouterr().out))


def test_llm_bench_reports_every_figure_per_diff(capsys: pytest.CaptureFixture[str]) -> None:
    warm = llm_bench(capsys)
    cold = llm_bench(capsys, "--no-cache-warming")
    assert warm["settings"]["first_byte_ms"] == 20.0, "half a call by default"
    for result in (warm, cold):
        assert set(result) == {"settings", "rules-reject", "clean-small", "clean-large"}
        for scenario in ("rules-reject", "clean-small", "clean-large"):
            assert set(result[scenario]) == LLM_KEYS
        assert result["rules-reject"]["outcomes"] == ["rejected"]
        assert result["clean-small"]["outcomes"] == ["approved"]
        assert result["clean-large"]["outcomes"] == ["approved"]
    large_warm, large_cold = warm["clean-large"], cold["clean-large"]
    assert large_warm["input_tokens_per_decision"] > 20_000 / 4, "a 20 KB diff, counted"
    assert large_warm["cache_read_share"] > large_cold["cache_read_share"]
    assert large_warm["usd_per_decision"] < large_cold["usd_per_decision"]
    assert cold["settings"]["cache_warming"] is False


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        (("--llm-latency", "0"), "must be more than 0"),
        (("--llm-latency", "-40"), "must be more than 0"),
        (("--llm-latency", "nan"), "must be more than 0"),
        (("--llm-latency", "inf"), "must be more than 0"),
        (("--llm-latency", "1e12"), "at most 600000"),
        (("--llm-latency", "soon"), "not a number of milliseconds"),
        (("--llm-latency", "400", "--llm-first-byte", "500"), "cannot exceed --llm-latency"),
        (("--llm-latency", "400", "--actions", "0"), "--actions with --llm-latency"),
        (("--llm-latency", "400", "--actions", "100000"), "--actions with --llm-latency"),
        (("--llm-latency", "400", "--warmup-delay", "0"), "must be more than 0"),
    ],
)
def test_llm_bench_refuses_bad_settings(
    capsys: pytest.CaptureFixture[str], args: tuple[str, ...], fragment: str
) -> None:
    assert main(["bench", *args]) == 3
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1
    assert fragment in err[0]
    assert "Traceback" not in err[0]


def test_tool_call_bench_reports_checks_and_guard_latency(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["bench", "--tool-calls", "--actions", "2", "--format", "json"]) == 0
    report = json.loads(capsys.readouterr().out)
    checks, guard = report["checks"], report["guard"]
    assert checks["calls"] == 2 * len(SAMPLE_CALLS)
    assert sum(checks["outcomes"].values()) == checks["calls"]
    assert {"approved", "rejected"} <= set(checks["outcomes"]), "the sample has both kinds"
    assert 0 < checks["p50_ms"] <= checks["p99_ms"]
    assert guard["calls"] == guard["approved"] + guard["stopped"] == 8
    assert guard["approved"] == 4
    assert guard["stopped"] == 4
    assert guard["standing"]["calls"] == 8, "the same calls again: their standing decisions"
    assert guard["new_text"]["calls"] == 2 * len(NEW_TEXTS), "a new command text each call"
    assert 0 < guard["new_text"]["p50_ms"] <= guard["new_text"]["p99_ms"]
