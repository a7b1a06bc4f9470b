"""``humangr bench`` reports what it promises (its numbers are recorded, never asserted)."""

from __future__ import annotations

import json

import anyio
import pytest

from humangr.engine.bus.nats import NatsBus
from humangr.engine.cli import main
from humangr.engine.commands.bench import bench_bus

KEYS = {
    "decisions_per_s",
    "p50_ms",
    "p99_ms",
    "messages_per_decision",
    "bus_roundtrip_us",
    "bus_msgs_per_s",
    "ceiling_share",
}


def test_memory_bench_reports_every_figure(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", "--actions", "20", "--concurrency", "5", "--format", "json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert set(result["memory"]) == KEYS
    # a submission, seven layer tasks, seven reports, one decision
    assert result["memory"]["messages_per_decision"] == 16.0
    assert result["machine"]["python"]
    assert all(value > 0 for value in result["memory"].values())


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
    assert result["messages_per_decision"] == 16.0, "reports from the worker count too"
