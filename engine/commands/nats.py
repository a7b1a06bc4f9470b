"""Commands against a running NATS: ``serve``, ``submit``, ``watch``, ``report``."""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import logging
import os
import signal
from collections.abc import Awaitable, Callable, Mapping, Sequence
from pathlib import Path

import anyio

from humangr.contracts import (
    ActionContext,
    ActionSubmitted,
    HumanLayerReport,
    Subjects,
    decode,
    encode,
)
from humangr.engine.actor import Actor, ActorSystem, SupervisionPolicy
from humangr.engine.bus import Bus
from humangr.engine.commands.common import connect_nats, load_actions, make_llm
from humangr.engine.commands.failure import UsageError
from humangr.engine.commands.inbox import add_serve_options, inbox_beside
from humangr.engine.commands.render import EXIT_CODES, render
from humangr.engine.commands.state import STATE_HELP, open_state
from humangr.engine.config import ReviewConfig
from humangr.engine.config_file import load_review_config, review_config
from humangr.engine.errors import BusTimeoutError, ConfigError, ContractError, EngineError
from humangr.engine.llm import LLMClient
from humangr.engine.metrics import Metrics
from humangr.engine.metrics_server import serve_metrics
from humangr.engine.redact import redact_url
from humangr.engine.review import action_hash
from humangr.engine.runtime import fetch_report, new_action_id, review_actors, submit_and_wait

__all__ = ["PIPELINE_ROLES", "ROLES", "add_parsers", "pipeline_factory", "resolve_roles"]

log = logging.getLogger("humangr.serve")
ROLES = ("supervisor", "layers", "agents", "monitor", "all")
PIPELINE_ROLES = {"agents": "humangr.actors.agent", "monitor": "humangr.actors.monitor"}
"""Roles served by the pipeline's actors, and the module that must provide them."""
PIPELINE_HOOK = "serve_actors"
"""``serve_actors(*, llm, root, state) -> Sequence[Actor]`` in a pipeline role's module."""


def pipeline_factory(role: str, module_name: str) -> Callable[..., Sequence[Actor]]:
    """The ``serve_actors`` hook of ``module_name``, or a ``ConfigError`` saying why ``role``
    cannot be served by this build."""
    try:
        found = importlib.util.find_spec(module_name) is not None
    except ModuleNotFoundError:
        found = False
    if not found:
        raise ConfigError(
            f"role {role!r} is not available yet: this build has no {module_name} module "
            "(the agent pipeline); serve supervisor or layers"
        )
    module = importlib.import_module(module_name)
    hook = getattr(module, PIPELINE_HOOK, None)
    if not callable(hook):
        raise ConfigError(
            f"role {role!r} is not available yet: {module_name} has no {PIPELINE_HOOK}() "
            "for humangr serve"
        )
    factory: Callable[..., Sequence[Actor]] = hook
    return factory


def resolve_roles(
    role: str, modules: Mapping[str, str] = PIPELINE_ROLES
) -> tuple[tuple[str, ...], dict[str, Callable[..., Sequence[Actor]]]]:
    """The roles ``--role`` stands for, and the factories of its pipeline roles.

    ``all`` is the review (supervisor and layers) plus every pipeline role this build
    provides (one that cannot be configured, e.g. agents without an LLM, is left out with a
    warning); naming a pipeline role it does not provide is a ``ConfigError``.
    """
    if role not in ROLES:
        raise ConfigError(f"unknown role {role!r}; one of {', '.join(ROLES)}")
    if role != "all":
        factories = {role: pipeline_factory(role, modules[role])} if role in modules else {}
        return (role,), factories
    factories = {}
    for name, module_name in modules.items():
        try:
            factories[name] = pipeline_factory(name, module_name)
        except ConfigError as exc:
            log.info("--role all: %s", exc)
    return ("supervisor", "layers", *factories), factories


def serve_config(args: argparse.Namespace) -> ReviewConfig:
    """The review settings of ``serve``: ``--config FILE`` (TOML), then the flags on top."""
    base = load_review_config(args.config) if args.config else ReviewConfig()
    return review_config(
        base,
        layers=ReviewConfig.parse_layers(args.layers) if args.layers else None,
        review_deadline_s=args.review_deadline,
        layer_deadline_s=args.layer_deadline,
    )


async def _serve(args: argparse.Namespace) -> int:
    config = serve_config(args)
    roles, factories = resolve_roles(args.role)
    llm = make_llm(args.llm) if set(roles) & {"layers", *PIPELINE_ROLES} else None
    # A Supervisor without its layers plans LLM runs unless told `--llm none`: layer workers
    # without an LLM then fail closed (needs_review) instead of silently reviewing less.
    llm_review = llm is not None if "layers" in roles else args.llm != "none"
    metrics = Metrics()
    async with anyio.create_task_group() as tg:
        if args.metrics_port is not None:
            port = await tg.start(
                serve_metrics, metrics.registry, args.metrics_host, args.metrics_port
            )
            print(f"humangr metrics on http://{args.metrics_host}:{port}/metrics", flush=True)
        try:
            await _serve_on_nats(args, config, roles, factories, llm, llm_review, metrics)
        finally:
            tg.cancel_scope.cancel()
    return 0


async def _serve_on_nats(
    args: argparse.Namespace,
    config: ReviewConfig,
    roles: tuple[str, ...],
    factories: Mapping[str, Callable[..., Sequence[Actor]]],
    llm: LLMClient | None,
    llm_review: bool,
    metrics: Metrics,
) -> None:
    bus = await connect_nats(
        args.nats, jetstream=args.jetstream, prefix=args.prefix, ack_wait=args.ack_wait
    )
    try:
        state = None
        if set(roles) & {"supervisor", *PIPELINE_ROLES}:
            state = await open_state(args.state, bus, prefix=args.prefix)
            print(f"humangr state: {state.description}", flush=True)
        actors: list[Actor] = review_actors(
            config,
            llm,
            roles=roles,
            llm_review=llm_review,
            state=state,
            resume_inflight=not args.jetstream,
        )
        for role, factory in factories.items():
            try:
                actors.extend(factory(llm=llm, root=Path(args.root), state=state))
            except ConfigError as exc:
                if args.role != "all":
                    raise
                log.warning("--role all: not serving %s: %s", role, exc)
                roles = tuple(r for r in roles if r != role)
        async with inbox_beside(args, bus, metrics):
            await _run_actors(args, bus, roles, actors, metrics)
    finally:
        await bus.close()


async def _run_actors(
    args: argparse.Namespace,
    bus: Bus,
    roles: Sequence[str],
    actors: Sequence[Actor],
    metrics: Metrics,
) -> None:
    policy = SupervisionPolicy()
    if args.ack_wait is not None:
        # Progress reports must reach JetStream well within the ack wait.
        policy = SupervisionPolicy(
            progress_interval=min(policy.progress_interval, args.ack_wait / 3)
        )
    system = ActorSystem(bus, subjects=Subjects(args.prefix), metrics=metrics, policy=policy)
    system.add(*actors)
    with anyio.open_signal_receiver(signal.SIGINT, signal.SIGTERM) as signals:
        async with system.running():
            print(f"humangr serving {', '.join(roles)} on {redact_url(args.nats)}", flush=True)
            async for signum in signals:
                log.warning("signal %s: draining", signum)
                break


async def _submit(args: argparse.Namespace) -> int:
    if args.final and not args.wait:
        raise UsageError("humangr submit", "--final waits past needs_review: give it with --wait")
    actions = load_actions(args.sources)
    bus = await connect_nats(args.nats)
    try:
        subjects = Subjects(args.prefix)
        worst = 0
        for name, action in actions:
            if not args.wait:
                submitted = ActionSubmitted(
                    action_id=new_action_id(), action=action, action_hash=action_hash(action)
                )
                await bus.publish(subjects.action_submit, encode(submitted))
                print(f"{name}: submitted as {submitted.action_id}")
                continue
            report = await _wait(bus, subjects, name, action, args)
            if report.action_hash != action_hash(action):
                raise EngineError(
                    f"{name}: the decision {report.report_id} is for another action (hash "
                    f"{report.action_hash[:16]}…, not {action_hash(action)[:16]}…); not trusted"
                )
            print(render(args.format, name, report, f"via {redact_url(args.nats)}"))
            worst = max(worst, EXIT_CODES[report.outcome])
        await bus.flush()
        return worst
    finally:
        await bus.close()


async def _wait(
    bus: Bus, subjects: Subjects, name: str, action: ActionContext, args: argparse.Namespace
) -> HumanLayerReport:
    action_id = new_action_id()
    try:
        return await submit_and_wait(
            bus, subjects, action, action_id=action_id, timeout=args.timeout, final=args.final
        )
    except BusTimeoutError:
        if not args.final:
            raise
        raise EngineError(
            f"{name}: no final decision on {action_id} within {args.timeout:g}s; if it needs "
            f"review, `humangr show {action_id}` and `humangr resolve {action_id}` decide it "
            "(--timeout waits longer)"
        ) from None


async def _watch(args: argparse.Namespace) -> int:
    bus = await connect_nats(args.nats)
    subjects = Subjects(args.prefix)
    try:
        async with bus.subscribe(subjects.decisions) as decisions:
            async for msg in decisions:
                try:
                    report = decode(msg.data, HumanLayerReport)
                except ContractError as exc:
                    log.warning("skipped a message on %s: %s", msg.subject, exc)
                    continue
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
    print(render(args.format, report.action_id, report, f"via {redact_url(args.nats)}"))
    return 0


def _runner(
    func: Callable[[argparse.Namespace], Awaitable[int]],
) -> Callable[[argparse.Namespace], int]:
    def run(args: argparse.Namespace) -> int:
        return anyio.run(func, args)

    return run


def add_parsers(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    def common(parser: argparse.ArgumentParser) -> None:
        parser.add_argument("--nats", required=True, help="NATS URL, e.g. nats://127.0.0.1:4222")
        parser.add_argument("--prefix", default="hl", help="subject prefix (default hl)")

    serve = sub.add_parser("serve", help="run the actors against NATS")
    common(serve)
    serve.add_argument("--jetstream", action="store_true", help="durable work queues")
    serve.add_argument(
        "--ack-wait",
        type=float,
        metavar="SECONDS",
        help="with --jetstream: how long work may stay unacknowledged (a worker died) before "
        "JetStream delivers it again (default 60)",
    )
    serve.add_argument(
        "--role",
        choices=ROLES,
        default="all",
        help="actors to run: supervisor, layers (layer workers), agents and monitor (the "
        "pipeline), or all of them (default); run roles as separate processes to scale",
    )
    serve.add_argument("--layers", help="comma-separated layers to serve (default: all)")
    serve.add_argument("--llm", help="none | anthropic | scripted:FILE")
    serve.add_argument("--state", default="auto", help=STATE_HELP)
    serve.add_argument(
        "--config", help="review settings from a TOML file (flags given here win over it)"
    )
    serve.add_argument(
        "--review-deadline",
        type=float,
        metavar="SECONDS",
        help="time a human gets to resolve a needs_review before it is rejected (default 86400)",
    )
    serve.add_argument(
        "--layer-deadline",
        type=float,
        metavar="SECONDS",
        help="time one layer gets for its runs; a late layer is an error (default 120)",
    )
    serve.add_argument(
        "--metrics-port",
        type=int,
        help="serve Prometheus /metrics on this port (0: a free port, printed at start)",
    )
    serve.add_argument(
        "--metrics-host",
        default="127.0.0.1",
        help="address of /metrics (default 127.0.0.1; 0.0.0.0 in containers)",
    )
    add_serve_options(serve)
    serve.add_argument(
        "--root",
        default=os.environ.get("HUMANGR_PROJECT_ROOT", "projects"),
        help="project files root of the pipeline roles (default $HUMANGR_PROJECT_ROOT or "
        "./projects)",
    )
    serve.set_defaults(func=_runner(_serve))

    submit = sub.add_parser("submit", help="publish actions for review")
    common(submit)
    submit.add_argument("sources", nargs="+", help="FILE.json (ActionContext), FILE.diff or -")
    submit.add_argument("--wait", action="store_true", help="wait for and print the decision")
    submit.add_argument(
        "--final",
        action="store_true",
        help="with --wait: wait past needs_review for the human's resolution (or the review "
        "deadline); give a --timeout long enough for a person",
    )
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
