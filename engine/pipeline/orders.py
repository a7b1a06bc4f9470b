"""Work orders the Monitor issues, and the small state updates that go with them."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime

import msgspec

from humangr.contracts import AgentName, Finding, WorkOrder

from .project import HISTORY_LIMIT, Event, ProjectState

__all__ = [
    "DEV_MODE",
    "QA_MODE",
    "STAGE_STEPS",
    "events_since",
    "new_order",
    "noted",
    "render_findings",
]

DEV_MODE = "implement_task"
QA_MODE = "validate_task"

STAGE_STEPS: Mapping[str, tuple[AgentName, str, str]] = {
    "spec_intake": (
        AgentName.CTO,
        "spec_intake_and_normalize",
        "Normalize the free-text spec (inputs.spec_raw) into docs/spec/PRODUCT_SPEC.md.",
    ),
    "engineer_docs": (
        AgentName.ENGINEER,
        "generate_engineering_docs",
        "Write the engineering proposal, architecture and dependencies for the product spec.",
    ),
    "cto_validate_engineer": (
        AgentName.CTO,
        "validate_engineer_docs",
        "Validate the engineer docs against the product spec; list gaps as REVISION.",
    ),
    "backlog": (
        AgentName.PM,
        "generate_backlog",
        "Write the backlog (docs/pm/<squad>/BACKLOG.md) with one '## TSK-…' section per task.",
    ),
    "cto_validate_backlog": (
        AgentName.CTO,
        "validate_backlog",
        "Validate the backlog against the spec and the engineer docs; list gaps as REVISION.",
    ),
}
"""Stage → (agent, mode, task text) for the stages before the per-task loop."""


def noted(project: ProjectState, text: str, now: datetime) -> ProjectState:
    """``project`` with ``text`` appended to its bounded history and as its message."""
    history = [*project.history, Event(at=now, text=text[:2_000])][-HISTORY_LIMIT:]
    return msgspec.structs.replace(
        project,
        history=history,
        events=project.events + 1,
        message=text[:2_000],
        updated_at=now,
    )


def events_since(before: ProjectState | None, after: ProjectState) -> list[str]:
    """The texts ``after`` logged since ``before`` (all of its history without ``before``)."""
    count = after.events - (before.events if before is not None else 0)
    return [event.text for event in after.history[-count:]] if count > 0 else []


def new_order(
    project: ProjectState,
    agent: AgentName,
    mode: str,
    *,
    task: str,
    now: datetime,
    inputs: Mapping[str, str] | None = None,
    task_id: str | None = None,
    attempt: int = 1,
) -> tuple[ProjectState, WorkOrder]:
    """A fresh work order for ``agent``/``mode``; the project now waits for its hand-off."""
    number = project.orders + 1
    variant = project.variant if agent in (AgentName.DEV, AgentName.QA) else "generic"
    order = WorkOrder(
        order_id=f"wo-{project.run_id}-{number:04d}",
        project_id=project.project_id,
        agent=agent,
        mode=mode,
        variant=variant,
        task_id=task_id,
        task=task,
        inputs=dict(inputs or {}),
        limits=project.limits,
        attempt=attempt,
    )
    where = f" for {task_id} (attempt {attempt})" if task_id else f" (round {project.round})"
    updated = msgspec.structs.replace(
        project, orders=number, pending=order, next_owner=str(agent), waiting_human=False
    )
    return noted(updated, f"ordered {agent} {mode}{where}", now), order


def render_findings(findings: Sequence[Finding], fallback: str = "") -> str:
    """Review findings as a markdown list the Dev can act on."""
    lines = []
    for f in findings:
        where = f" ({f.file}{':' + str(f.line) if f.line is not None else ''})" if f.file else ""
        text = f"- [{f.layer_id} {f.severity}] {f.title}{where}"
        if f.description:
            text += f": {f.description}"
        if f.suggestion:
            text += f" — suggestion: {f.suggestion}"
        lines.append(text)
    if fallback:
        lines.append(fallback)
    return "\n".join(lines) or "The review rejected the change without details."
