"""The per-task part of the flow: start the next task, rework a task, store a task's state."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime

import msgspec

from humangr.contracts import AgentName, TaskState, TaskStatus

from .orders import DEV_MODE, new_order, noted
from .project import ProjectState, Resume
from .states import transition
from .step import Step, block

__all__ = ["finish_task", "rework_resume", "rework_step", "start_next_task"]


def finish_task(project: ProjectState, task: TaskState) -> ProjectState:
    """``project`` with ``task`` replacing the task of the same id."""
    tasks = [task if t.task_id == task.task_id else t for t in project.tasks]
    return msgspec.structs.replace(project, tasks=tasks, current_task=task.task_id)


def _finish_project(project: ProjectState, now: datetime) -> Step:
    """Every task is done or cancelled: ``done`` if at least one was delivered, else
    ``cancelled`` (nothing was delivered)."""

    done = [t.task_id for t in project.tasks if t.status is TaskStatus.DONE]
    cancelled = [t.task_id for t in project.tasks if t.status is TaskStatus.CANCELLED]
    state = "done" if done or not cancelled else "cancelled"
    project = msgspec.structs.replace(
        project,
        stage="done",
        state=state,
        pending=None,
        current_task=None,
        resume=None,
        next_owner="human",
        blocked_owner="",
        reason="" if state == "done" else "every task was cancelled: nothing was delivered",
    )
    text = f"project {state}: {len(done)} task(s) done"
    if cancelled:
        text += f", {len(cancelled)} cancelled ({', '.join(cancelled)})"
    return Step(noted(project, text, now))


def start_next_task(project: ProjectState, now: datetime) -> Step:
    """Assign the next new task to the Dev, or finish the project when every task is done
    or cancelled."""

    task = next((t for t in project.tasks if t.status is TaskStatus.NEW), None)
    if task is None:
        open_tasks = [
            t.task_id
            for t in project.tasks
            if t.status not in (TaskStatus.DONE, TaskStatus.CANCELLED)
        ]
        if open_tasks:
            return block(project, "human", f"tasks not done: {', '.join(open_tasks)}", now)
        return _finish_project(project, now)
    task = transition(task, TaskStatus.ASSIGNED, owner="dev", now=now)
    task = transition(task, TaskStatus.IN_PROGRESS, owner="dev", now=now, attempt=1)
    project = finish_task(project, task)
    project, order = new_order(
        project,
        AgentName.DEV,
        DEV_MODE,
        task=f"Implement {task.task_id}: {task.title}.",
        task_id=task.task_id,
        inputs={"task_spec": project.task_specs.get(task.task_id, task.title)},
        now=now,
    )
    return Step(project, (order,))


def rework_resume(
    project: ProjectState, task: TaskState, cause: str, key: str, detail: str
) -> Resume:
    """The Dev's rework of ``task`` with ``detail`` (the findings or the QA report) as
    ``inputs.<key>``."""
    inputs = {
        "task_spec": project.task_specs.get(task.task_id, task.title),
        key: detail,
        "rework_reason": cause,
    }
    if task.code_refs:
        inputs["code_refs"] = "\n".join(task.code_refs)
    return Resume(
        kind="rework",
        stage="tasks",
        agent=AgentName.DEV,
        mode=DEV_MODE,
        task_id=task.task_id,
        task=f"Rework {task.task_id}: {task.title} ({cause}); address every point in inputs.{key}.",
        inputs=inputs,
    )


def rework_step(
    project: ProjectState,
    task: TaskState,
    resume: Resume,
    now: datetime,
    *,
    note: str,
    extra_inputs: Mapping[str, str] | None = None,
    extra_task: str = "",
) -> Step:
    """Send ``task`` back to the Dev (one more rework and attempt) with ``resume``'s order."""

    changes = {"rework": task.rework + 1, "attempt": task.attempt + 1}
    if task.status is TaskStatus.IN_PROGRESS:
        task = msgspec.structs.replace(
            task, owner="dev", reason=note[:2_000], updated_at=now, **changes
        )
    else:
        task = transition(
            task, TaskStatus.IN_PROGRESS, owner="dev", now=now, reason=note, **changes
        )
    project = noted(finish_task(project, task), f"{task.task_id} back to dev: {note}", now)
    project, order = new_order(
        project,
        AgentName.DEV,
        DEV_MODE,
        now=now,
        task_id=task.task_id,
        attempt=task.attempt,
        task=(resume.task + extra_task)[:20_000],
        inputs={**resume.inputs, **(extra_inputs or {})},
    )
    return Step(project, (order,))
