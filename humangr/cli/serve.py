"""``humangr serve``: run the actors of one or every role against NATS."""

from __future__ import annotations

import argparse
import dataclasses
import logging
import signal
from collections.abc import Callable, Mapping, Sequence

import anyio

from humangr.actors.roles import review_actors
from humangr.cli.common import (
    connect_nats,
    make_llm,
    projects_root,
    runner,
)
from humangr.cli.inbox import inbox_beside
from humangr.cli.policy import with_policy
from humangr.cli.state import open_state
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

from .serve_args import add_serve_arguments
from .serve_roles import PIPELINE_ROLES, ROLES, pipeline_factory, resolve_roles
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


def add_parsers(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    serve = sub.add_parser("serve", help="run the actors against NATS")
    add_serve_arguments(serve)
    serve.set_defaults(func=runner(_serve))
