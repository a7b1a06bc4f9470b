"""``MonitorActor``: the deterministic state machine that drives each project
(docs/design.md#the-monitor)."""

from __future__ import annotations

import logging
import time
import uuid
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

import anyio

from humangr.actors.pipeline.storage import ProjectStore, resolve_root, validate_project_id
from humangr.contracts import (
    Artifact,
    Handoff,
    PipelineCommand,
    PipelineStart,
    PipelineStatus,
    TaskStatus,
)
from humangr.contracts.types import utc_now
from humangr.engine.actor import Actor, ActorContext, Route
from humangr.engine.bus import Msg
from humangr.engine.errors import MessageRefused, PathPolicyError, StateFileError
from humangr.engine.pipeline import (
    STATUS_PATH,
    TASK_STATE_PATH,
    CommandRefused,
    ProjectState,
    Step,
    TransitionRefused,
    apply_command,
    events_since,
    on_handoff,
    pipeline_status,
    render_status,
    render_task_state,
    start_project,
)

from .files import STATE_REMEDY, load_project

__all__ = ["STATE_REMEDY", "MonitorActor", "load_project"]

log = logging.getLogger("humangr.monitor")
now = time.monotonic


@dataclass(frozen=True, slots=True)
class _Reissue:
    """When a project's pending order is issued again next, and the last interval."""

    order_id: str
    at: float
    delay: float


class MonitorActor(Actor):
    """Consumes ``PipelineStart``, ``Handoff``s and humans' ``PipelineCommand``s (unblock,
    cancel); publishes ``WorkOrder``s and ``PipelineStatus``; rewrites ``TASK_STATE.json`` and
    ``STATUS.md`` on every change. A command that does not apply is dead-lettered with why.

    On every (re)start it loads the running projects under ``root`` (only ``projects``, when
    given) and issues their pending orders again; until a project moves on, its pending order
    is issued again after ``reissue_first`` seconds, then at doubling intervals up to
    ``reissue_every`` — also while it waits for a human. The pipeline Supervisor runs an order
    once whatever the number of issues, and answers an order it finished with its hand-off
    again, so an order or a hand-off lost with a process (or on the bus) is recovered.
    Hand-offs are handled one at a time; a refused task transition is logged and the
    hand-off dead-lettered, leaving the state unchanged. A project whose state file cannot be
    loaded (``StateFileError``) is reported once as ``blocked`` on (re)start, every message
    about it is dead-lettered naming the file, and the other projects go on.
    """

    name = "monitor"
    max_concurrency = 1

    def __init__(
        self,
        root: Path | str,
        *,
        clock: Callable[[], datetime] = utc_now,
        projects: Collection[str] | None = None,
        reissue_first: float = 2.0,
        reissue_every: float = 30.0,
        tick: float = 0.2,
    ) -> None:
        self.root = resolve_root(root)
        self.clock = clock
        self.only = None if projects is None else frozenset(projects)
        self.reissue_first = reissue_first
        self.reissue_every = reissue_every
        self.tick = tick
        self._projects: dict[str, ProjectState] = {}
        self._stores: dict[str, ProjectStore] = {}
        self._damaged: dict[str, str] = {}
        self._reissue: dict[str, _Reissue] = {}

    def routes(self, ctx: ActorContext) -> Sequence[Route[Any]]:
        self._ctx = ctx
        s = ctx.subjects
        return [
            Route(s.pipeline_start, PipelineStart, self._on_start, queue="monitor"),
            Route(s.handoffs, Handoff, self._on_handoff, queue="monitor"),
            Route(s.pipeline_commands, PipelineCommand, self._on_command, queue="monitor"),
        ]

    def project(self, project_id: str) -> ProjectState | None:
        """The in-memory state of a project (for tests and status output)."""
        return self._projects.get(project_id)

    def _store(self, project_id: str) -> ProjectStore:
        store = self._stores.get(project_id)
        if store is None:
            store = self._stores[project_id] = ProjectStore(self.root, project_id)
        return store

    async def setup(self, ctx: ActorContext) -> None:
        self._projects.clear()
        self._damaged.clear()
        resumed = await anyio.to_thread.run_sync(self._scan)
        self._reissue.clear()
        for project in resumed:
            self._projects[project.project_id] = project
            log.info("resuming project %s at stage %s", project.project_id, project.stage)
            if project.pending is not None:
                self._reissue[project.project_id] = _Reissue(project.pending.order_id, 0.0, 0.0)
            await self._publish_status(project)
        for project_id, error in self._damaged.items():
            blocked = PipelineStatus(
                project_id=project_id,
                stage="unknown",
                state="blocked",
                next_owner="human",
                message=error[:2_000],
            )
            await ctx.publish(ctx.subjects.pipeline_status(project_id), blocked)

    def _scan(self) -> list[ProjectState]:
        """The running projects under the root; a project whose state cannot be loaded is
        logged once, reported as blocked (``_damaged``) and left alone."""
        if not self.root.is_dir():
            return []
        found = []
        for folder in sorted(self.root.iterdir()):
            try:
                project_id = validate_project_id(folder.name)
            except PathPolicyError:
                continue
            if self.only is not None and project_id not in self.only:
                continue
            if not (folder.is_dir() or folder.is_symlink()):
                continue
            try:
                project = load_project(self._store(project_id))
            except (StateFileError, PathPolicyError) as exc:
                log.error("project %s not resumed: %s", project_id, exc)
                self._damaged[project_id] = str(exc)
                continue
            if project is not None and project.state == "running":
                found.append(project)
        return found

    def _mine(self, project_id: str, what: str) -> None:
        if self.only is not None and project_id not in self.only:
            raise MessageRefused(
                f"{what} for project {project_id} refused: this Monitor drives only "
                f"{', '.join(sorted(self.only))}"
            )

    async def _on_start(self, start: PipelineStart, _: Msg) -> None:
        self._mine(start.project_id, "start")
        try:
            store = self._store(validate_project_id(start.project_id))
        except PathPolicyError as exc:
            raise MessageRefused(str(exc)) from None
        try:
            known = self._projects.get(start.project_id) or await anyio.to_thread.run_sync(
                load_project, store
            )
        except StateFileError as exc:
            raise MessageRefused(f"project {start.project_id} already exists: {exc}") from None
        if known is not None:
            raise MessageRefused(
                f"project {start.project_id} already exists ({known.state}, stage "
                f"{known.stage}); use another project id or `humangr pipeline status`"
            )
        step = start_project(start, run_id=uuid.uuid4().hex[:8], now=self.clock())
        await self._apply(step)

    async def _known(self, project_id: str, what: str) -> ProjectState:
        """The project in memory or on disk; an unknown or invalid one refuses the message."""
        project = self._projects.get(project_id)
        if project is not None:
            return project
        self._mine(project_id, what)
        try:
            store = self._store(validate_project_id(project_id))
        except PathPolicyError as exc:
            raise MessageRefused(str(exc)) from None
        try:
            project = await anyio.to_thread.run_sync(load_project, store)
        except StateFileError as exc:
            raise MessageRefused(f"{what} for project {project_id} refused: {exc}") from None
        if project is None:
            raise MessageRefused(
                f"{what} for unknown project {project_id} (none under {self.root})"
            )
        self._projects[project_id] = project
        return project

    async def _on_command(self, command: PipelineCommand, msg: Msg) -> None:
        addressed = self._ctx.subjects.last_token(msg.subject, 1)
        if addressed != command.project_id:
            raise MessageRefused(
                f"{command.command} for project {command.project_id} was sent "
                f"on the subject of project {addressed}"
            )
        project = await self._known(command.project_id, command.command)
        try:
            step = apply_command(project, command, now=self.clock())
        except CommandRefused as exc:  # TransitionRefused included
            log.warning(
                "project %s: %s by %s refused: %s",
                project.project_id,
                command.command,
                command.reviewer,
                exc,
            )
            raise MessageRefused(f"{command.command} refused: {exc}") from None
        log.info(
            "project %s: %s by %s applied", project.project_id, command.command, command.reviewer
        )
        await self._apply(step)

    async def _on_handoff(self, handoff: Handoff, _: Msg) -> None:
        project = await self._known(handoff.project_id, "hand-off")
        backlog = await self._backlog_text(project)
        try:
            step = on_handoff(project, handoff, backlog_text=backlog, now=self.clock())
        except TransitionRefused as exc:
            log.error("project %s: %s", project.project_id, exc)
            raise MessageRefused(str(exc)) from None
        if not step.changed:
            log.info("project %s: %s", project.project_id, step.note)
            return
        self._ctx.metrics.handoffs.labels(handoff.from_.value, handoff.to.value).inc()
        await self._apply(step)

    async def _backlog_text(self, project: ProjectState) -> str | None:
        if project.stage != "cto_validate_backlog" or project.backlog_path is None:
            return None
        store = self._store(project.project_id)
        try:
            return await anyio.to_thread.run_sync(store.read, project.backlog_path)
        except (OSError, PathPolicyError, UnicodeDecodeError) as exc:
            log.error(
                "project %s: cannot read %s: %s", project.project_id, project.backlog_path, exc
            )
            return None

    async def _apply(self, step: Step) -> None:
        """Persist first, then publish the orders and the status (a crash in between is
        healed by the re-publish on restart)."""
        project = step.project
        store = self._store(project.project_id)
        files = [
            Artifact(path=TASK_STATE_PATH, content=render_task_state(project), format="json"),
            Artifact(path=STATUS_PATH, content=render_status(project)),
        ]
        try:
            await anyio.to_thread.run_sync(store.write_many, files)
        except PathPolicyError as exc:
            raise MessageRefused(
                f"project {project.project_id}: the state cannot be saved, so nothing was "
                f"applied: {exc}"
            ) from None
        before = self._projects.get(project.project_id)
        self._projects[project.project_id] = project
        for order in step.orders:
            first = self.reissue_first
            self._reissue[project.project_id] = _Reissue(order.order_id, now() + first, first)
            await self._ctx.publish(self._ctx.subjects.work_order, order)
        message = "; ".join(events_since(before, project))
        if project.state == "blocked" and project.reason not in message:
            message = f"{message}; blocked: {project.reason}" if message else project.reason
        await self._publish_status(project, message or None)

    async def background(self, ctx: ActorContext) -> None:
        """Issue each running project's pending order again until the project moves on."""
        while True:
            for project_id, due in list(self._reissue.items()):
                project = self._projects.get(project_id)
                pending = project.pending if project is not None else None
                if project is None or project.state != "running" or pending is None:
                    del self._reissue[project_id]
                    continue
                if pending.order_id != due.order_id or now() < due.at:
                    continue
                delay = min(max(due.delay * 2, self.reissue_first), self.reissue_every)
                self._reissue[project_id] = _Reissue(due.order_id, now() + delay, delay)
                log.info("project %s: order %s issued again", project_id, due.order_id)
                await ctx.publish(ctx.subjects.work_order, pending)
            await anyio.sleep(self.tick)

    async def _publish_status(self, project: ProjectState, message: str | None = None) -> None:
        counts = dict.fromkeys(TaskStatus, 0)
        for known in self._projects.values():
            for task in known.tasks:
                counts[task.status] += 1
        for status, count in counts.items():
            self._ctx.metrics.tasks.labels(status.value).set(count)
        subject = self._ctx.subjects.pipeline_status(project.project_id)
        await self._ctx.publish(subject, pipeline_status(project, message))
