"""``humangr pipeline unblock`` and ``humangr pipeline cancel``: a human's way out of ``blocked``.

In process (no ``--nats``) the command is checked against the persisted project first, then
the engine is started as by ``pipeline run`` (on the same state store), the ``PipelineCommand``
published and the project followed until it ends; a cancel also drops the project's orders and
reviews from the store. With ``--nats`` the command goes to a running engine and the status it
causes is printed (``--follow``: until the project ends).
"""

from __future__ import annotations

import argparse
import sys
from typing import Literal

import anyio

from humangr.actors.pipeline.ledger import WorkLedger
from humangr.cli.common import connect_nats, make_llm
from humangr.contracts import (
    DEFAULT_PREFIX,
    PipelineCommand,
    PipelineStatus,
    Subjects,
    decode,
    encode,
)
from humangr.contracts.types import utc_now
from humangr.engine.actor import Actor
from humangr.engine.errors import ConfigError, ContractError, EngineError, Refused
from humangr.engine.pipeline import CommandRefused, apply_command
from humangr.engine.redact import redact_seed_urls
from humangr.engine.state import StateStore

from .failure import describe
from .inputs import read_text
from .pipeline import (
    EXIT_CODES,
    PREFIX_HELP,
    STATE_OPTION_HELP,
    Kick,
    _load,
    _root,
    _run,
    pipeline_actors,
    summary,
    watch,
)

__all__ = ["add_human_parsers", "build_command", "command_exit_code", "human_command"]

DEFAULT_WAIT = 30.0


def build_command(args: argparse.Namespace) -> PipelineCommand:
    """The validated ``PipelineCommand`` of the arguments (``ContractError`` names the field)."""
    answers = getattr(args, "answers", None) or ""
    answers_file = getattr(args, "answers_file", None)
    if answers_file:
        answers = read_text(answers_file, "the answers")
    command: Literal["unblock", "cancel"] = args.pipeline_command
    draft = PipelineCommand(
        project_id=args.project,
        command=command,
        task_id=args.task,
        reviewer=args.reviewer,
        reason=args.reason,
        answers=answers,
        extra=getattr(args, "extra", 1),
        issued_at=utc_now(),
    )
    return decode(encode(draft), PipelineCommand)


def command_exit_code(state: str) -> int:
    """``0`` done or cancelled (what was asked), ``1`` blocked again, ``5`` still running."""
    return 0 if state in ("done", "cancelled") else EXIT_CODES[state]


def _kick(command: PipelineCommand) -> Kick:
    return lambda subjects: (subjects.pipeline_command(command.project_id), encode(command))


def _in_process(args: argparse.Namespace, command: PipelineCommand) -> int:
    from humangr.actors.pipeline.monitor import MonitorActor

    root = _root(args)
    store, project = _load(root, command.project_id)
    if project is None:
        raise ConfigError(f"no project {command.project_id} under {root}")
    step = apply_command(project, command, now=utc_now())
    llm = make_llm(args.llm)
    if llm is None and step.orders:
        raise ConfigError(
            f"{command.command} re-orders {step.orders[0].agent} "
            f"{step.orders[0].mode}: give an LLM (--llm anthropic or "
            f"--llm scripted:FILE)"
        )
    cancel = command.command == "cancel" and command.task_id is None

    def actors(state: StateStore) -> list[Actor]:
        if llm is None or cancel:
            return [MonitorActor(root, projects={command.project_id})]
        return pipeline_actors(llm, root, command.project_id, state)

    async def forget(state: StateStore) -> None:
        """A cancelled project's orders and reviews are dropped from the store."""
        ledger = WorkLedger(state)
        await ledger.open()
        await ledger.forget_project(command.project_id)

    target = f"task {command.task_id}" if command.task_id else "project"
    print(
        f"{command.command} of {target} {command.project_id} by {command.reviewer} in {store.dir}",
        flush=True,
    )
    state = anyio.run(_run, args, _kick(command), actors, llm, forget if cancel else None)
    _, final = _load(root, command.project_id)
    if final is None:
        raise ConfigError(f"project {command.project_id} disappeared from {root}")
    print(summary(final, store))
    if state == "running":
        print(
            f"humangr pipeline {command.command}: not finished within {args.deadline:g}s",
            file=sys.stderr,
        )
    return command_exit_code(final.state)


async def _remote(args: argparse.Namespace, command: PipelineCommand) -> PipelineStatus | None:
    bus = await connect_nats(args.nats, prefix=args.prefix)
    try:

        def enough(status: PipelineStatus) -> bool:
            return not args.follow or status.state != "running"

        return await watch(
            bus,
            Subjects(args.prefix),
            command.project_id,
            _kick(command),
            args.deadline if args.follow else args.wait,
            stop=enough,
        )
    finally:
        await bus.close()


def _over_nats(args: argparse.Namespace, command: PipelineCommand) -> int:
    """Exit ``0`` once the engine applied the command (``--follow``: as in process)."""
    status = anyio.run(_remote, args, command)
    if status is None and args.follow:
        print(
            f"humangr pipeline {command.command}: not finished within {args.deadline:g}s",
            file=sys.stderr,
        )
        return EXIT_CODES["running"]
    if status is None:
        raise EngineError(
            f"no status from the engine at {redact_seed_urls(args.nats)} within {args.wait:g}s "
            "(is a Monitor running there?)"
        )
    print(
        f"project {status.project_id}: {status.state.upper()} (stage {status.stage}); "
        f"next: {status.next_owner}"
    )
    return command_exit_code(status.state) if args.follow else 0


def human_command(args: argparse.Namespace) -> int:
    """``pipeline unblock|cancel``: in process, or sent to the engine with ``--nats``."""
    Subjects(args.prefix)
    try:
        command = build_command(args)
    except ContractError as exc:
        raise EngineError(f"invalid command: {describe(exc)}") from None
    try:
        return _over_nats(args, command) if args.nats else _in_process(args, command)
    except (CommandRefused, Refused) as exc:
        raise EngineError(f"refused: {exc}") from None


def add_human_parsers(
    commands: argparse._SubParsersAction[argparse.ArgumentParser], root_help: str
) -> None:
    for name, text in (
        (
            "unblock",
            "re-order the step a blocked project or task stopped at, with extra rounds or reworks",
        ),
        (
            "cancel",
            "cancel a project that has not ended (running, waiting for a human, or blocked), "
            "or with --task one task (blocked, or in progress) while the project goes on",
        ),
    ):
        p = commands.add_parser(name, help=text, description=text)
        p.add_argument("project", help="project id")
        p.add_argument(
            "--task",
            help="the task (unblock: the blocked one, omit for a stage-level block; cancel: a "
            "blocked or in-progress task, omit to cancel the whole project)",
        )
        p.add_argument("--reviewer", required=True, help="who decides (recorded)")
        p.add_argument(
            "--reason",
            required=True,
            help="why (20..2000 characters; recorded, and given to the agent)",
        )
        if name == "unblock":
            answers = p.add_mutually_exclusive_group()
            answers.add_argument(
                "--answers",
                help="answers to the agent's NEEDS_INFO questions (inputs.human_answers)",
            )
            answers.add_argument("--answers-file", help="the answers, read from a file")
            p.add_argument(
                "--extra",
                type=int,
                default=1,
                help="extra reworks (task) or rounds (stage) granted, 1..10",
            )
        p.add_argument("--root", help=root_help)
        p.add_argument("--state", help=f"in process: {STATE_OPTION_HELP}")
        p.add_argument("--prefix", default=DEFAULT_PREFIX, help=PREFIX_HELP)
        p.add_argument(
            "--llm",
            help="anthropic | scripted:FILE (in process; needed when the "
            "command re-orders an agent)",
        )
        p.add_argument(
            "--nats",
            help="send the command to the engine running at this URL (a cluster: its URLs, "
            "comma-separated) instead of running it in process",
        )
        p.add_argument(
            "--deadline",
            type=float,
            default=3600.0,
            help="in process: seconds to follow the resumed project",
        )
        p.add_argument(
            "--wait",
            type=float,
            default=DEFAULT_WAIT,
            help="with --nats: seconds to wait for the engine's answer",
        )
        p.add_argument(
            "--follow", action="store_true", help="with --nats: follow the project until it ends"
        )
        p.set_defaults(func=human_command)
