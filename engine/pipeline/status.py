"""What the Monitor publishes and writes: ``PipelineStatus``, ``STATUS.md``, ``TASK_STATE.json``."""

from __future__ import annotations

from humangr.contracts import PipelineStatus, TaskStatus

from .project import CommandRecord, ProjectState, encode_state

__all__ = [
    "STATUS_PATH",
    "TASK_STATE_PATH",
    "next_step",
    "pipeline_status",
    "render_status",
    "render_task_state",
    "way_out",
]

TASK_STATE_PATH = "docs/monitor/TASK_STATE.json"
STATUS_PATH = "docs/monitor/STATUS.md"
HISTORY_SHOWN = 60


def _cancelled(project: ProjectState) -> list[str]:
    return [t.task_id for t in project.tasks if t.status is TaskStatus.CANCELLED]


def way_out(project: ProjectState) -> str:
    """The commands that take a blocked project further (``humangr pipeline …``)."""
    blocked = next((t for t in project.tasks if t.status is TaskStatus.BLOCKED), None)
    task = f" --task {blocked.task_id}" if blocked else ""
    args = f"{project.project_id}{task} --reviewer NAME --reason TEXT"
    unblock = (
        f"`humangr pipeline unblock {args} [--answers TEXT] [--extra N]`"
        if project.resume is not None
        else "nothing to re-order (unblock is refused)"
    )
    return f"{unblock}, or `humangr pipeline cancel {args}`" + (
        " (without --task: cancel the whole project)" if blocked else ""
    )


def next_step(project: ProjectState) -> str:
    """One sentence: who acts next and what they are expected to do."""
    if project.state == "done":
        cancelled = _cancelled(project)
        if cancelled:
            return (
                f"human: accept the delivery (the other tasks passed QA; cancelled, not "
                f"delivered: {', '.join(cancelled)})"
            )
        return "human: accept the delivery (every task passed QA)"
    if project.state == "cancelled":
        return f"nobody: the project is cancelled — {project.reason}"
    if project.state == "blocked":
        return f"{project.blocked_owner}: unblock — {project.reason}"
    if project.waiting_human:
        return "human: resolve the pending review of the Dev's change (approve or reject)"
    order = project.pending
    if order is None:
        return "monitor: no order pending"
    where = f" {order.task_id}" if order.task_id else ""
    return f"{order.agent}: {order.mode}{where} (attempt {order.attempt})"


def pipeline_status(project: ProjectState, message: str | None = None) -> PipelineStatus:
    """The ``PipelineStatus`` event for the project's current state (``message`` defaults to
    the last event, or the reason when blocked)."""
    if message is None:
        message = project.reason if project.state == "blocked" else project.message
    return PipelineStatus(
        project_id=project.project_id,
        stage=project.stage,
        state=project.state,
        next_owner=project.next_owner or "monitor",
        message=message[:2_000],
        tasks=list(project.tasks),
        at=project.updated_at,
    )


def render_task_state(project: ProjectState) -> str:
    """``docs/monitor/TASK_STATE.json``: the whole persisted state (what a restart resumes)."""
    return encode_state(project)


def _cell(text: object) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def _grants(project: ProjectState) -> str:
    granted = [f"+{n} rework(s) for {k}" for k, n in project.rework_grants.items()]
    granted += [f"+{n} round(s) for {k}" for k, n in project.round_grants.items()]
    return f" (granted by humans: {', '.join(granted)})" if granted else ""


def _command(record: CommandRecord) -> str:
    target = f" {record.task_id}" if record.task_id else " (project)"
    extra = f" +{record.extra}" if record.extra else ""
    text = (
        f"- {record.at.isoformat(timespec='seconds')} **{record.command}**{target}{extra} "
        f"by {_cell(record.reviewer)}: {_cell(record.reason)} → {record.outcome}"
    )
    if record.answers:
        text += f"; answers: {_cell(record.answers[:500])}"
    return text


def render_status(project: ProjectState) -> str:
    """``docs/monitor/STATUS.md``: state, stage, next owner, tasks and recent history."""
    limits = project.limits
    lines = [
        f"# Project {project.project_id} — status",
        "",
        f"- **State:** {project.state}",
        f"- **Stage:** {project.stage}",
        f"- **Next owner:** {project.next_owner or 'monitor'} — {next_step(project)}",
        f"- **Round:** {project.round} of max {project.max_rounds(project.stage)}; "
        f"max rework per task: {limits.max_rework}{_grants(project)}",
        f"- **Updated:** {project.updated_at.isoformat()}",
    ]
    if project.state == "blocked":
        lines.append(f"- **Blocked:** owner {project.blocked_owner} — {project.reason}")
        lines.append(f"- **Way out:** {way_out(project)}")
    if project.state == "cancelled":
        lines.append(f"- **Cancelled:** {project.reason}")
    cancelled = [t for t in project.tasks if t.status is TaskStatus.CANCELLED]
    if cancelled:
        lines.append(
            "- **Cancelled tasks (not delivered):** "
            + "; ".join(f"{t.task_id} — {t.reason}" for t in cancelled)
        )
    never = [t.task_id for t in project.tasks if t.status is TaskStatus.NEW]
    if never and project.state == "cancelled":
        lines.append(f"- **Never started:** {', '.join(never)}")
    lines += ["", "## Tasks", ""]
    if project.tasks:
        lines += [
            "| task | title | status | owner | attempt | rework | reason | code refs |",
            "|---|---|---|---|---|---|---|---|",
        ]
        lines += [
            f"| {t.task_id} | {_cell(t.title)} | {t.status} | {_cell(t.owner or '-')} | "
            f"{t.attempt} | {t.rework} | {_cell(t.reason or '-')} | "
            f"{_cell(', '.join(t.code_refs) or '-')} |"
            for t in project.tasks
        ]
    else:
        lines.append("No tasks yet (the backlog is not accepted).")
    if project.commands:
        lines += ["", "## Human commands", ""]
        lines += [_command(c) for c in project.commands]
    lines += ["", "## History", ""]
    lines += [
        f"- {event.at.isoformat(timespec='seconds')} {event.text}"
        for event in project.history[-HISTORY_SHOWN:]
    ]
    return "\n".join(lines) + "\n"
