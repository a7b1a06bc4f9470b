"""The ``humangr pipeline`` command line: every sub-command and its options."""

from __future__ import annotations

import argparse

from humangr.contracts import DEFAULT_PREFIX

from .common import DEFAULT_ROOT, PROJECTS_ROOT_ENV
from .pipeline import (
    PREFIX_HELP,
    STATE_OPTION_HELP,
    run_command,
    status_command,
)
from .pipeline_human import add_human_parsers

__all__ = ["add_parsers"]


def add_parsers(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """``humangr pipeline``: run and status here, the human's commands from ``pipeline_human``."""
    pipeline = sub.add_parser("pipeline", help="run the agent pipeline (CTO → … → QA)")
    commands = pipeline.add_subparsers(dest="pipeline_command", required=True, metavar="ACTION")
    root_help = f"projects root (default ${PROJECTS_ROOT_ENV} or ./{DEFAULT_ROOT})"

    run = commands.add_parser("run", help="run a project from a free-text spec to done/blocked")
    run.add_argument("--spec-file", required=True, help="the free-text spec (markdown or text)")
    run.add_argument("--project", required=True, help="project id: [a-z0-9][a-z0-9_-]{0,62}")
    run.add_argument("--root", help=root_help)
    run.add_argument(
        "--llm", help="anthropic | scripted:FILE (default: anthropic when ANTHROPIC_API_KEY is set)"
    )
    run.add_argument(
        "--nats",
        help="run the actors over NATS at this URL (a cluster: its URLs, comma-separated; "
        "default: in process)",
    )
    run.add_argument("--state", help=STATE_OPTION_HELP)
    run.add_argument("--prefix", default=DEFAULT_PREFIX, help=PREFIX_HELP)
    run.add_argument("--variant", default="generic", help="dev/qa prompt variant")
    run.add_argument("--max-rounds", type=int, default=3, help="CTO revision rounds per stage")
    run.add_argument("--max-rework", type=int, default=3, help="reworks per task")
    run.add_argument("--timeout", type=float, default=300.0, help="seconds per agent call")
    run.add_argument("--deadline", type=float, default=3600.0, help="seconds for the whole run")
    run.set_defaults(func=run_command)

    status = commands.add_parser("status", help="print a project's STATUS.md or TASK_STATE.json")
    status.add_argument("project", help="project id")
    status.add_argument("--root", help=root_help)
    status.add_argument("--format", choices=["text", "json"], default="text")
    status.set_defaults(func=status_command)

    add_human_parsers(commands, root_help)
