"""``humangr bench --hook``: what ``humangr hook claude-code`` costs per tool call — the wall
time of the hook process, as Claude Code starts it, for an approved ``Bash`` call (``ls -la``):
on the embedded engine (local checks, no LLM) and on an engine served on NATS (a nats-server
started here unless ``--nats URL``), next to the bare start of the interpreter."""

from __future__ import annotations

import json
import os
import statistics
import sys
import tempfile
import time
import uuid
from collections.abc import Sequence
from typing import Any

import anyio

__all__ = ["HOOK_INPUT", "bench_hook"]

HOOK_INPUT = {
    "session_id": "bench",
    "transcript_path": "/tmp/bench.jsonl",
    "cwd": "/tmp",
    "permission_mode": "default",
    "hook_event_name": "PreToolUse",
    "tool_name": "Bash",
    "tool_input": {"command": "ls -la", "description": "List files"},
    "tool_use_id": "toolu_bench",
}
"""The documented input of an everyday Bash call."""


async def _timed(argv: Sequence[str], runs: int, stdin: bytes, env: dict[str, str]) -> list[float]:
    times: list[float] = []
    for _ in range(runs):
        started = time.perf_counter()
        done = await anyio.run_process(argv, input=stdin, check=False, env=env)
        times.append(time.perf_counter() - started)
        if argv[-1] != "pass":
            answer = json.loads(done.stdout)["hookSpecificOutput"]["permissionDecision"]
            if answer != "allow":
                raise RuntimeError(f"the hook answered {answer}, not allow: {done.stdout!r}")
    return times


def _summary(times: list[float]) -> dict[str, Any]:
    ordered = sorted(times)

    def ms(value: float) -> float:
        return round(value * 1000, 1)

    return {
        "runs": len(times),
        "p50_ms": ms(statistics.median(ordered)),
        "p90_ms": ms(ordered[min(len(ordered) - 1, int(0.9 * len(ordered)))]),
        "mean_ms": ms(statistics.fmean(ordered)),
        "min_ms": ms(ordered[0]),
        "max_ms": ms(ordered[-1]),
    }


async def _served(runs: int, nats_url: str | None, env: dict[str, str]) -> dict[str, Any]:
    from contextlib import AsyncExitStack

    from humangr.actors.roles import run_engine
    from humangr.contracts import Subjects
    from humangr.engine.bus.nats import NatsBus

    async with AsyncExitStack() as stack:
        url = nats_url
        if url is None:
            from humangr.standins.nats_server import NatsServer

            url = stack.enter_context(NatsServer(jetstream=False)).url
        bus = await NatsBus.connect(url)
        stack.push_async_callback(bus.close)
        subjects = Subjects(f"bench{uuid.uuid4().hex[:8]}")
        engine = await stack.enter_async_context(run_engine(bus=bus, subjects=subjects))
        argv = [sys.executable, "-m", "humangr", "hook", "claude-code", "--nats", url]
        argv += ["--prefix", subjects.prefix, "--public-key", engine.public_key]
        stdin = json.dumps(HOOK_INPUT).encode()
        await _timed(argv, 1, stdin, env)  # warm the file cache
        return _summary(await _timed(argv, runs, stdin, env))


async def bench_hook(runs: int = 20, nats_url: str | None = None) -> dict[str, Any]:
    """Wall times (ms) of ``runs`` hook processes each way, and of ``python -c pass``."""
    stdin = json.dumps(HOOK_INPUT).encode()
    with tempfile.TemporaryDirectory() as home:
        env = {**os.environ, "HUMANGR_HOME": home}
        env.pop("HUMANGR_PUBLIC_KEY", None)
        hook = [sys.executable, "-m", "humangr", "hook", "claude-code"]
        await _timed(hook, 1, stdin, env)  # warm the file cache
        results: dict[str, Any] = {
            "python_start": _summary(await _timed([sys.executable, "-c", "pass"], runs, b"", env)),
            "embedded": _summary(await _timed(hook, runs, stdin, env)),
            "served": await _served(runs, nats_url, env),
        }
    return results
