"""``humangr serve``: run the actors of one or every role against NATS."""

from __future__ import annotations

import argparse
import dataclasses
import importlib
import importlib.util
import logging
import signal
from collections.abc import Callable, Mapping, Sequence

import anyio

from humangr.actors.roles import review_actors
from humangr.cli.common import (
    DEFAULT_ROOT,
    PROJECTS_ROOT_ENV,
    connect_nats,
    make_llm,
    nats_options,
    projects_root,
    runner,
)
from humangr.cli.inbox import add_serve_options, inbox_beside
from humangr.cli.policy import add_policy_option, with_policy
from humangr.cli.state import STATE_HELP, open_state
from humangr.contracts import Subjects
from humangr.engine.actor import Actor, ActorSystem, SupervisionPolicy
from humangr.engine.bus import Bus
from humangr.engine.config import ReviewConfig
from humangr.engine.config_file import load_nats_replicas, load_review_config, review_config
from humangr.engine.errors import ConfigError
from humangr.engine.llm import LLMClient
from humangr.engine.metrics import Metrics
from humangr.engine.policy import load_policy
from humangr.engine.redact import redact_seed_urls
from humangr.engine.signing import load_signing_key
from humangr.engine.worker_keys import parse_trusted_workers
from humangr.metrics_server import serve_metrics

from .serve_trust import (
    has_credentials,
    trusted_workers_of,
    warn_without_permissions,
    worker_key_of,
)

__all__ = [
    "PIPELINE_ROLES",
    "ROLES",
    "add_parsers",
    "has_credentials",
    "mode_lines",
    "pipeline_factory",
    "resolve_roles",
    "serve_replicas",
    "warn_without_permissions",
]

log = logging.getLogger("humangr.serve")
ROLES = ("supervisor", "layers", "agents", "monitor", "all")
PIPELINE_ROLES = {
    "agents": "humangr.actors.pipeline.agent",
    "monitor": "humangr.actors.pipeline.supervisor",
}
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
    config = review_config(
        base,
        layers=ReviewConfig.parse_layers(args.layers) if args.layers else None,
        review_deadline_s=args.review_deadline,
        layer_deadline_s=args.layer_deadline,
    )
    config = with_policy(config, getattr(args, "policy", None))
    shadow = getattr(args, "shadow_policy", None)
    return dataclasses.replace(config, shadow=load_policy(shadow)) if shadow else config


def serve_replicas(args: argparse.Namespace) -> int:
    """The replica count of ``serve``: ``--replicas``, else ``[nats] replicas`` of ``--config``,
    else 1."""
    if args.replicas is not None:
        return int(args.replicas)
    found = load_nats_replicas(args.config) if args.config else None
    return 1 if found is None else found


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
    trusted = parse_trusted_workers(args.trust_workers) if "supervisor" in roles else None
    replicas = serve_replicas(args)
    bus = await connect_nats(
        args.nats,
        jetstream=args.jetstream,
        prefix=args.prefix,
        ack_wait=args.ack_wait,
        replicas=replicas,
        update_streams=args.update_streams,
    )
    try:
        warn_without_permissions(args.nats)
        key = worker_key = None
        if "layers" in roles:
            worker_key = worker_key_of(args)
        if "supervisor" in roles:
            key, source = load_signing_key(args.signing_key)
            print(f"humangr signs decisions with {key.public_key} (key: {source})", flush=True)
            trusted = trusted_workers_of(args, trusted, worker_key)
            if key.public_key in trusted:
                log.warning(
                    "the decision key %s is also a trusted worker key: a layer worker holding "
                    "it could sign decisions; give the workers a key of their own",
                    key.public_key,
                )
        for line in mode_lines(roles, llm, llm_review):
            print(line, flush=True)
        state = None
        if set(roles) & {"supervisor", *PIPELINE_ROLES}:
            state = await open_state(
                args.state,
                bus,
                prefix=args.prefix,
                replicas=replicas,
                update_replicas=args.update_streams,
            )
            print(f"humangr state: {state.description}", flush=True)
        actors: list[Actor] = review_actors(
            config,
            llm,
            roles=roles,
            llm_review=llm_review,
            state=state,
            resume_inflight=not args.jetstream,
            signing_key=key,
            trusted_workers=trusted or (),
            worker_key=worker_key,
        )
        for role, factory in factories.items():
            try:
                actors.extend(factory(llm=llm, root=projects_root(args.root), state=state))
            except ConfigError as exc:
                if args.role != "all":
                    raise
                log.warning("--role all: not serving %s: %s", role, exc)
                roles = tuple(r for r in roles if r != role)
        async with inbox_beside(args, bus, metrics, key.public_key if key else None):
            await _run_actors(args, bus, roles, actors, metrics)
    finally:
        await bus.close()


def mode_lines(roles: Sequence[str], llm: LLMClient | None, llm_review: bool) -> list[str]:
    """What ``serve`` says at start of the mode each review role runs in."""
    lines = []
    if "supervisor" in roles:
        mode = (
            "LLM review: runs planned for the layers whose workers have an LLM (a layer whose "
            "live workers all have none is local checks only)"
            if llm_review
            else "local checks only (--llm none): no LLM run is planned"
        )
        lines.append(f"humangr supervisor mode: {mode}")
    if "layers" in roles:
        if llm is None:
            mode = "local checks only: no LLM configured (--llm, or ANTHROPIC_API_KEY)"
        else:
            model = getattr(llm, "model", "")
            mode = f"LLM runs ({type(llm).__name__}{f', {model}' if model else ''})"
        lines.append(f"humangr layers mode: {mode}")
    return lines


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
    # Only the Supervisor's NATS user may read and delete any work message: it alone claims
    # and dead-letters the messages, of every role, that exhausted their deliveries.
    system = ActorSystem(
        bus,
        subjects=Subjects(args.prefix),
        metrics=metrics,
        policy=policy,
        claim_exhausted="supervisor" in roles,
    )
    system.add(*actors)
    with anyio.open_signal_receiver(signal.SIGINT, signal.SIGTERM) as signals:
        async with system.running():
            print(
                f"humangr serving {', '.join(roles)} on {redact_seed_urls(args.nats)}", flush=True
            )
            async for signum in signals:
                log.warning("signal %s: draining", signum)
                break


def _replicas(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if not 1 <= value <= 5:
        raise argparse.ArgumentTypeError(f"{text!r} is not a replica count from 1 to 5")
    return value


def add_parsers(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    serve = sub.add_parser("serve", help="run the actors against NATS")
    nats_options(serve)
    serve.add_argument("--jetstream", action="store_true", help="durable work queues")
    serve.add_argument(
        "--ack-wait",
        type=float,
        metavar="SECONDS",
        help="with --jetstream: how long work may stay unacknowledged (a worker died) before "
        "JetStream delivers it again (default 60)",
    )
    serve.add_argument(
        "--replicas",
        type=_replicas,
        metavar="N",
        help="replicas of the JetStream streams and KV buckets (default: [nats] replicas of "
        "--config, else 1; a NATS cluster: usually 3). Every process of a deployment must give "
        "the same: an existing stream or bucket with another count is refused at start, not "
        "changed",
    )
    serve.add_argument(
        "--update-streams",
        action="store_true",
        help="operator only: change existing streams and buckets to --replicas instead of "
        "refusing to start",
    )
    serve.add_argument(
        "--role",
        choices=ROLES,
        default="all",
        help="actors to run: supervisor, layers (layer workers), agents and monitor (the "
        "pipeline), or all of them (default); run roles as separate processes to scale",
    )
    serve.add_argument("--layers", help="comma-separated layers to serve (default: all)")
    add_policy_option(serve)
    serve.add_argument(
        "--shadow-policy",
        metavar="FILE",
        help="a second policy evaluated beside --policy on every action, never deciding: "
        "disagreements are counted (humangr_shadow_disagreements_total) and logged",
    )
    serve.add_argument("--llm", help="none | anthropic | scripted:FILE")
    serve.add_argument("--state", default="auto", help=STATE_HELP)
    serve.add_argument(
        "--signing-key",
        metavar="FILE",
        help="the seed the Supervisor signs decisions with (default: $HUMANGR_SIGNING_SEED, "
        "$HUMANGR_SIGNING_KEY_FILE, else ~/.humangr/signing.seed, created on first use); "
        "`humangr key` prints its public key",
    )
    serve.add_argument(
        "--trust-workers",
        metavar="KEYS|FILE",
        help="the Supervisor accepts layer reports signed by these worker keys only: N… public "
        "keys separated by commas, or a file with one per line (default: "
        "$HUMANGR_TRUST_WORKERS, else this machine's worker key); other reports are "
        "dead-lettered",
    )
    serve.add_argument(
        "--worker-key",
        metavar="FILE",
        help="the seed layer workers sign their reports with (default: $HUMANGR_WORKER_SEED, "
        "$HUMANGR_WORKER_KEY_FILE, else ~/.humangr/worker.seed, created on first use); its "
        "public key is printed at start",
    )
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
        help=f"project files root of the pipeline roles (default ${PROJECTS_ROOT_ENV} or "
        f"./{DEFAULT_ROOT})",
    )
    serve.set_defaults(func=runner(_serve))
