"""What one pipeline event yields (``Step``), and the step that blocks a project."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

import msgspec

from humangr.contracts import WorkOrder

from .orders import noted
from .project import ProjectState, Resume

__all__ = ["Step", "block"]


@dataclass(frozen=True, slots=True)
class Step:
    """The outcome of one event: the new state, the orders to publish, whether it changed."""

    project: ProjectState
    orders: tuple[WorkOrder, ...] = ()
    changed: bool = True
    note: str = ""


def block(
    project: ProjectState, owner: str, reason: str, now: datetime, *, resume: Resume | None = None
) -> Step:
    """The project ends ``blocked`` with ``owner`` named and ``reason`` given; ``resume`` is
    what a human's ``unblock`` would re-order (``None``: nothing, only ``cancel``)."""
    project = msgspec.structs.replace(
        project,
        state="blocked",
        pending=None,
        waiting_human=False,
        next_owner=owner,
        blocked_owner=owner,
        reason=reason[:2_000],
        resume=resume,
    )
    return Step(noted(project, f"BLOCKED (owner {owner}): {reason}", now))
