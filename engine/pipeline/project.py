"""The Monitor's persisted state of one project (``docs/monitor/TASK_STATE.json``)."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

import msgspec

from humangr.contracts import AgentName, Limits, TaskState, WorkOrder
from humangr.contracts.types import utc_now

__all__ = [
    "COMMANDS_LIMIT",
    "HISTORY_LIMIT",
    "STAGES",
    "CommandRecord",
    "Event",
    "ProjectState",
    "Resume",
    "Stage",
    "State",
    "decode_state",
    "encode_state",
    "round_key",
]

Stage = Literal[
    "spec_intake",
    "engineer_docs",
    "cto_validate_engineer",
    "backlog",
    "cto_validate_backlog",
    "tasks",
    "done",
]
STAGES: tuple[str, ...] = Stage.__args__  # type: ignore[attr-defined]
State = Literal["running", "done", "blocked", "cancelled"]
HISTORY_LIMIT = 200
COMMANDS_LIMIT = 100
STATE_VERSION = 1
_ROUND_KEYS = {"cto_validate_engineer": "engineer_docs", "cto_validate_backlog": "backlog"}


def round_key(stage: str) -> str:
    """The revision loop a stage belongs to (its rounds and granted rounds are counted there)."""
    return _ROUND_KEYS.get(stage, stage)


class Event(msgspec.Struct, frozen=True, kw_only=True):
    """One line of the project's history."""

    at: datetime
    text: str


class Resume(msgspec.Struct, frozen=True, kw_only=True):
    """What a human's ``unblock`` re-orders: ``retry`` the order whose hand-off blocked, or the
    ``rework``/``revision`` a limit refused (the order's template, issued with a fresh id)."""

    kind: Literal["retry", "rework", "revision"] = "retry"
    stage: Stage
    agent: AgentName
    mode: str
    task: str
    task_id: str | None = None
    inputs: dict[str, str] = {}

    @classmethod
    def of(cls, order: WorkOrder, stage: Stage) -> Resume:
        """Retry ``order`` as it was."""
        return cls(
            stage=stage,
            agent=order.agent,
            mode=order.mode,
            task=order.task,
            task_id=order.task_id,
            inputs=dict(order.inputs),
        )


class CommandRecord(msgspec.Struct, frozen=True, kw_only=True):
    """A human's ``PipelineCommand`` the Monitor applied: who, when, why, and what it did."""

    at: datetime
    command: Literal["unblock", "cancel"]
    task_id: str | None = None
    reviewer: str
    reason: str
    answers: str = ""
    extra: int = 0
    issued_at: datetime | None = None
    outcome: str = ""


class ProjectState(msgspec.Struct, frozen=True, kw_only=True):
    """Everything the Monitor needs to resume a project after a restart."""

    version: int = STATE_VERSION
    project_id: str
    run_id: str
    variant: str = "generic"
    limits: Limits = Limits()
    stage: Stage = "spec_intake"
    state: State = "running"
    round: int = 1
    """The current round of the stage's revision loop (engineer docs or backlog)."""
    tasks: list[TaskState] = []
    task_specs: dict[str, str] = {}
    current_task: str | None = None
    backlog_path: str | None = None
    pending: WorkOrder | None = None
    """The work order whose hand-off the Monitor is waiting for."""
    waiting_human: bool = False
    next_owner: str = ""
    blocked_owner: str = ""
    reason: str = ""
    message: str = ""
    resume: Resume | None = None
    """While blocked: the step an ``unblock`` re-orders (``None``: only ``cancel`` helps)."""
    rework_grants: dict[str, int] = {}
    """Extra reworks humans granted, per task id (on top of ``limits.max_rework``)."""
    round_grants: dict[str, int] = {}
    """Extra rounds humans granted, per revision loop (``round_key``)."""
    commands: list[CommandRecord] = []
    """The human commands applied (the last ``COMMANDS_LIMIT``)."""
    orders: int = 0
    events: int = 0
    """Events logged so far (the history keeps the last ``HISTORY_LIMIT``)."""
    history: list[Event] = []
    created_at: datetime = msgspec.field(default_factory=utc_now)
    updated_at: datetime = msgspec.field(default_factory=utc_now)

    def task(self, task_id: str) -> TaskState | None:
        return next((t for t in self.tasks if t.task_id == task_id), None)

    def max_rework(self, task_id: str) -> int:
        """The reworks ``task_id`` may take: the limit plus what humans granted."""
        return self.limits.max_rework + self.rework_grants.get(task_id, 0)

    def max_rounds(self, stage: str) -> int:
        """The rounds of ``stage``'s revision loop: the limit plus what humans granted."""
        return self.limits.max_rounds + self.round_grants.get(round_key(stage), 0)


_DECODER = msgspec.json.Decoder(ProjectState)


def encode_state(state: ProjectState) -> str:
    """The state as indented JSON text (stable key order of the struct)."""
    return msgspec.json.format(msgspec.json.encode(state).decode(), indent=2) + "\n"


def decode_state(text: str | bytes) -> ProjectState:
    """Parse a persisted state; a damaged file raises a ``msgspec`` error."""
    return _DECODER.decode(text)
