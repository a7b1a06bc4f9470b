"""Builders shared by the pipeline tests (plain functions, no fixtures)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from humangr.contracts import (
    AgentName,
    ArtifactRef,
    Finding,
    Handoff,
    LayerID,
    Limits,
    PipelineStart,
    ResponseStatus,
    Severity,
)
from humangr.engine.pipeline import ProjectState, Step, on_handoff, start_project

R = ResponseStatus
T0 = datetime(2026, 1, 1, tzinfo=UTC)

BACKLOG = """# Backlog — squad core

## TSK-1 Greeting function
- Objective: greet a user by name.
- Scope: apps/core/greet.py
- Acceptance criteria: greet("Ada") returns "Hello, Ada!"
- Expected test: apps/core/test_greet.py
- Dependencies: none

## TSK-2: Config loader
- Objective: read settings from the environment.
- Scope: apps/core/config.py
- Acceptance criteria: missing variables raise a clear error
- Expected test: apps/core/test_config.py
- Dependencies: TSK-1
"""


def clock(step: int) -> datetime:
    return T0 + timedelta(seconds=step)


def started(limits: Limits | None = None) -> Step:
    start = PipelineStart(
        project_id="demo", spec_raw="A greeting service.", limits=limits or Limits()
    )
    return start_project(start, run_id="r1", now=T0)


def reply(project: ProjectState, status: ResponseStatus = R.OK, **fields: Any) -> Handoff:
    """The hand-off that answers the project's pending order."""
    order = project.pending
    assert order is not None, "no pending order"
    return Handoff(
        project_id=project.project_id,
        order_id=order.order_id,
        task_id=order.task_id,
        from_=order.agent,
        to=fields.pop("to", AgentName.MONITOR),
        status=status,
        **fields,
    )


def advance(step: Step, handoff: Handoff, backlog: str | None = BACKLOG) -> Step:
    return on_handoff(step.project, handoff, backlog_text=backlog, now=clock(step.project.orders))


def to_tasks(limits: Limits | None = None) -> Step:
    """Drive a fresh project through the document stages to its first Dev order."""
    step = started(limits)
    step = advance(step, reply(step.project))  # CTO spec
    step = advance(step, reply(step.project))  # engineer docs
    step = advance(step, reply(step.project))  # CTO validates engineer docs
    backlog = [ArtifactRef(path="docs/pm/core/BACKLOG.md")]
    step = advance(step, reply(step.project, artifacts=backlog))  # PM
    return advance(step, reply(step.project))  # CTO validates backlog


def approved(project: ProjectState, *paths: str) -> Handoff:
    return reply(
        project,
        decision_outcome="approved",
        to=AgentName.QA,
        code_refs=list(paths or ("apps/core/greet.py",)),
        summary="implemented",
    )


def rejected(project: ProjectState) -> Handoff:
    finding = Finding(
        id="f1",
        layer_id=LayerID.HL4,
        severity=Severity.CRITICAL,
        title="Hard-coded AWS key",
        file="apps/core/config.py",
        line=3,
    )
    return reply(
        project,
        decision_outcome="rejected",
        to=AgentName.DEV,
        findings=[finding],
        reason="HL4 security: strong veto",
    )
