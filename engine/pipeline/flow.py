"""The project flow, as pure functions: given the state and a hand-off, what happens next.

spec intake → engineer docs ⇄ CTO validation (≤ max_rounds) → backlog ⇄ CTO validation
(≤ max_rounds) → per task: Dev → seven layers → QA → done, or rework (≤ max_rework).
Anything that cannot go on ends in ``blocked`` with an owner and a reason — never ``done`` —
and remembers in ``resume`` the step a human's ``unblock`` re-orders (``engine.pipeline.commands``).
"""

from __future__ import annotations

import re
from datetime import datetime

import msgspec

from humangr.contracts import (
    AgentName,
    Handoff,
    PipelineStart,
    ResponseStatus,
    TaskState,
    TaskStatus,
)

from .backlog import BacklogError, order_tasks, parse_backlog
from .orders import DEV_MODE, QA_MODE, STAGE_STEPS, new_order, noted, render_findings
from .project import ProjectState, Resume, Stage
from .states import transition
from .step import Step, block
from .tasks import finish_task, rework_resume, rework_step, start_next_task

__all__ = ["BACKLOG_PATH", "Step", "block", "on_handoff", "start_project"]

BACKLOG_PATH = re.compile(r"^docs/pm/[A-Za-z0-9_-]+/BACKLOG\.md$")
R = ResponseStatus
ESCALATION_OWNER = "cto"
OPERATOR = "human"
_REVISION_TARGET: dict[str, Stage] = {
    "cto_validate_engineer": "engineer_docs",
    "cto_validate_backlog": "backlog",
}
_NEXT_STAGE = {
    "spec_intake": "engineer_docs",
    "engineer_docs": "cto_validate_engineer",
    "cto_validate_engineer": "backlog",
    "backlog": "cto_validate_backlog",
}


def start_project(start: PipelineStart, *, run_id: str, now: datetime) -> Step:
    """A new project whose first order is the CTO's spec intake."""
    project = ProjectState(
        project_id=start.project_id,
        run_id=run_id,
        variant=start.variant,
        limits=start.limits,
        created_at=now,
        updated_at=now,
    )
    project = noted(project, "project started", now)
    return _stage(project, "spec_intake", now, {"spec_raw": start.spec_raw})


def _stage(
    project: ProjectState, stage: str, now: datetime, inputs: dict[str, str] | None = None
) -> Step:
    agent, mode, task = STAGE_STEPS[stage]
    project = msgspec.structs.replace(project, stage=stage)
    project, order = new_order(project, agent, mode, task=task, inputs=inputs, now=now)
    return Step(project, (order,))


def _retry(project: ProjectState) -> Resume | None:
    """Retry the pending order (the one whose hand-off blocks the project)."""
    return Resume.of(project.pending, project.stage) if project.pending else None


def _why(handoff: Handoff) -> str:
    parts = [f"{handoff.from_} answered {handoff.status}"]
    if handoff.reason:
        parts.append(handoff.reason)
    elif handoff.summary:
        parts.append(handoff.summary)
    return ": ".join(parts)


def _describe(handoff: Handoff) -> str:
    text = f"{handoff.from_} → {handoff.to}: {handoff.status}"
    if handoff.decision_outcome:
        text += f", review {handoff.decision_outcome}"
    detail = handoff.reason if handoff.decision_outcome == "rejected" else ""
    if handoff.status is R.QA_FAIL or handoff.status is R.REVISION:
        detail = handoff.summary
    return f"{text} — {detail[:300]}" if detail else text


def _failure_owner(handoff: Handoff) -> str:
    if handoff.status is R.NEEDS_INFO and handoff.to not in (AgentName.MONITOR, handoff.from_):
        return str(handoff.to)
    return OPERATOR


def on_handoff(
    project: ProjectState, handoff: Handoff, *, backlog_text: str | None = None, now: datetime
) -> Step:
    """Apply ``handoff`` to ``project``. A hand-off for another order or a finished project
    changes nothing (``changed=False``). Raises ``TransitionRefused`` if a task would take a
    transition the state machine forbids."""
    pending = project.pending
    if project.state != "running" or pending is None:
        return Step(project, changed=False, note=f"project is {project.state}; hand-off ignored")
    if handoff.order_id != pending.order_id or handoff.from_ != pending.agent:
        return Step(
            project,
            changed=False,
            note=f"hand-off for order {handoff.order_id} from {handoff.from_} ignored; "
            f"waiting for {pending.order_id} from {pending.agent}",
        )
    if handoff.decision_outcome == "needs_review":
        if project.waiting_human:
            return Step(project, changed=False, note="already waiting for a human review")
        project = msgspec.structs.replace(project, waiting_human=True, next_owner=OPERATOR)
        return Step(noted(project, f"waiting for a human review: {handoff.reason}", now))
    project = noted(project, _describe(handoff), now)
    if project.stage == "tasks":
        return _on_task_handoff(project, handoff, now)
    return _on_stage_handoff(project, handoff, backlog_text, now)


def _on_stage_handoff(
    project: ProjectState, handoff: Handoff, backlog_text: str | None, now: datetime
) -> Step:
    stage = project.stage
    if handoff.status is R.REVISION and stage in _REVISION_TARGET:
        notes = handoff.report or handoff.summary
        target = _REVISION_TARGET[stage]
        if project.round >= project.max_rounds(stage):
            agent, mode, task = STAGE_STEPS[target]
            revision = Resume(
                kind="revision",
                stage=target,
                agent=agent,
                mode=mode,
                task=task,
                inputs={"cto_revision": notes},
            )
            return block(
                project,
                ESCALATION_OWNER,
                f"{stage}: still REVISION after {project.round} round(s) "
                f"(max_rounds {project.max_rounds(stage)}): {handoff.summary}",
                now,
                resume=revision,
            )
        project = msgspec.structs.replace(project, round=project.round + 1)
        return _stage(project, target, now, {"cto_revision": notes})
    if handoff.status is not R.OK:
        return block(
            project,
            _failure_owner(handoff),
            f"{stage}: {_why(handoff)}",
            now,
            resume=_retry(project),
        )
    if stage == "backlog":
        paths = [a.path for a in handoff.artifacts if BACKLOG_PATH.match(a.path)]
        if not paths:
            return block(
                project,
                OPERATOR,
                "backlog: no docs/pm/<squad>/BACKLOG.md written",
                now,
                resume=_retry(project),
            )
        project = msgspec.structs.replace(project, backlog_path=paths[0])
    if stage == "cto_validate_backlog":
        return _plan_tasks(project, backlog_text, now)
    if stage == "cto_validate_engineer":
        project = msgspec.structs.replace(project, round=1)
    return _stage(project, _NEXT_STAGE[stage], now)


def _plan_tasks(project: ProjectState, backlog_text: str | None, now: datetime) -> Step:
    if backlog_text is None:
        return block(
            project,
            OPERATOR,
            f"the backlog {project.backlog_path} cannot be read",
            now,
            resume=_retry(project),
        )
    try:
        tasks = order_tasks(parse_backlog(backlog_text))
    except BacklogError as exc:
        agent, mode, task = STAGE_STEPS["backlog"]
        rewrite = Resume(
            stage="backlog",
            agent=agent,
            mode=mode,
            task=task,
            inputs={"backlog_error": str(exc)[:20_000]},
        )
        return block(project, "pm", f"backlog: {exc}", now, resume=rewrite)
    project = msgspec.structs.replace(
        project,
        stage="tasks",
        round=1,
        tasks=[TaskState(task_id=t.task_id, title=t.title, updated_at=now) for t in tasks],
        task_specs={t.task_id: t.body for t in tasks},
    )
    project = noted(project, f"backlog accepted: {len(tasks)} task(s)", now)
    return start_next_task(project, now)


def _on_task_handoff(project: ProjectState, handoff: Handoff, now: datetime) -> Step:
    pending = project.pending
    task = project.task(pending.task_id) if pending and pending.task_id else None
    if pending is None or task is None:
        return block(project, OPERATOR, "a task hand-off for no known task", now)
    if pending.mode == DEV_MODE:
        return _on_dev(project, task, handoff, now)
    if pending.mode == QA_MODE:
        return _on_qa(project, task, handoff, now)
    return block(project, OPERATOR, f"unexpected mode {pending.mode} in the task loop", now)


def _on_dev(project: ProjectState, task: TaskState, handoff: Handoff, now: datetime) -> Step:
    if handoff.status is not R.OK:
        return _fail_task(
            project, task, _failure_owner(handoff), _why(handoff), now, _retry(project)
        )
    if handoff.decision_outcome == "rejected":
        findings = render_findings(handoff.findings, handoff.reason)
        return _rework(
            project, task, "rejected by the review layers", "review_findings", findings, now
        )
    if handoff.decision_outcome != "approved" or not handoff.code_refs:
        return _fail_task(
            project,
            task,
            OPERATOR,
            "the Dev's output reached the Monitor without an approved review and written files",
            now,
            _retry(project),
        )
    task = transition(
        task,
        TaskStatus.WAITING_REVIEW,
        owner="qa",
        now=now,
        reason="",
        code_refs=list(handoff.code_refs),
    )
    project = finish_task(project, task)
    project, order = new_order(
        project,
        AgentName.QA,
        QA_MODE,
        task=f"Validate {task.task_id}: {task.title} against its acceptance criteria.",
        task_id=task.task_id,
        attempt=task.attempt,
        inputs={
            "task_spec": project.task_specs.get(task.task_id, task.title),
            "code_refs": "\n".join(handoff.code_refs),
            "dev_summary": handoff.summary,
        },
        now=now,
    )
    return Step(project, (order,))


def _on_qa(project: ProjectState, task: TaskState, handoff: Handoff, now: datetime) -> Step:
    if handoff.status is R.QA_PASS:
        task = transition(task, TaskStatus.QA_PASS, owner="monitor", now=now)
        task = transition(task, TaskStatus.DONE, owner="", now=now, reason="")
        project = noted(finish_task(project, task), f"{task.task_id} done", now)
        return start_next_task(project, now)
    if handoff.status is R.QA_FAIL:
        task = transition(task, TaskStatus.QA_FAIL, owner="dev", now=now, reason=handoff.summary)
        return _rework(
            project, task, "QA_FAIL", "qa_report", handoff.report or handoff.summary, now
        )
    task = transition(task, TaskStatus.QA_FAIL, now=now, reason=f"no QA verdict: {handoff.status}")
    return _fail_task(project, task, _failure_owner(handoff), _why(handoff), now, _retry(project))


def _rework(
    project: ProjectState, task: TaskState, cause: str, key: str, detail: str, now: datetime
) -> Step:
    resume = rework_resume(project, task, cause, key, detail)
    limit = project.max_rework(task.task_id)
    if task.rework >= limit:
        return _fail_task(
            project,
            task,
            ESCALATION_OWNER,
            f"rework limit reached ({task.rework} of max_rework {limit}); last: {cause}",
            now,
            resume,
        )
    return rework_step(project, task, resume, now, note=cause)


def _fail_task(
    project: ProjectState,
    task: TaskState,
    owner: str,
    reason: str,
    now: datetime,
    resume: Resume | None,
) -> Step:
    task = transition(task, TaskStatus.BLOCKED, owner=owner, reason=reason, now=now)
    return block(finish_task(project, task), owner, f"{task.task_id}: {reason}", now, resume=resume)
