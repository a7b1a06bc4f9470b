"""``humangr bench``: engine overhead with an instant LLM, next to the raw bus, per bus; with
``--llm-latency MS`` what a decision costs in LLM calls, tokens and time (``bench_llm``)."""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator
from contextlib import AbstractAsyncContextManager, AsyncExitStack, asynccontextmanager
from dataclasses import asdict
from pathlib import Path
from typing import Any

import anyio
import anyio.lowlevel
from anyio.abc import Process

from humangr.actors.roles import run_engine
from humangr.contracts import ActionContext, Subjects
from humangr.engine.actor import SupervisionPolicy
from humangr.engine.bus import Bus, Headers, MemoryBus, Msg, Subscription
from humangr.engine.config import ReviewConfig
from humangr.engine.errors import ConfigError
from humangr.engine.llm import ScriptedLLM
from humangr.engine.signing import write_new_key

from .bench_llm import LLMBenchSettings, bench_llm
from .common import wait_serving

__all__ = ["CountingBus", "add_parsers", "bench_bus"]

DIFF = """--- a/app/x.py
+++ b/app/x.py
@@ -1,2 +1,2 @@
-def f(a): return a+1
+def increment(value: int) -> int:
+    return value + 1
"""


def _action(index: int) -> ActionContext:
    """A distinct action per submission, so no per-action cache makes later ones free."""
    return ActionContext(
        agent_id="bench",
        action_type="code_diff",
        action_description=f"bench action {index}: rename a helper",
        code_diff=DIFF.replace("value + 1", f"value + {index + 2}"),
    )


class CountingBus:
    """A ``Bus`` that counts what is published through it (it delegates everything)."""

    def __init__(self, inner: Bus) -> None:
        self.inner = inner
        self.published = 0

    async def publish(
        self, subject: str, data: bytes, *, headers: Headers | None = None, reply: str | None = None
    ) -> None:
        if not subject.endswith(".workers.heartbeat"):  # a worker's, no decision's
            self.published += 1
        await self.inner.publish(subject, data, headers=headers, reply=reply)

    def subscribe(
        self, subject: str, *, queue: str | None = None, max_pending: int = 65_536
    ) -> AbstractAsyncContextManager[Subscription]:
        return self.inner.subscribe(subject, queue=queue, max_pending=max_pending)

    async def request(
        self, subject: str, data: bytes, *, headers: Headers | None = None, timeout: float = 5.0
    ) -> Msg:
        self.published += 1
        return await self.inner.request(subject, data, headers=headers, timeout=timeout)

    async def flush(self, timeout: float = 5.0) -> None:
        await self.inner.flush(timeout)

    async def close(self) -> None:
        await self.inner.close()


async def _roundtrip_us(bus: Bus, prefix: str, count: int) -> float:
    subject = f"{prefix}.bench.echo"
    samples: list[float] = []
    async with bus.subscribe(subject) as sub, anyio.create_task_group() as tg:

        async def echo() -> None:
            async for msg in sub:
                if msg.reply:
                    await bus.publish(msg.reply, msg.data)

        tg.start_soon(echo)
        await bus.flush()
        for _ in range(count):
            started = time.perf_counter()
            await bus.request(subject, b"ping", timeout=5)
            samples.append(time.perf_counter() - started)
        tg.cancel_scope.cancel()
    return statistics.median(samples) * 1e6


async def _publish_rate(bus: Bus, prefix: str, count: int) -> float:
    subject = f"{prefix}.bench.flood"
    async with bus.subscribe(subject, max_pending=count + 1) as sub:
        await bus.flush()
        started = time.perf_counter()
        async with anyio.create_task_group() as tg:

            async def drain() -> None:
                received = 0
                async for _ in sub:
                    received += 1
                    if received == count:
                        return

            tg.start_soon(drain)
            payload = b"x" * 256
            for index in range(count):
                await bus.publish(subject, payload)
                if index % 512 == 0:
                    await anyio.lowlevel.checkpoint()
        return count / (time.perf_counter() - started)


async def bench_bus(
    bus: Bus,
    *,
    actions: int,
    concurrency: int,
    layer_processes: int = 0,
    nats_url: str | None = None,
) -> dict[str, Any]:
    """Decisions per second and overhead of the full engine on ``bus``, with the raw bus.

    With ``layer_processes`` (NATS only) the layers run in that many ``humangr serve --role
    layers`` processes and only the Supervisor runs here.
    """
    prefix = f"bench{time.monotonic_ns() % 10**9}"
    roundtrip = await _roundtrip_us(bus, prefix, 500)
    rate = await _publish_rate(bus, prefix, 20_000)
    counting = CountingBus(bus)
    llm = ScriptedLLM.from_lines([{"match": {}, "json": {"findings": []}}])
    latencies: list[float] = []
    config = ReviewConfig(layer_deadline_s=60)
    roles = ("supervisor",) if layer_processes else ("supervisor", "layers")
    async with (
        _layer_workers(layer_processes, nats_url, prefix) as workers,
        run_engine(
            bus=counting,
            llm=llm,
            config=config,
            subjects=Subjects(prefix),
            policy=SupervisionPolicy(drain_timeout=5),
            roles=roles,
            trusted_workers=workers,
        ) as engine,
    ):
        await engine.submit(_action(-1), timeout=30)
        counting.published = 0
        supervisor = engine.system.stats("supervisor")
        roster = next(a for a in engine.system.actors if a.name == "supervisor")
        handled_before = supervisor.handled - getattr(roster, "heartbeats_heard", 0)
        limiter = anyio.Semaphore(concurrency)
        started = time.perf_counter()

        async def one(index: int) -> None:
            async with limiter:
                t0 = time.perf_counter()
                await engine.submit(_action(index), timeout=60)
                latencies.append(time.perf_counter() - t0)

        async with anyio.create_task_group() as tg:
            for index in range(actions):
                tg.start_soon(one, index)
        elapsed = time.perf_counter() - started
        # the Supervisor handles each submission and each layer report once (and the workers'
        # heartbeats, which are no decision's); the reports that worker processes published
        # are those beyond the submissions
        handled = supervisor.handled - getattr(roster, "heartbeats_heard", 0)
        remote = handled - handled_before - actions if layer_processes else 0
        published = counting.published
    latencies.sort()
    decisions_per_s = actions / elapsed
    per_decision = (published + remote) / actions
    return {
        "decisions_per_s": round(decisions_per_s, 1),
        "p50_ms": round(latencies[len(latencies) // 2] * 1000, 2),
        "p99_ms": round(latencies[min(len(latencies) - 1, int(len(latencies) * 0.99))] * 1000, 2),
        "messages_per_decision": round(per_decision, 1),
        "bus_roundtrip_us": round(roundtrip, 1),
        "bus_msgs_per_s": round(rate, 0),
        "ceiling_share": round(decisions_per_s * per_decision / rate, 3),
    }


@asynccontextmanager
async def _layer_workers(
    count: int, nats_url: str | None, prefix: str
) -> AsyncIterator[tuple[str, ...]]:
    """``count`` layer-worker processes on ``nats_url``, ready (subscribed) on entry; yields
    the public key they sign their reports with (a new key, for the Supervisor to trust)."""
    if not count:
        yield ()
        return
    if nats_url is None:
        raise ConfigError("layer worker processes need a NATS bus")
    with tempfile.TemporaryDirectory() as tmp:
        script = Path(tmp) / "instant.jsonl"
        script.write_text('{"match": {}, "json": {"findings": []}}\n')
        worker_key = write_new_key(Path(tmp) / "worker.seed")
        command = [
            sys.executable,
            "-m",
            "humangr.cli.main",
            "serve",
            "--role",
            "layers",
            "--nats",
            nats_url,
            "--prefix",
            prefix,
            "--llm",
            f"scripted:{script}",
            "--worker-key",
            str(Path(tmp) / "worker.seed"),
        ]
        async with AsyncExitStack() as stack:
            for _ in range(count):
                process = await stack.enter_async_context(
                    await anyio.open_process(command, stdout=subprocess.PIPE)
                )
                stack.push_async_callback(_stop, process)
                await wait_serving(process, 30, "layer worker")
            yield (worker_key.public_key,)


async def _stop(process: Process) -> None:
    if process.returncode is None:
        process.terminate()
        with anyio.move_on_after(10, shield=True):
            await process.wait()


@asynccontextmanager
async def _open_bus(kind: str, url: str | None) -> AsyncIterator[tuple[Bus, str | None]]:
    if kind == "memory":
        async with MemoryBus() as bus:
            yield bus, None
        return
    from humangr.engine.bus.nats import NatsBus
    from humangr.standins.nats_server import NatsServer

    if url is not None:
        nats = await NatsBus.connect(url)
        try:
            yield nats, url
        finally:
            await nats.close()
        return
    with NatsServer(jetstream=False) as server:
        nats = await NatsBus.connect(server.url)
        try:
            yield nats, server.url
        finally:
            await nats.close()


def _positive_ms(text: str) -> float:
    """A duration in milliseconds: a finite number in (0, 600000]."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of milliseconds: {text!r}") from None
    if not 0 < value <= 600_000:
        raise argparse.ArgumentTypeError(f"must be more than 0 and at most 600000 ms, got {text}")
    return value


def _llm_settings(args: argparse.Namespace) -> LLMBenchSettings:
    latency = args.llm_latency
    first_byte = latency / 2 if args.llm_first_byte is None else args.llm_first_byte
    if first_byte > latency:
        raise ConfigError(
            f"--llm-first-byte ({first_byte:g} ms) cannot exceed --llm-latency ({latency:g} ms)"
        )
    actions = 5 if args.actions is None else args.actions
    if not 1 <= actions <= 1_000:
        raise ConfigError(f"--actions with --llm-latency must be 1..1000, got {actions}")
    return LLMBenchSettings(
        latency_ms=latency,
        first_byte_ms=first_byte,
        actions=actions,
        model=args.model,
        cache_warming=not args.no_cache_warming,
        stream=not args.no_stream,
        warmup_delay_ms=args.warmup_delay,
    )


async def _bench_llm(args: argparse.Namespace) -> int:
    settings = _llm_settings(args)
    results = await bench_llm(settings)
    if args.format == "json":
        print(json.dumps({"settings": asdict(settings), **results}, indent=2))
        return 0
    print(
        f"one call: {settings.latency_ms:g} ms (stream begins at {settings.first_byte_ms:g} ms); "
        f"cache warming {'on' if settings.cache_warming else 'off'}"
        f"{'' if settings.stream else ', not streamed'}; {settings.actions} decisions each"
    )
    for name, r in results.items():
        print(
            f"{name:>12}: {', '.join(r['outcomes'])}  {r['calls_per_decision']:g} calls/decision  "
            f"cache reads {r['cache_read_share']:.0%} of {r['input_tokens_per_decision']} input "
            f"tokens  {r['output_tokens_per_decision']} output  ${r['usd_per_decision']:.4f} "
            f"latency {r['latency_calls']:g} calls, "
            f"{r['over_no_llm_calls']:g} over the no-LLM run"
        )
    return 0


async def _bench_tools(args: argparse.Namespace) -> int:
    from .bench_tools import bench_tool_calls

    results = await bench_tool_calls(args.actions or 50)
    if args.format == "json":
        print(json.dumps(results, indent=2))
        return 0
    checks, guard = results["checks"], results["guard"]
    print(
        f"local checks of one tool call: p50 {checks['p50_ms']} ms  p99 {checks['p99_ms']} ms  "
        f"mean {checks['mean_ms']} ms over {checks['calls']} calls "
        f"({', '.join(f'{n} {k}' for k, n in sorted(checks['outcomes'].items()))})"
    )
    print(
        f"guarded call, embedded engine, local checks: p50 {guard['p50_ms']} ms  "
        f"p99 {guard['p99_ms']} ms over {guard['calls']} calls ({guard['approved']} approved, "
        f"{guard['stopped']} stopped)"
    )
    policy = results["policy"]
    print(
        f"guarded call decided by a rule of a {policy['rules']}-rule policy (no layer task, no "
        f"LLM call): p50 {policy['p50_ms']} ms  p99 {policy['p99_ms']} ms over "
        f"{policy['calls']} calls (allow p50 {policy['allow_p50_ms']} ms, with the local checks; "
        f"deny p50 {policy['deny_p50_ms']} ms)"
    )
    return 0


async def _bench_gateway(args: argparse.Namespace) -> int:
    from .bench_gateway import bench_gateway

    r = await bench_gateway(args.actions or 200)
    if args.format == "json":
        print(json.dumps(r, indent=2))
        return 0
    for name in ("direct", "gateway"):
        t = r[name]
        print(
            f"{name:>7}: approved echo p50 {t['p50_ms']} ms  p99 {t['p99_ms']} ms  "
            f"mean {t['mean_ms']} ms over {t['calls']} calls"
        )
    print(
        f"gateway overhead per call: p50 {r['overhead_p50_ms']} ms  p99 "
        f"{r['overhead_p99_ms']} ms; start-up to the first tool list {r['startup_ms']} ms"
    )
    return 0


async def _bench_hook(args: argparse.Namespace) -> int:
    from .bench_hook import bench_hook

    r = await bench_hook(args.actions or 20, args.nats)
    if args.format == "json":
        print(json.dumps(r, indent=2))
        return 0
    for name, what in (
        ("python_start", "python -c pass"),
        ("embedded", "hook, embedded engine"),
        ("served", "hook, engine on NATS"),
    ):
        t = r[name]
        print(
            f"{what:>22}: p50 {t['p50_ms']} ms  p90 {t['p90_ms']} ms  mean {t['mean_ms']} ms  "
            f"(min {t['min_ms']}, max {t['max_ms']}) over {t['runs']} runs"
        )
    return 0


async def _bench(args: argparse.Namespace) -> int:
    if getattr(args, "flood", False):
        from .bench_flood import run_flood

        return await run_flood(args)
    if getattr(args, "hook", False):
        return await _bench_hook(args)
    if getattr(args, "gateway", False):
        return await _bench_gateway(args)
    if args.tool_calls:
        return await _bench_tools(args)
    if args.llm_latency is not None:
        return await _bench_llm(args)
    if args.actions is None:
        args.actions = 500
    kinds = ["memory", "nats"] if args.bus == "both" else [args.bus]
    results: dict[str, Any] = {
        "machine": {
            "python": platform.python_version(),
            "platform": platform.platform(),
            "processor": platform.machine(),
        },
        "actions": args.actions,
        "concurrency": args.concurrency,
    }
    for kind in kinds:
        async with _open_bus(kind, args.nats) as (bus, url):
            results[kind] = await bench_bus(
                bus,
                actions=args.actions,
                concurrency=args.concurrency,
                layer_processes=args.layer_processes if kind == "nats" else 0,
                nats_url=url,
            )
    if args.format == "json":
        print(json.dumps(results, indent=2))
    else:
        for kind in kinds:
            r = results[kind]
            print(
                f"{kind:>6}: {r['decisions_per_s']:>8} decisions/s  p50 {r['p50_ms']} ms  "
                f"p99 {r['p99_ms']} ms  {r['messages_per_decision']} msgs/decision  "
                f"bus rtt {r['bus_roundtrip_us']} µs  bus {r['bus_msgs_per_s']:.0f} msgs/s  "
                f"ceiling share {r['ceiling_share']:.0%}"
            )
    return 0


def add_parsers(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    bench = sub.add_parser("bench", help="measure engine overhead with an instant LLM")
    bench.add_argument("--bus", choices=["memory", "nats", "both"], default="memory")
    bench.add_argument(
        "--actions", type=int, help="decisions to measure (500; with --llm-latency 5 per diff)"
    )
    bench.add_argument("--concurrency", type=int, default=50)
    bench.add_argument("--nats", help="use this NATS server instead of starting one")
    bench.add_argument(
        "--layer-processes",
        type=int,
        default=0,
        help="on NATS, run the layers in this many worker processes (scale-out)",
    )
    bench.add_argument("--format", choices=["text", "json"], default="text")
    bench.add_argument(
        "--tool-calls",
        action="store_true",
        help="measure tool-call reviews with no LLM: the local checks of one call, and a "
        "guarded call on the embedded engine (--actions rounds of the sample calls, 50)",
    )
    bench.add_argument(
        "--gateway",
        action="store_true",
        help="measure what humangr mcp-gateway adds to an approved MCP tool call: an echo "
        "straight to an MCP server and through the gateway (--actions calls each, 200)",
    )
    bench.add_argument(
        "--hook",
        action="store_true",
        help="measure humangr hook claude-code per tool call: the wall time of the hook process "
        "for an approved Bash call, embedded and served on NATS (--actions runs each, 20)",
    )
    from .bench_flood import add_flood_arguments

    add_flood_arguments(bench)
    llm = bench.add_argument_group("LLM economy (--llm-latency)")
    llm.add_argument(
        "--llm-latency",
        type=_positive_ms,
        metavar="MS",
        help="review through the real SDK against the stand-in Messages API, each call taking "
        "MS ms; report calls, tokens, cache reads, cost and latency per decision",
    )
    llm.add_argument(
        "--llm-first-byte",
        type=_positive_ms,
        metavar="MS",
        help="when a streamed reply begins (default: half of --llm-latency)",
    )
    llm.add_argument("--model", default="claude-sonnet-4-6", help="model name sent and priced")
    llm.add_argument("--no-cache-warming", action="store_true", help="send all calls at once")
    llm.add_argument(
        "--no-stream", action="store_true", help="warm with a delay instead of streaming"
    )
    llm.add_argument(
        "--warmup-delay",
        type=_positive_ms,
        default=2000.0,
        metavar="MS",
        help="with --no-stream: hold the other calls this long after the first was sent",
    )
    bench.set_defaults(func=lambda args: anyio.run(_bench, args))
