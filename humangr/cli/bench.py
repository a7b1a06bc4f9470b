"""``humangr bench``: engine overhead with an instant LLM, next to the raw bus, per bus; with
``--llm-latency MS`` what a decision costs in LLM calls, tokens and time (``bench_llm``)."""

from __future__ import annotations

import argparse
import json
import platform
from dataclasses import asdict
from typing import Any

import anyio
import anyio.lowlevel

from humangr.engine.errors import ConfigError

from .bench_engine import bench_bus, new_prefix, open_bench_bus
from .bench_llm import LLMBenchSettings, bench_llm

__all__ = ["add_parsers"]


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a whole number of at least 1, not {text!r}")
    return value


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
    standing = guard["standing"]
    print(
        f"guarded call answered by a standing decision (the same call again: no review): "
        f"p50 {standing['p50_ms']} ms  p99 {standing['p99_ms']} ms over {standing['calls']} calls"
    )
    new_text = guard["new_text"]
    print(
        f"guarded call with a new command text each time (nothing remembered): "
        f"p50 {new_text['p50_ms']} ms  p99 {new_text['p99_ms']} ms over {new_text['calls']} calls"
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
        prefix = new_prefix()
        async with open_bench_bus(kind, args.nats, prefix) as (bus, url):
            results[kind] = await bench_bus(
                bus,
                actions=args.actions,
                concurrency=args.concurrency,
                layer_processes=args.layer_processes if kind != "memory" else 0,
                nats_url=url,
                rounds=args.rounds,
                local_only=args.local_only,
                policy_deny=args.policy_deny,
                prefix=prefix,
            )
    if args.format == "json":
        print(json.dumps(results, indent=2))
    else:
        for kind in kinds:
            r = results[kind]
            for n, each in enumerate(r.get("rounds", []), 1):
                print(
                    f"{kind:>6} round {n}: {each['decisions_per_s']:>8} decisions/s  "
                    f"p50 {each['p50_ms']} ms  p99 {each['p99_ms']} ms  rss {each['rss_mb']} MB"
                )
            mode = " (local checks only)" if r["local_only"] else ""
            if r["policy_deny"]:
                mode = " (settled by a policy rule)"
            print(
                f"{kind:>6}: {r['decisions_per_s']:>8} decisions/s{mode}  p50 {r['p50_ms']} ms  "
                f"p99 {r['p99_ms']} ms  {r['messages_per_decision']} msgs/decision  "
                f"bus rtt {r['bus_roundtrip_us']} µs  bus {r['bus_msgs_per_s']:.0f} msgs/s  "
                f"ceiling share {r['ceiling_share']:.1%}  rss {r['rss_mb']} MB"
            )
    return 0


def add_parsers(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    bench = sub.add_parser("bench", help="measure engine overhead with an instant LLM")
    bench.add_argument(
        "--bus",
        choices=["memory", "nats", "jetstream", "both"],
        default="memory",
        help="memory, core NATS, JetStream work queues, or both memory and core NATS",
    )
    bench.add_argument(
        "--actions", type=int, help="decisions to measure (500; with --llm-latency 5 per diff)"
    )
    bench.add_argument("--concurrency", type=int, default=50)
    bench.add_argument(
        "--rounds",
        type=_positive_int,
        default=1,
        help="run --actions this many times on one engine, with the memory after each (1)",
    )
    bench.add_argument(
        "--local-only",
        action="store_true",
        help="no LLM: the local checks decide alone, with no layer task",
    )
    bench.add_argument(
        "--policy-deny",
        action="store_true",
        help="a policy rule denies every action: decisions settled by the policy alone "
        "(no local check, no layer task)",
    )
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
