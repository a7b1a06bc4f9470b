"""The command line of ``humangr serve``: its options, with their help and defaults."""

from __future__ import annotations

import argparse

from humangr.cli.common import DEFAULT_ROOT, PROJECTS_ROOT_ENV, nats_options
from humangr.cli.inbox import add_serve_options
from humangr.cli.policy import add_policy_option
from humangr.cli.state import STATE_HELP

from .serve_roles import ROLES

__all__ = ["add_serve_arguments"]


def _replicas(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if not 1 <= value <= 5:
        raise argparse.ArgumentTypeError(f"{text!r} is not a replica count from 1 to 5")
    return value


def add_serve_arguments(serve: argparse.ArgumentParser) -> None:
    """Add the options of ``humangr serve`` to its parser ``serve``."""
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
