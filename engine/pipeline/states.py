"""The task state machine (docs/design.md#task-states): the only transitions a task may take."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime

import msgspec

from humangr.contracts import TaskState, TaskStatus
from humangr.contracts.types import utc_now

from .errors import CommandRefused

__all__ = ["ALLOWED", "TERMINAL", "TransitionRefused", "can_transition", "transition"]


ALLOWED: Mapping[TaskStatus, frozenset[TaskStatus]] = {
    TaskStatus.NEW: frozenset({TaskStatus.ASSIGNED}),
    TaskStatus.ASSIGNED: frozenset({TaskStatus.IN_PROGRESS}),
    TaskStatus.IN_PROGRESS: frozenset(
        {TaskStatus.WAITING_REVIEW, TaskStatus.BLOCKED, TaskStatus.CANCELLED}
    ),
    TaskStatus.WAITING_REVIEW: frozenset({TaskStatus.QA_PASS, TaskStatus.QA_FAIL}),
    TaskStatus.QA_PASS: frozenset({TaskStatus.DONE}),
    TaskStatus.QA_FAIL: frozenset(
        {TaskStatus.IN_PROGRESS, TaskStatus.BLOCKED, TaskStatus.CANCELLED}
    ),
    TaskStatus.BLOCKED: frozenset({TaskStatus.IN_PROGRESS, TaskStatus.CANCELLED}),
    TaskStatus.DONE: frozenset(),
    TaskStatus.CANCELLED: frozenset(),
}
"""Every allowed transition; anything else is refused."""

TERMINAL = frozenset(status for status, targets in ALLOWED.items() if not targets)


class TransitionRefused(CommandRefused):
    """A task was asked to take a transition the state machine does not allow: the one kind of
    ``CommandRefused`` that carries the task and the two states."""

    def __init__(self, task_id: str, current: TaskStatus, target: TaskStatus) -> None:
        allowed = ", ".join(sorted(ALLOWED[current])) or "none (terminal)"
        super().__init__(
            f"task {task_id}: transition {current} → {target} refused; from {current} "
            f"the allowed targets are: {allowed}"
        )  # ``reason`` is the whole message
        self.task_id = task_id
        self.current = current
        self.target = target


def can_transition(current: TaskStatus, target: TaskStatus) -> bool:
    """Whether ``current → target`` is one of the allowed transitions."""
    return target in ALLOWED[current]


def transition(
    state: TaskState,
    to: TaskStatus,
    *,
    owner: str | None = None,
    reason: str | None = None,
    now: datetime | None = None,
    **changes: object,
) -> TaskState:
    """``state`` moved to ``to`` (with ``owner``/``reason`` and other field ``changes``).

    Raises ``TransitionRefused`` for a transition not in ``ALLOWED``; the state is unchanged.
    """
    if not can_transition(state.status, to):
        raise TransitionRefused(state.task_id, state.status, to)
    fields: dict[str, object] = dict(changes)
    if owner is not None:
        fields["owner"] = owner
    if reason is not None:
        fields["reason"] = reason[:2_000]
    return msgspec.structs.replace(state, status=to, updated_at=now or utc_now(), **fields)
