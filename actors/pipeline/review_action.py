"""What a Dev output is to its review: the ``ActionContext`` the seven layers review, and the
hand-off of an output that changes no file; ``Settling`` is what they need of the pipeline
Supervisor."""

from __future__ import annotations

import logging
from typing import Any, Protocol

import anyio

from humangr.actors.pipeline.ledger import Held, WorkLedger
from humangr.actors.pipeline.storage import ProjectStore
from humangr.contracts import (
    ActionContext,
    AgentName,
    AgentResult,
    ArtifactRef,
    Handoff,
    ResponseStatus,
    WorkOrder,
)
from humangr.engine.pipeline.context import review_diff
from humangr.engine.review import action_hash

from .files import current

__all__ = ["Settling", "dev_review_action", "settle_unchanged"]

log = logging.getLogger("humangr.pipeline")
R = ResponseStatus


class Settling(Protocol):
    """What the Dev reviews need of the pipeline Supervisor that owns them."""

    ledger: WorkLedger
    max_diff_bytes: int
    decision_timeout: float
    report_timeout: float

    def store_of(self, project_id: str) -> ProjectStore:
        """The files of a project."""
        ...

    async def settle(self, held: Held, status: ResponseStatus, **fields: Any) -> None:
        """End an order with its hand-off."""
        ...

    async def finish_write(self, held: Held) -> None:
        """Write an order's artifacts and hand it off."""
        ...

    def handoff(
        self,
        order: WorkOrder,
        status: ResponseStatus,
        *,
        to: AgentName = AgentName.MONITOR,
        **fields: Any,
    ) -> Handoff:
        """The hand-off that ends ``order``."""
        ...

    async def publish_handoff(self, handoff: Handoff) -> None:
        """Publish a hand-off to the Monitor."""
        ...


async def dev_review_action(
    sup: Settling, held: Held, result: AgentResult
) -> tuple[ActionContext, str] | None:
    """The review action of ``result`` and its hash, or ``None`` when its diff is too large
    (the order then goes back to the Dev, rejected)."""
    order = held.record.order
    artifacts = result.envelope.artifacts
    store = sup.store_of(order.project_id)
    now = await anyio.to_thread.run_sync(current, store, [a.path for a in artifacts])
    diff = review_diff([(a.path, a.content) for a in artifacts], now)
    size = len(diff.encode())
    if size > sup.max_diff_bytes:
        await sup.settle(
            held,
            R.OK,
            to=AgentName.DEV,
            decision_outcome="rejected",
            reason=f"the change is {size} bytes; the review accepts at most "
            f"{sup.max_diff_bytes}: split it",
        )
        return None
    action = ActionContext(
        agent_id=f"dev-{order.project_id}"[:64],
        action_type="code_diff",
        action_description=(
            f"Dev implementation of {order.task_id} (attempt {order.attempt}) in project "
            f"{order.project_id}: {result.envelope.summary}"
        )[:20_000],
        code_diff=diff,
        affected_files=[a.path for a in artifacts],
        environment={
            "project_id": order.project_id,
            "task_id": order.task_id or "",
            "order_id": order.order_id,
            "attempt": str(order.attempt),
        },
    )
    return action, action_hash(action)


async def settle_unchanged(sup: Settling, held: Held, result: AgentResult) -> None:
    """The Dev's files are exactly what the project holds (its reply after a restart, or
    a rework that changed nothing): there is nothing to review or write. The task goes on
    to QA on the files as they are — written after an approved review, or there before
    the pipeline — and a reply with no file at all is sent back to the Dev."""
    paths = [a.path for a in result.envelope.artifacts]
    if not paths:
        await sup.settle(
            held,
            R.OK,
            to=AgentName.DEV,
            decision_outcome="rejected",
            reason="the Dev returned no file: there is nothing to review; implement the task",
        )
        return
    log.info("order %s: the Dev output changes no file; nothing to review", held.order_id)
    await sup.settle(
        held,
        R.OK,
        to=AgentName.QA,
        decision_outcome="approved",
        reason="no change: the Dev returned the files as the project holds them",
        code_refs=paths,
        summary=result.envelope.summary,
        artifacts=[ArtifactRef(path=p) for p in paths],
    )
