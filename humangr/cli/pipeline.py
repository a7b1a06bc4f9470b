"""``humangr pipeline run|status|unblock|cancel``: the agent pipeline of one project."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path

import anyio

from humangr.actors.pipeline.ledger import WorkLedger
from humangr.actors.pipeline.storage import ProjectStore
from humangr.actors.roles import run_engine
from humangr.cli.common import connect_nats, make_llm, projects_root
from humangr.cli.inputs import read_text
from humangr.cli.state import open_state
from humangr.contracts import (
    DeadLetter,
    HumanLayerReport,
    Limits,
    PipelineStart,
    PipelineStatus,
    Subjects,
    decode,
)
from humangr.contracts import encode as encode_message
from humangr.engine.actor import Actor
from humangr.engine.bus import Bus
from humangr.engine.errors import ConfigError, ContractError, EngineError, Refused
from humangr.engine.llm import LLMClient
from humangr.engine.pipeline import ProjectState, next_step, render_status, render_task_state
from humangr.engine.state import StateStore

__all__ = [
    "EXIT_CODES",
    "Kick",
    "pipeline_actors",
    "run_command",
    "state_path",
    "status_command",
    "watch",
]

EXIT_CODES = {"done": 0, "blocked": 1, "cancelled": 4, "running": 5}
"""Exit codes of the pipeline commands by project state; an error exits ``EXIT_ERROR`` (3),
as every command does."""
STATE_FILE = ".humangr-state.db"
"""A project's durable state in ``pipeline run``: the pipeline Supervisor's orders and reviews,
the review engine's decisions and pending reviews, and the circuit breakers (SQLite)."""
PREFIX_HELP = "subject prefix on NATS (default hl; the engine's serve --prefix)"
STATE_OPTION_HELP = (
    "where the run keeps its orders, reviews and circuit breakers: the path of a SQLite file "
    f"(default <root>/<project>/{STATE_FILE}), kv (JetStream key-value, with --nats) or memory "
    "(nothing survives the process)"
)


def _root(args: argparse.Namespace) -> Path:
    return projects_root(args.root)


def _load(root: Path, project_id: str) -> tuple[ProjectStore, ProjectState | None]:
    from humangr.actors.pipeline.monitor import load_project

    store = ProjectStore(root, project_id)
    return store, load_project(store)


def state_path(root: Path, project_id: str) -> Path:
    """Where ``pipeline run`` keeps a project's durable state by default."""
    return root / project_id / STATE_FILE


def pipeline_actors(
    llm: LLMClient, root: Path, project_id: str, state: StateStore | None = None
) -> list[Actor]:
    """One actor per agent (the circuit breakers in ``state``), the pipeline Supervisor (its
    orders and reviews in ``state``) and the Monitor of ``project_id`` alone — in that order,
    so that each listens before the one that sends to it starts."""
    from humangr.actors.pipeline.agent import agent_actors
    from humangr.actors.pipeline.monitor import MonitorActor
    from humangr.actors.pipeline.supervisor import PipelineSupervisor
    from humangr.engine.enforcer import BreakerStore

    return [
        *agent_actors(llm, breakers=BreakerStore(state)),
        PipelineSupervisor(root, state=state),
        MonitorActor(root, projects={project_id}),
    ]


def _progress(status: PipelineStatus) -> str:
    task = next((t for t in status.tasks if t.status.value not in ("new", "done")), None)
    where = (
        f" | {task.task_id} {task.status} attempt {task.attempt} rework {task.rework}"
        if task
        else ""
    )
    return f"[{status.stage}] {status.state}{where} | next: {status.next_owner} | {status.message}"


def _decision(report: HumanLayerReport) -> str:
    line = f"  review {report.action_id}: {report.outcome.value.upper()}"
    return line + (f" — {report.blocking_reasons[0]}" if report.blocking_reasons else "")


def summary(project: ProjectState, store: ProjectStore) -> str:
    """The final summary: state, next owner, tasks and where the files are."""
    lines = [
        f"project {project.project_id}: {project.state.upper()} (stage {project.stage})",
        f"next: {next_step(project)}",
    ]
    for t in project.tasks:
        lines.append(
            f"  {t.task_id} {t.status.value:<14} attempts {t.attempt} rework "
            f"{t.rework}  {', '.join(t.code_refs)}"
        )
    lines.append(
        f"files: {len(store.list())} under {store.dir}; status: "
        f"{store.dir / 'docs/monitor/STATUS.md'}"
    )
    return "\n".join(lines)


Kick = Callable[[Subjects], tuple[str, bytes]]
"""The message that sets the project going: (subject, payload) under the engine's subjects."""


def _ended(status: PipelineStatus) -> bool:
    return status.state != "running"


async def watch(
    bus: Bus,
    subjects: Subjects,
    project_id: str,
    kick: Kick | None,
    deadline: float,
    *,
    stop: Callable[[PipelineStatus], bool] = _ended,
) -> PipelineStatus | None:
    """Publish ``kick``, then print progress and review decisions until ``stop`` holds for a
    status; that status (``None`` if ``deadline`` came first). Raises ``Refused`` when the
    engine dead-letters ``kick``."""
    dev_agent = f"dev-{project_id}"[:64]
    last: PipelineStatus | None = None
    sent = kick(subjects) if kick is not None else None
    refusal: list[str] = []
    async with (
        bus.subscribe(subjects.pipeline_status(project_id)) as statuses,
        bus.subscribe(subjects.decision(dev_agent)) as decisions,
        bus.subscribe(subjects.dlq) as letters,
        anyio.create_task_group() as tg,
    ):
        following = anyio.CancelScope(deadline=anyio.current_time() + deadline)

        async def show_decisions() -> None:
            async for msg in decisions:
                print(_decision(decode(msg.data, HumanLayerReport)), flush=True)

        async def catch_refusal() -> None:
            async for msg in letters:
                try:
                    letter = decode(msg.data, DeadLetter)
                except ContractError:
                    continue
                if (
                    sent
                    and letter.subject == sent[0]
                    and (
                        letter.correlation_id == project_id
                        or (letter.raw and sent[1].startswith(letter.raw))
                    )
                ):
                    refusal.append(letter.error)
                    following.cancel()
                    return

        tg.start_soon(show_decisions)
        tg.start_soon(catch_refusal)
        if sent is not None:
            await bus.publish(*sent)
        with following:
            async for msg in statuses:
                status = decode(msg.data, PipelineStatus)
                print(_progress(status), flush=True)
                if stop(status):
                    last = status
                    break
        tg.cancel_scope.cancel()
    if refusal:
        raise Refused(refusal[0], refusal[0])  # the dead letter says what was refused
    return last


def _start_kick(start: PipelineStart) -> Kick:
    return lambda subjects: (subjects.pipeline_start, encode_message(start))


Actors = Callable[[StateStore], list[Actor]]
"""The actors of a run, given its state store."""
Finish = Callable[[StateStore], Awaitable[None]]


async def _run(
    args: argparse.Namespace,
    kick: Kick | None,
    actors: Actors,
    llm: LLMClient | None,
    finish: Finish | None = None,
) -> str:
    prefix = args.prefix
    bus = await connect_nats(args.nats, prefix=prefix) if args.nats else None
    state: StateStore | None = None
    try:
        spec = args.state or str(state_path(_root(args), args.project))
        state = await open_state(spec, bus, prefix=prefix)
        await WorkLedger(state).open()
        async with run_engine(
            bus=bus,
            llm=llm,
            subjects=Subjects(prefix),
            extra_actors=actors(state),
            state=state,
        ) as engine:
            last = await watch(engine.bus, engine.subjects, args.project, kick, args.deadline)
        if finish is not None:
            await finish(state)
        return last.state if last is not None else "running"
    finally:
        if state is not None:
            await state.close()
        if bus is not None:
            await bus.close()


def run_command(args: argparse.Namespace) -> int:
    """``pipeline run``: start or resume a project and follow it to its end."""
    root = _root(args)
    Subjects(args.prefix)
    spec = read_text(args.spec_file, "the spec")
    store, existing = _load(root, args.project)
    if existing is not None and existing.state != "running":
        hint = (
            f"; unblock or cancel it: `humangr pipeline unblock|cancel {args.project} …`"
            if existing.state == "blocked"
            else ""
        )
        raise ConfigError(
            f"project {args.project} already ended {existing.state}; "
            f"see `humangr pipeline status {args.project} --root {root}`{hint}"
        )
    llm = make_llm(args.llm)
    if llm is None:
        raise ConfigError("the pipeline needs an LLM: --llm anthropic or --llm scripted:FILE")
    limits = Limits(
        max_rounds=args.max_rounds, max_rework=args.max_rework, timeout_sec=args.timeout
    )
    start = (
        None
        if existing is not None
        else decode(
            encode_message(
                PipelineStart(
                    project_id=args.project, spec_raw=spec, variant=args.variant, limits=limits
                )
            ),
            PipelineStart,
        )
    )
    print(
        f"{'resuming' if start is None else 'starting'} project {args.project} in {store.dir}",
        flush=True,
    )
    if existing is not None and existing.waiting_human:
        print(f"project {args.project} waits for a human review: {existing.message}", flush=True)

    def actors(state: StateStore) -> list[Actor]:
        return pipeline_actors(llm, root, args.project, state)

    state = anyio.run(_run, args, _start_kick(start) if start else None, actors, llm)
    _, final = _load(root, args.project)
    if final is None:
        raise EngineError(f"project {args.project} never started under {root}")
    print(summary(final, store))
    if state == "running":
        print(f"humangr pipeline run: not finished within {args.deadline:g}s", file=sys.stderr)
    return EXIT_CODES[final.state]


def status_command(args: argparse.Namespace) -> int:
    """``pipeline status``: the project's STATUS.md (or TASK_STATE.json); exit by its state."""
    store, project = _load(_root(args), args.project)
    if project is None:
        raise ConfigError(f"no project {args.project} under {store.root}")
    print(render_task_state(project) if args.format == "json" else render_status(project))
    return EXIT_CODES[project.state]
