"""The hand-offs that end a work order at the pipeline Supervisor: how an agent's result that
cannot go on to be written ends its order, what a written result hands on, and ``Settlement``,
the part of ``PipelineSupervisor`` that ends an order with its hand-off (recorded, then
published) or drops it."""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import msgspec

from humangr.contracts import (
    AgentName,
    AgentResult,
    ArtifactRef,
    Handoff,
    ResponseStatus,
    WorkOrder,
)
from humangr.engine.actor import ActorContext
from humangr.engine.enforcer.gates import check_reply
from humangr.engine.pipeline import DEV_MODE
from humangr.engine.pipeline.context import (
    build_envelope,
    failure_reason,
    handoff_report,
    handoff_target,
)

from .files import mismatch
from .ledger import Held, WorkLedger

__all__ = ["Ending", "Settlement", "result_ending", "written_ending"]

log = logging.getLogger("humangr.pipeline")
R = ResponseStatus
_STOPPED = (R.BLOCKED, R.FAIL, R.NEEDS_INFO)


@dataclass(frozen=True, slots=True)
class Ending:
    """How an order ends: the status of its hand-off and the hand-off's other fields (what
    ``PipelineSupervisor.settle`` takes)."""

    status: ResponseStatus
    fields: dict[str, Any] = field(default_factory=dict)


def result_ending(order: WorkOrder, result: AgentResult, extra: Mapping[str, str]) -> Ending | None:
    """How ``result`` ends ``order`` when it cannot go on: it does not answer its request, it
    failed or stopped, or it claims ``validator_pass`` but fails the enforcer's gates (checked
    again against the request it answers, ``extra`` its inputs). ``None``: it goes on."""
    envelope = result.envelope
    wrong = mismatch(order, result)
    if wrong:
        log.error("result %s refused: %s", result.request_id, wrong)
        return Ending(R.BLOCKED, {"reason": f"result refused: {wrong}"})
    if not result.validator_pass or envelope.status in _STOPPED:
        return Ending(
            envelope.status,
            {
                "to": handoff_target(result),
                "reason": failure_reason(result),
                "summary": envelope.summary,
            },
        )
    sent = build_envelope(order, request_id=result.request_id, files={}, relevant=[], extra=extra)
    violations = check_reply(sent, envelope)
    if violations:
        listed = "; ".join(str(v) for v in violations[:20])
        log.error("result %s claims validator_pass but fails: %s", result.request_id, listed)
        return Ending(
            R.BLOCKED,
            {
                "reason": f"result refused: it claims to pass the gates but fails {listed}; "
                "nothing was written"
            },
        )
    return None


def written_ending(order: WorkOrder, result: AgentResult, written: list[str]) -> Ending:
    """What an order hands on once ``result``'s artifacts are ``written``: an approved Dev
    output goes to QA; anything else goes where its result says, with its report."""
    artifacts = result.envelope.artifacts
    if order.mode == DEV_MODE:
        return Ending(
            R.OK,
            {
                "to": AgentName.QA,
                "decision_outcome": "approved",
                "code_refs": written,
                "summary": result.envelope.summary,
                "artifacts": [ArtifactRef(path=p) for p in written],
            },
        )
    return Ending(
        result.envelope.status,
        {
            "to": handoff_target(result),
            "summary": result.envelope.summary,
            "report": handoff_report(order, result),
            "artifacts": [
                ArtifactRef(path=p, summary=a.purpose)
                for p, a in zip(written, artifacts, strict=True)
            ],
        },
    )


class Settlement:
    """Ends work orders with their hand-offs, or drops them (a mixin: ``PipelineSupervisor``
    sets what it uses)."""

    ledger: WorkLedger
    _ctx: ActorContext

    def handoff(
        self,
        order: WorkOrder,
        status: ResponseStatus,
        *,
        to: AgentName = AgentName.MONITOR,
        **fields: Any,
    ) -> Handoff:
        """The hand-off that ends ``order`` (its reason and summary cut to 20,000
        characters)."""
        for name in ("reason", "summary"):
            if name in fields:
                fields[name] = fields[name][:20_000]
        return Handoff(
            project_id=order.project_id,
            order_id=order.order_id,
            task_id=order.task_id,
            from_=order.agent,
            to=to,
            status=status,
            **fields,
        )

    async def settle(self, held: Held, status: ResponseStatus, **fields: Any) -> None:
        """End the order with its hand-off: recorded (to be sent again if the Monitor asks),
        then published."""
        handoff = self.handoff(held.record.order, status, **fields)
        done = msgspec.structs.replace(
            held.record, phase="done", handoff=handoff, result=None, review=None, extra={}
        )
        if await self.ledger.update(held, done) is None:
            log.info("order %s was settled by another handler; hand-off dropped", held.order_id)
            return
        if held.record.review is not None:
            await self.ledger.unlink(held.record.review.action_id)
        await self.publish_handoff(handoff)

    async def publish_handoff(self, handoff: Handoff) -> None:
        await self._ctx.publish(self._ctx.subjects.handoff(handoff.project_id), handoff)

    async def abandon(self, held: Held) -> None:
        """The project no longer waits for this order (cancelled, ended, or moved on): drop
        it without writing or handing off anything."""
        if await self.ledger.delete(held):
            log.warning(
                "project %s no longer waits for order %s; dropped with nothing written",
                held.record.order.project_id,
                held.order_id,
            )
