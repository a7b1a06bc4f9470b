"""The Monitor's persisted state of one project (``docs/monitor/TASK_STATE.json``)."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

import msgspec

from contracts import Limits, TaskState, WorkOrder
from contracts.types import utc_now

__all__ = [
    "HISTORY_LIMIT",
    "STAGES",
    "Event",
    "ProjectState",
    "Stage",
    "decode_state",
    "encode_state",
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
HISTORY_LIMIT = 200
STATE_VERSION = 1


class Event(msgspec.Struct, frozen=True, kw_only=True):
    """One line of the project's history."""

    at: datetime
    text: str


class ProjectState(msgspec.Struct, frozen=True, kw_only=True):
    """Everything the Monitor needs to resume a project after a restart."""

    version: int = STATE_VERSION
    project_id: str
    run_id: str
    variant: str = "generic"
    limits: Limits = Limits()
    stage: Stage = "spec_intake"
    state: Literal["running", "done", "blocked"] = "running"
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
    orders: int = 0
    events: int = 0
    """Events logged so far (the history keeps the last ``HISTORY_LIMIT``)."""
    history: list[Event] = []
    created_at: datetime = msgspec.field(default_factory=utc_now)
    updated_at: datetime = msgspec.field(default_factory=utc_now)

    def task(self, task_id: str) -> TaskState | None:
        return next((t for t in self.tasks if t.task_id == task_id), None)


_DECODER = msgspec.json.Decoder(ProjectState)


def encode_state(state: ProjectState) -> str:
    """The state as indented JSON text (stable key order of the struct)."""
    return msgspec.json.format(msgspec.json.encode(state).decode(), indent=2) + "\n"


def decode_state(text: str | bytes) -> ProjectState:
    """Parse a persisted state; a damaged file raises a ``msgspec`` error."""
    return _DECODER.decode(text)
