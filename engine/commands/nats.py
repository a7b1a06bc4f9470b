"""Commands against a running NATS: ``serve``, ``submit``, ``watch``, ``report``."""

from __future__ import annotations

import argparse
import logging
import signal
import sys

import anyio

from contracts import ActionSubmitted, HumanLayerReport, Subjects, decode, encode
from engine.actor import ActorSystem
from engine.commands.common import connect_nats, load_actions, make_llm
from engine.commands.render import EXIT_CODES, render
from engine.config import ReviewConfig
from engine.errors import EngineError
from engine.metrics import Metrics
from engine.review import action_hash
from engine.runtime import fetch_report, new_action_id, review_actors, submit_and_wait

__all__ = ["add_parsers"]

log = logging.getLogger("humangr.serve")
ROLES = ("supervisor", "layers", "all")


async def _serve(args: argparse.Namespace) -> int:
    config = ReviewConfig(
        layers=ReviewConfig.parse_layers(args.layers) if args.layers else ReviewConfig().layers
    )
    roles = ("supervisor", "layers") if args.role == "all" else (args.role,)
    metrics = Metrics()
    if args.metrics_port is not None:
        from prometheus_client import start_http_server

        start_http_server(args.metrics_port, registry=metrics.registry)
    bus = await connect_nats(args.nats, jetstream=args.jetstream)
    try:
        system = ActorSystem(bus, subjects=Subjects(args.prefix), metrics=metrics)
        llm = make_llm(args.llm) if "layers" in roles else None
        system.add(*review_actors(config, llm, roles=roles))
        with anyio.open_signal_receiver(signal.SIGINT, signal.SIGTERM) as signals:
            async with system.running():
                print(f"humangr serving {', '.join(roles)} on {args.nats}", flush=True)
                async for signum in signals:
                    log.warning("signal %s: draining", signum)
                    break
    finally:
        await bus.close()
    return 0


async def _submit(args: argparse.Namespace) -> int:
    bus = await connect_nats(args.nats)
    try:
        subjects = Subjects(args.prefix)
        worst = 0
        for name, action in load_actions(args.sources):
            if not args.wait:
                submitted = ActionSubmitted(
                    action_id=new_action_id(), action=action, action_hash=action_hash(action)
                )
                await bus.publish(subjects.action_submit, encode(submitted))
                print(f"{name}: submitted as {submitted.action_id}")
                continue
            report = await submit_and_wait(bus, subjects, action, timeout=args.timeout)
            print(render(args.format, name, report, f"via {args.nats}"))
            worst = max(worst, EXIT_CODES[report.outcome])
        await bus.flush()
        return worst
    finally:
        await bus.close()


async def _watch(args: argparse.Namespace) -> int:
    bus = await connect_nats(args.nats)
    subjects = Subjects(args.prefix)
    try:
        async with bus.subscribe(subjects.decisions) as decisions:
            async for msg in decisions:
                report = decode(msg.data, HumanLayerReport)
                print(render(args.format, report.action_id, report, msg.subject), flush=True)
    finally:
        await bus.close()
    return 0


async def _report(args: argparse.Namespace) -> int:
    bus = await connect_nats(args.nats)
    try:
        report = await fetch_report(bus, Subjects(args.prefix), args.id, timeout=args.timeout)
    finally:
        await bus.close()
    print(render(args.format, report.action_id, report, f"via {args.nats}"))
    return 0


def _runner(func: object) -> object:
    def run(args: argparse.Namespace) -> int:
        try:
            result: int = anyio.run(func, args)  # type: ignore[arg-type]
            return result
        except EngineError as exc:
            print(f"humangr {args.command}: {exc}", file=sys.stderr)
            return 3

    return run


def add_parsers(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    def common(parser: argparse.ArgumentParser) -> None:
        parser.add_argument("--nats", required=True, help="NATS URL, e.g. nats://127.0.0.1:4222")
        parser.add_argument("--prefix", default="hl", help="subject prefix (default hl)")

    serve = sub.add_parser("serve", help="run the actors against NATS")
    common(serve)
    serve.add_argument("--jetstream", action="store_true", help="durable work queues")
    serve.add_argument("--role", choices=ROLES, default="all")
    serve.add_argument("--layers", help="comma-separated layers to serve (default: all)")
    serve.add_argument("--llm", help="none | anthropic | scripted:FILE")
    serve.add_argument("--metrics-port", type=int, help="serve Prometheus /metrics on this port")
    serve.set_defaults(func=_runner(_serve))

    submit = sub.add_parser("submit", help="publish actions for review")
    common(submit)
    submit.add_argument("sources", nargs="+", help="FILE.json (ActionContext), FILE.diff or -")
    submit.add_argument("--wait", action="store_true", help="wait for and print the decision")
    submit.add_argument("--timeout", type=float, default=300.0)
    submit.add_argument("--format", choices=["text", "json", "markdown"], default="text")
    submit.set_defaults(func=_runner(_submit))

    watch = sub.add_parser("watch", help="stream decisions")
    common(watch)
    watch.add_argument("--format", choices=["text", "json", "markdown"], default="text")
    watch.set_defaults(func=_runner(_watch))

    report = sub.add_parser("report", help="print a stored report by report or action id")
    common(report)
    report.add_argument("id")
    report.add_argument("--timeout", type=float, default=5.0)
    report.add_argument("--format", choices=["text", "json", "markdown"], default="text")
    report.set_defaults(func=_runner(_report))
