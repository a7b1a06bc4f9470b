"""``HumanReviews``: the Supervisor's side of ``needs_review`` — announcing a review, taking a
human's resolution, rejecting at the deadline, and answering report and review queries.

Everything is read from and written to the shared ``ReviewState``, so it works whichever
Supervisor receives the message, and after any restart. A resolution or a timeout first claims
the pending review with compare-and-set, so it happens once across Supervisors. The claim is
short and never renewed: a resolution that finds another Supervisor's claim waits for it to
resolve the review or to run out (that Supervisor died), and then takes the review over.
"""

from __future__ import annotations

import logging

import anyio
import msgspec

from humangr.contracts import (
    HumanLayerReport,
    Outcome,
    ReportQuery,
    ReportReply,
    ReviewDetail,
    ReviewListing,
    ReviewQuery,
    ReviewResolution,
    ReviewSummary,
)
from humangr.contracts.types import utc_now
from humangr.engine.actor import ActorContext
from humangr.engine.bus import Msg
from humangr.engine.errors import BusClosedError, BusError, MessageRefused, StateError
from humangr.engine.state.grants import GrantBook
from humangr.engine.state.reviews import PendingRecord, ReviewState, Stored, final_key

from .grant_gate import create_grant, grant_problem
from .outbox import DecisionOutbox

__all__ = ["HumanReviews", "summary_of"]

log = logging.getLogger("humangr.supervisor")
TIMEOUT_BY = "timeout"
CLAIM_S = 2.0
"""How long a claim on a pending review keeps other Supervisors off. Resolving takes
milliseconds once claimed, and the final decision is created once whoever claims (the outbox's
gate), so the claim is short: a Supervisor that dies holding it blocks the review this long."""
CLAIM_POLL_S = 0.2


def summary_of(pending: PendingRecord) -> ReviewSummary:
    """How a list shows a pending review."""
    report, action = pending.report, pending.request.action
    return ReviewSummary(
        action_id=report.action_id,
        agent_id=report.agent_id,
        action_type=action.action_type,
        action_description=action.action_description[:2_000],
        report_id=report.report_id,
        action_hash=report.action_hash,
        blocking_reasons=report.blocking_reasons,
        findings=sum(len(r.merged_findings) for r in report.layer_results.values()),
        decided_at=report.decided_at,
        deadline=pending.request.deadline,
    )


def _unreadable(exc: StateError) -> str:
    return f"the review state cannot be read: {str(exc)[:1_500]}"


class HumanReviews:
    def __init__(
        self,
        ctx: ActorContext,
        state: ReviewState,
        outbox: DecisionOutbox,
        grants: GrantBook | None = None,
    ) -> None:
        self.ctx = ctx
        self.state = state
        self.outbox = outbox
        self.grants = grants

    async def announce(self, action_id: str) -> None:
        """Publish the ``ReviewRequested`` of a pending review (once it is marked, never again)."""
        stored = await self.state.pending_review(action_id)
        if stored is not None and not stored.value.announced:
            await self.ctx.publish(self.ctx.subjects.reviews_pending, stored.value.request)
            await self.state.mark_announced(stored)

    async def on_resolution(self, resolution: ReviewResolution, msg: Msg) -> None:
        action_id = resolution.action_id

        def refuse(reason: str) -> MessageRefused:
            return MessageRefused(reason, correlation_id=action_id)

        subject_id = self.ctx.subjects.last_token(msg.subject, 1)
        if subject_id != action_id:
            raise refuse(f"resolution for {action_id} published on the subject of {subject_id}")
        stored = await self.state.pending_review(action_id)
        if stored is None:
            raise refuse(
                f"no review pending for action {action_id} (unknown, already resolved or timed out)"
            )
        if stored.value.deadline <= self.state.clock():
            await self._expire(stored)  # the deadline decides, even before the sweep comes by
            raise refuse(
                f"the review of {action_id} timed out before this resolution arrived: it is "
                "rejected by timeout"
            )
        report = stored.value.report
        if resolution.grant_s:
            problem = grant_problem(resolution, stored.value.request.action)
            if problem is not None:
                raise refuse(f"resolution for {action_id}: {problem}")
        if resolution.action_hash != report.action_hash:
            raise refuse(
                f"resolution for {action_id} names action_hash {resolution.action_hash[:12]}…, "
                f"the action under review is {report.action_hash[:12]}…; a resolution binds to "
                "that hash only"
            )
        claimed = await self._claim(stored)
        if claimed is None:
            raise refuse(f"the review of {action_id} was already resolved")
        if claimed is False:
            raise refuse(
                f"the review of {action_id} is being resolved by another Supervisor; the review "
                "is still pending: try again in a few seconds"
            )
        outcome = Outcome.APPROVED if resolution.verdict == "approve" else Outcome.REJECTED
        # A human's word stands for the hash from now on, unless it is bounded by a grant
        # (then the grant carries it: its expiry or revocation ends it).
        overrules = not resolution.grant_s
        if not await self._finalize(
            report, outcome, resolution.reviewer, resolution.reason, overrules=overrules
        ):
            raise refuse(f"the review of {action_id} was already resolved")
        self._count(report, outcome.value)
        if resolution.grant_s and self.grants is not None:  # the approve won: one grant
            await create_grant(self.grants, resolution, stored.value.request.action)

    async def _claim(self, stored: Stored[PendingRecord]) -> bool | None:
        """Claim the pending review for this resolution. While another Supervisor holds it,
        wait — at most ``CLAIM_S`` and a little — for it to resolve the review (``None``: it is
        gone) or for its claim to run out (its Supervisor died: taken over, ``True``);
        ``False`` if it is still held then."""
        action_id = stored.value.report.action_id
        with anyio.move_on_after(CLAIM_S + CLAIM_POLL_S):
            while True:
                if await self.state.claim_review(stored, hold_s=CLAIM_S):
                    return True
                await anyio.sleep(CLAIM_POLL_S)
                found = await self.state.pending_review(action_id)
                if found is None:
                    return None
                stored = found
        return False

    async def _finalize(
        self,
        report: HumanLayerReport,
        outcome: Outcome,
        by: str,
        reason: str,
        *,
        extra_reason: str | None = None,
        overrules: bool = False,
    ) -> bool:
        reasons = report.blocking_reasons
        if extra_reason is not None:
            reasons = [*reasons, extra_reason][-200:]
        final = msgspec.structs.replace(
            report,
            outcome=outcome,
            resolved_by=by,
            resolution_reason=reason,
            blocking_reasons=reasons,
            decided_at=utc_now(),
        )
        decided = await self.outbox.decide(final_key(report.action_id), final, overrules=overrules)
        return decided is not None

    def _count(self, report: HumanLayerReport, verdict: str) -> None:
        metrics = self.ctx.metrics
        metrics.pending_reviews.dec()
        metrics.review_resolutions.labels(verdict=verdict).inc()
        waited = (utc_now() - report.decided_at).total_seconds()
        metrics.review_resolution_time.labels(verdict=verdict).observe(max(0.0, waited))

    async def sweep(self) -> float | None:
        """Announce what was not announced, reject what is past its deadline (once, across
        Supervisors). Returns the seconds until the next deadline, if any."""
        now = self.state.clock()
        upcoming: list[float] = []
        reviews = await self.state.pending_reviews()
        self.ctx.metrics.pending_reviews.set(len(reviews))  # also what other Supervisors did
        for stored in reviews:
            pending = stored.value
            try:
                if not pending.announced:
                    await self.announce(pending.report.action_id)
                if pending.deadline > now:
                    upcoming.append(pending.deadline - now)
                    continue
                await self._expire(stored)
            except BusClosedError:
                raise
            except (BusError, StateError) as exc:
                log.warning("review of %s: %s; trying again", pending.report.action_id, exc)
        return min(upcoming, default=None)

    async def _expire(self, stored: Stored[PendingRecord]) -> None:
        if not await self.state.claim_review(stored, hold_s=CLAIM_S):
            return
        deadline_s = self.state.review_deadline_s
        reason = f"review timed out: no resolution within {deadline_s:g}s"
        report = stored.value.report
        if await self._finalize(report, Outcome.REJECTED, TIMEOUT_BY, reason, extra_reason=reason):
            self._count(report, TIMEOUT_BY)

    async def on_report_query(
        self, query: ReportQuery, msg: Msg, *, agent_id: str | None = None
    ) -> None:
        """Answer with the latest recorded decision; a state that cannot be read is an error
        reply (never silence, never a report that is not there). With ``agent_id`` (an agent's
        own query subject) a report of another agent is answered as an unknown id is, so an
        agent can neither read nor probe the ids of others."""
        try:
            record = await self.state.latest(query.id)
        except StateError as exc:
            await self.ctx.reply(msg, ReportReply(error=_unreadable(exc)))
            return
        if record is not None and agent_id is not None and record.report.agent_id != agent_id:
            record = None
        reply = (
            ReportReply(report=record.report)
            if record is not None
            else ReportReply(error=f"no report with report id or action id {query.id!r}")
        )
        await self.ctx.reply(msg, reply)

    async def on_review_query(self, query: ReviewQuery, msg: Msg) -> None:
        """Answer with the pending reviews or one review's detail; a state that cannot be read
        is an error reply (never an empty list)."""
        try:
            reply = await self._listing(query)
        except StateError as exc:
            reply = ReviewListing(error=_unreadable(exc))
        await self.ctx.reply(msg, reply)

    async def _listing(self, query: ReviewQuery) -> ReviewListing:
        if query.action_id is None:
            pending = sorted(
                (s.value for s in await self.state.pending_reviews()), key=lambda p: p.deadline
            )
            return ReviewListing(reviews=[summary_of(p) for p in pending[: query.limit]])
        detail = await self._detail(query.action_id)
        if detail is None:
            return ReviewListing(error=f"no review of action or report {query.action_id!r}")
        return ReviewListing(detail=detail)

    async def _detail(self, id_: str) -> ReviewDetail | None:
        latest = await self.state.latest(id_)
        if latest is None:
            return None
        action_id = latest.report.action_id
        first = await self.state.decision(action_id)
        final = await self.state.decision(final_key(action_id))
        pending = await self.state.pending_review(action_id)
        return ReviewDetail(
            report=(first or latest).report,
            action=first.action if first is not None else None,
            pending=pending is not None,
            deadline=pending.value.request.deadline if pending is not None else None,
            final=final.report if final is not None and final.published else None,
        )
