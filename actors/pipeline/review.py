"""``DevReviews``: the pipeline Supervisor's side of the seven-layer review of a Dev output.

A Dev result is recorded as the order's review (``ReviewRecord``: the result, the action id and
hash) before its ``ActionSubmitted`` is published, so a restart never submits a second review
of the same output: a recovered review is first looked up with a ``ReportQuery``; a decision
found there is acted on, and a review the engine does not know is submitted again under the
same action id (the Supervisor ignores a submission it is already reviewing or has decided).
A Dev output that changes no file is never submitted (the engine refuses an empty diff) but goes
on as "no change", and a submission the engine refuses (a dead letter) is acted on at once.
"""

from __future__ import annotations

import logging
import time
import uuid

import msgspec

from humangr.actors.pipeline.ledger import Held, ReviewRecord
from humangr.contracts import (
    ActionContext,
    ActionSubmitted,
    AgentName,
    AgentResult,
    DeadLetter,
    HumanLayerReport,
    Outcome,
    ReportQuery,
    ReportReply,
    ResponseStatus,
    decode,
    encode,
)
from humangr.engine.actor import ActorContext
from humangr.engine.bus import Msg
from humangr.engine.errors import BusError, ContractError
from humangr.engine.pipeline.context import review_findings

from .review_action import Settling, dev_review_action, settle_unchanged

__all__ = ["DevReviews", "Settling"]

log = logging.getLogger("humangr.pipeline")
R = ResponseStatus
ACTION_PREFIX = "dev-"


class DevReviews:
    """Submits Dev outputs, acts on their decisions, and takes reviews up after a restart."""

    def __init__(self, supervisor: Settling, ctx: ActorContext) -> None:
        self.sup = supervisor
        self.ctx = ctx
        self.unconfirmed: dict[str, str] = {}
        """Recovered reviews not yet looked up: order id → action id."""
        self._deadlines: dict[str, tuple[str, float]] = {}
        """Reviews this instance waits for: action id → (order id, decision deadline)."""

    def clear(self) -> None:
        self.unconfirmed.clear()
        self._deadlines.clear()

    async def submit(self, held: Held, result: AgentResult) -> None:
        """Record the Dev's output as under review, then submit it to the seven layers;
        nothing is written before the decision. An output that changes nothing is not
        submitted (the review engine refuses an empty diff): see ``settle_unchanged``."""
        built = await dev_review_action(self.sup, held, result)
        if built is None:
            return
        action, digest = built
        if not (action.code_diff or "").strip():
            await settle_unchanged(self.sup, held, result)
            return
        review = ReviewRecord(
            action_id=f"{ACTION_PREFIX}{uuid.uuid4().hex[:24]}",
            action_hash=digest,
            result=result,
            started=time.time(),
        )
        reviewing = msgspec.structs.replace(held.record, phase="reviewing", review=review)
        updated = await self.sup.ledger.update(held, reviewing)
        if updated is None:
            return
        await self.sup.ledger.link(review.action_id, held.order_id)
        await self._publish(updated, action)

    async def _publish(self, held: Held, action: ActionContext) -> None:
        review = held.record.review
        assert review is not None
        self._deadlines[review.action_id] = (
            held.order_id,
            review.started + self.sup.decision_timeout,
        )
        submitted = ActionSubmitted(
            action_id=review.action_id, action=action, action_hash=review.action_hash
        )
        await self.ctx.publish(self.ctx.subjects.agent_submit(action.agent_id), submitted)

    async def on_decision(self, report: HumanLayerReport, _: Msg) -> None:
        if not report.action_id.startswith(ACTION_PREFIX):
            return
        order_id = await self.sup.ledger.order_of(report.action_id)
        held = await self.sup.ledger.get(order_id) if order_id else None
        if held is None:
            return
        await self.apply(held, report)

    async def on_refusal(self, letter: DeadLetter, _: Msg) -> None:
        """The review engine refused a Dev output this pipeline submitted (a dead letter on
        the submit subject naming its action id): act on it now rather than wait the decision
        timeout. An output that changes nothing is "no change" (``settle_unchanged``, decided from
        the project files, never from the letter); any other refusal ends the order
        ``BLOCKED`` with the engine's reason (fail closed: nothing is written)."""
        action_id = letter.correlation_id
        if not self.ctx.subjects.is_submit(letter.subject):
            return
        if not action_id.startswith(ACTION_PREFIX):
            return
        order_id = await self.sup.ledger.order_of(action_id)
        held = await self.sup.ledger.get(order_id) if order_id else None
        review = held.record.review if held is not None else None
        if held is None or review is None or review.action_id != action_id:
            return
        if held.record.phase != "reviewing" or review.notice is not None:
            return
        self._deadlines.pop(action_id, None)
        self.unconfirmed.pop(held.order_id, None)
        built = await dev_review_action(self.sup, held, review.result)
        if built is None:
            return
        if not (built[0].code_diff or "").strip():
            await settle_unchanged(self.sup, held, review.result)
            return
        await self.sup.settle(
            held,
            R.BLOCKED,
            reason=f"the review engine refused the Dev output ({action_id}): "
            f"{letter.error[:2_000]}; nothing was written",
        )

    async def apply(self, held: Held, report: HumanLayerReport) -> None:
        """Act on the decision ``report`` on the order's review (once: every change is a
        compare-and-set, so a duplicate or a stale decision does nothing)."""
        review = held.record.review
        if (
            held.record.phase != "reviewing"
            or review is None
            or review.action_id != report.action_id
        ):
            return
        if report.action_hash != review.action_hash:
            log.error("decision for %s names another action hash; ignored", report.action_id)
            return
        self.unconfirmed.pop(held.order_id, None)
        order = held.record.order
        reasons = "; ".join(report.blocking_reasons)[:20_000]
        if report.outcome is Outcome.NEEDS_REVIEW and not report.resolved_by:
            self._deadlines.pop(review.action_id, None)
            if review.notice is not None:
                return
            notice = self.sup.handoff(order, R.OK, decision_outcome="needs_review", reason=reasons)
            waiting = msgspec.structs.replace(review, notice=notice)
            record = msgspec.structs.replace(held.record, review=waiting)
            if await self.sup.ledger.update(held, record) is not None:
                await self.sup.publish_handoff(notice)
            return
        self._deadlines.pop(review.action_id, None)
        if report.outcome is Outcome.APPROVED:
            writing = msgspec.structs.replace(
                held.record, phase="writing", result=review.result, review=None
            )
            updated = await self.sup.ledger.update(held, writing)
            if updated is not None:
                await self.sup.ledger.unlink(review.action_id)
                await self.sup.finish_write(updated)
            return
        await self.sup.settle(
            held,
            R.OK,
            to=AgentName.DEV,
            decision_outcome="rejected",
            reason=reasons,
            findings=review_findings(report),
            summary=review.result.envelope.summary,
        )

    def recovered(self, held: Held) -> None:
        """A review recorded before a restart: looked up by ``confirm``."""
        review = held.record.review
        if review is not None:
            self.unconfirmed[held.order_id] = review.action_id

    async def confirm(self) -> None:
        """Look each recovered review up: act on its decision, or submit it again when the
        review engine does not know it. A review engine that does not answer yet is asked
        again later."""
        for order_id in list(self.unconfirmed):
            held = await self.sup.ledger.get(order_id)
            review = held.record.review if held is not None else None
            if held is None or review is None or held.record.phase != "reviewing":
                self.unconfirmed.pop(order_id, None)
                continue
            await self.sup.ledger.link(review.action_id, order_id)
            query = ReportQuery(id=review.action_id)
            try:
                msg = await self.ctx.bus.request(
                    self.ctx.subjects.report_get, encode(query), timeout=self.sup.report_timeout
                )
                answer = decode(msg.data, ReportReply)
            except (BusError, ContractError) as exc:
                log.info("review of %s not looked up yet: %s", review.action_id, exc)
                continue
            self.unconfirmed.pop(order_id, None)
            if answer.report is not None:
                await self.apply(held, answer.report)
            else:
                await self._resubmit(held)

    async def _resubmit(self, held: Held) -> None:
        review = held.record.review
        assert review is not None
        built = await dev_review_action(self.sup, held, review.result)
        if built is None:
            return
        action, digest = built
        if not (action.code_diff or "").strip():
            await settle_unchanged(self.sup, held, review.result)
            return
        if digest != review.action_hash:
            log.error(
                "order %s: the files changed under the review of %s; it is reviewed anew",
                held.order_id,
                review.action_id,
            )
            await self.sup.ledger.unlink(review.action_id)
            review = msgspec.structs.replace(
                review, action_id=f"{ACTION_PREFIX}{uuid.uuid4().hex[:24]}", action_hash=digest
            )
        review = msgspec.structs.replace(review, started=time.time())
        updated = await self.sup.ledger.update(
            held, msgspec.structs.replace(held.record, review=review)
        )
        if updated is None:
            return
        await self.sup.ledger.link(review.action_id, held.order_id)
        log.warning(
            "order %s: review %s submitted again after a restart", held.order_id, review.action_id
        )
        await self._publish(updated, action)

    async def sweep(self, now: float) -> None:
        """A review with no decision within the decision timeout ends ``BLOCKED``."""
        for action_id, (order_id, deadline) in list(self._deadlines.items()):
            if now <= deadline:
                continue
            del self._deadlines[action_id]
            held = await self.sup.ledger.get(order_id)
            review = held.record.review if held is not None else None
            if held is None or review is None or review.action_id != action_id or review.notice:
                continue
            await self.sup.settle(
                held,
                R.BLOCKED,
                reason=f"no review decision for {action_id} within {self.sup.decision_timeout:g}s",
            )
