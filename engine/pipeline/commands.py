"""A human's way out: ``unblock`` and ``cancel`` (``PipelineCommand``), pure.

``unblock`` applies to a ``blocked`` project only: it re-orders the step that blocked (the
project's ``resume``) with ``extra`` reworks (a blocked task) or rounds (a stage) granted and
the human's words in ``inputs.human_reason``/``inputs.human_answers``. ``cancel`` applies to
every project that has not ended (``running`` — waiting for an agent, for the review layers or
for a human — or ``blocked``): with a task it cancels that task (a blocked one, or the one the
running project works on) and the project goes on with the next one; without a task it ends
the whole project ``cancelled``. The order the project waited for, if any, is dropped: its
answer changes nothing (the pipeline Supervisor writes only for the order a running project
waits for). Anything else raises ``CommandRefused``.
"""

from __future__ import annotations

from datetime import datetime

import msgspec

from humangr.contracts import PipelineCommand, TaskState, TaskStatus

from .errors import CommandRefused
from .orders import QA_MODE, new_order, noted
from .project import COMMANDS_LIMIT, CommandRecord, ProjectState, Resume, round_key
from .states import transition
from .step import Step
from .tasks import finish_task, rework_step, start_next_task

__all__ = ["apply_command", "human_inputs"]

_CANCELLABLE = (TaskStatus.BLOCKED, TaskStatus.IN_PROGRESS, TaskStatus.QA_FAIL)


def human_inputs(command: PipelineCommand) -> tuple[dict[str, str], str]:
    """The inputs and the task sentence that carry the human's words to the agent."""
    inputs = {"human_reason": f"{command.reviewer}: {command.reason}"}
    note = f" A human ({command.reviewer}) unblocked this step: follow inputs.human_reason"
    if command.answers:
        inputs["human_answers"] = command.answers
        note += " and use inputs.human_answers (the answers to your questions)"
    return inputs, note + "."


def apply_command(project: ProjectState, command: PipelineCommand, *, now: datetime) -> Step:
    """Apply ``command`` to ``project``; the command is recorded in the state and the history.

    Raises ``CommandRefused`` when the project has ended (or, for ``unblock``, is not
    blocked), the task is unknown or cannot be cancelled, or there is nothing to re-order.
    """
    pid = project.project_id
    if command.project_id != pid:
        raise CommandRefused(f"command for project {command.project_id} sent to project {pid}")
    if command.command == "cancel":
        if project.state not in ("running", "blocked"):
            raise CommandRefused(
                f"project {pid} has ended {project.state}: there is nothing to cancel"
            )
        if command.task_id is None:
            return _cancel(project, command, now)
        return _cancel_task(project, _cancellable_task(project, command.task_id), command, now)
    if project.state != "blocked":
        raise CommandRefused(
            f"project {pid} is {project.state}, not blocked: only a blocked project can be "
            f"unblocked (cancel works on a running one)"
        )
    task = _blocked_task(project, command.task_id) if command.task_id else None
    if task is None:
        blocked = next((t for t in project.tasks if t.status is TaskStatus.BLOCKED), None)
        if blocked is not None:
            raise CommandRefused(
                f"project {pid} is blocked on task {blocked.task_id}: name it "
                f"(task_id / --task {blocked.task_id})"
            )
    resume = project.resume
    if resume is None or resume.task_id != (task.task_id if task else None):
        raise CommandRefused(
            f"project {pid}: nothing to re-order after this block ({project.reason}); "
            f"cancel it instead"
        )
    if task is not None:
        return _unblock_task(project, task, resume, command, now)
    return _unblock_stage(project, resume, command, now)


def _blocked_task(project: ProjectState, task_id: str) -> TaskState:
    task = _known_task(project, task_id)
    if task.status is not TaskStatus.BLOCKED:
        raise CommandRefused(
            f"task {task_id} of project {project.project_id} is {task.status}, not blocked"
        )
    return task


def _cancellable_task(project: ProjectState, task_id: str) -> TaskState:
    """The task ``cancel --task`` may cancel: a blocked one, or the one the running project
    works on while it is in progress or back from QA."""
    if project.state == "blocked":
        return _blocked_task(project, task_id)
    task = _known_task(project, task_id)
    pending = project.pending
    if pending is None or pending.task_id != task_id:
        raise CommandRefused(
            f"task {task_id} of project {project.project_id} is {task.status}, and the project "
            f"works on {pending.task_id if pending and pending.task_id else 'no task'}: only "
            "the task in progress or a blocked one can be cancelled"
        )
    if task.status not in (TaskStatus.IN_PROGRESS, TaskStatus.QA_FAIL):
        raise CommandRefused(
            f"task {task_id} of project {project.project_id} is {task.status} (QA is "
            "validating it) and cannot be cancelled now; cancel the project, or wait"
        )
    return task


def _known_task(project: ProjectState, task_id: str) -> TaskState:
    task = project.task(task_id)
    if task is None:
        known = ", ".join(t.task_id for t in project.tasks) or "none (no backlog accepted yet)"
        raise CommandRefused(
            f"project {project.project_id} has no task {task_id}; its tasks: {known}"
        )
    return task


def _record(
    project: ProjectState, command: PipelineCommand, outcome: str, now: datetime
) -> ProjectState:
    record = CommandRecord(
        at=now,
        command=command.command,
        task_id=command.task_id,
        reviewer=command.reviewer,
        reason=command.reason,
        answers=command.answers,
        extra=command.extra if command.command == "unblock" else 0,
        issued_at=command.issued_at,
        outcome=outcome,
    )
    project = msgspec.structs.replace(
        project,
        commands=[*project.commands, record][-COMMANDS_LIMIT:],
        resume=None,
        blocked_owner="",
        reason="",
        waiting_human=False,
    )
    return noted(
        project, f"{command.reviewer}: {command.command} — {outcome}; why: {command.reason}", now
    )


def _unblock_task(
    project: ProjectState, task: TaskState, resume: Resume, command: PipelineCommand, now: datetime
) -> Step:
    grants = {
        **project.rework_grants,
        task.task_id: project.rework_grants.get(task.task_id, 0) + command.extra,
    }
    project = msgspec.structs.replace(project, state="running", stage="tasks", rework_grants=grants)
    outcome = (
        f"{task.task_id} unblocked, +{command.extra} rework(s) "
        f"(max {project.max_rework(task.task_id)})"
    )
    project = _record(project, command, outcome, now)
    inputs, note = human_inputs(command)
    why = f"unblocked by {command.reviewer}"
    if resume.kind == "rework":
        return rework_step(
            project, task, resume, now, note=why, extra_inputs=inputs, extra_task=note
        )
    if resume.mode == QA_MODE:
        task = transition(task, TaskStatus.IN_PROGRESS, owner="qa", now=now, reason=why)
        task = transition(task, TaskStatus.WAITING_REVIEW, owner="qa", now=now)
    else:
        task = transition(
            task, TaskStatus.IN_PROGRESS, owner="dev", now=now, reason=why, attempt=task.attempt + 1
        )
    return _order(finish_task(project, task), resume, inputs, note, task.attempt, now)


def _unblock_stage(
    project: ProjectState, resume: Resume, command: PipelineCommand, now: datetime
) -> Step:
    key = round_key(resume.stage)
    grants = {**project.round_grants, key: project.round_grants.get(key, 0) + command.extra}
    rounds = project.round + 1 if resume.kind == "revision" else project.round
    project = msgspec.structs.replace(
        project, state="running", stage=resume.stage, round_grants=grants, round=rounds
    )
    outcome = (
        f"stage {resume.stage} unblocked, +{command.extra} round(s) "
        f"(max {project.max_rounds(resume.stage)})"
    )
    project = _record(project, command, outcome, now)
    inputs, note = human_inputs(command)
    return _order(project, resume, inputs, note, 1, now)


def _order(
    project: ProjectState,
    resume: Resume,
    inputs: dict[str, str],
    note: str,
    attempt: int,
    now: datetime,
) -> Step:
    project, order = new_order(
        project,
        resume.agent,
        resume.mode,
        task=(resume.task + note)[:20_000],
        task_id=resume.task_id,
        attempt=attempt,
        inputs={**resume.inputs, **inputs},
        now=now,
    )
    return Step(project, (order,))


def _cancel_task(
    project: ProjectState, task: TaskState, command: PipelineCommand, now: datetime
) -> Step:
    task = transition(
        task,
        TaskStatus.CANCELLED,
        owner="",
        now=now,
        reason=f"cancelled by {command.reviewer}: {command.reason}",
    )
    project = finish_task(project, task)
    project = msgspec.structs.replace(project, state="running", current_task=None, pending=None)
    project = _record(project, command, f"{task.task_id} cancelled", now)
    return start_next_task(project, now)


def _cancel(project: ProjectState, command: PipelineCommand, now: datetime) -> Step:
    why = f"cancelled by {command.reviewer}: {command.reason}"
    tasks = [
        transition(t, TaskStatus.CANCELLED, owner="", now=now, reason=why)
        if t.status in _CANCELLABLE
        else t
        for t in project.tasks
    ]
    project = msgspec.structs.replace(project, tasks=tasks, pending=None, current_task=None)
    project = _record(project, command, "project cancelled", now)
    project = msgspec.structs.replace(
        project, state="cancelled", next_owner="human", reason=why[:2_000]
    )
    return Step(project)
