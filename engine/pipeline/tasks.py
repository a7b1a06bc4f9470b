"""The per-task part of the flow: start the next task, store a task's new state."""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING

import msgspec

from contracts import AgentName, TaskState, TaskStatus

from .orders import DEV_MODE, log, new_order
from .project import ProjectState
from .states import transition

if TYPE_CHECKING:
    from .flow import Step

__all__ = ["finish_task", "start_next_task"]


def finish_task(project: ProjectState, task: TaskState) -> ProjectState:
    """``project`` with ``task`` replacing the task of the same id."""
    tasks = [task if t.task_id == task.task_id else t for t in project.tasks]
    return msgspec.structs.replace(project, tasks=tasks, current_task=task.task_id)


def start_next_task(project: ProjectState, now: datetime) -> Step:
    """Assign the next new task to the Dev, or finish the project when every task is done."""
    from .flow import Step, block

    task = next((t for t in project.tasks if t.status is TaskStatus.NEW), None)
    if task is None:
        open_tasks = [t.task_id for t in project.tasks if t.status is not TaskStatus.DONE]
        if open_tasks:
            return block(project, "human", f"tasks not done: {', '.join(open_tasks)}", now)
        project = msgspec.structs.replace(
            project,
            stage="done",
            state="done",
            pending=None,
            current_task=None,
            next_owner="human",
            reason="",
        )
        return Step(log(project, f"project done: {len(project.tasks)} task(s) done", now))
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
