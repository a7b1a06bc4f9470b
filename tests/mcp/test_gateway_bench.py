"""``humangr bench --gateway``: an approved MCP call straight to a server and through the
gateway, measured end to end over stdio."""

from __future__ import annotations

import json
import subprocess

from mcp_helpers import ROOT, humangr_command


def test_bench_gateway_measures_the_call_straight_and_through_the_gateway() -> None:
    command, prefix = humangr_command()
    done = subprocess.run(
        [command, *prefix, "bench", "--gateway", "--actions", "20", "--format", "json"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    results = json.loads(done.stdout)
    for name in ("direct", "gateway"):
        assert results[name]["calls"] == 20
        assert 0 < results[name]["p50_ms"] <= results[name]["p99_ms"]
    assert results["gateway"]["p50_ms"] > results["direct"]["p50_ms"], "a review costs time"
    assert results["startup_ms"] > 0
