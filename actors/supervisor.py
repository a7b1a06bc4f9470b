"""``SupervisorActor``: decides what is reviewed, fans it out to the layers, recomputes every
layer's result and applies the gate."""

from __future__ import annotations

import logging
import time
import uuid
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

import anyio
import msgspec

from humangr.contracts import (
    ActionSubmitted,
    CancelAction,
    ConsensusResult,
    Finding,
    HumanLayerReport,
    LayerID,
    LayerReport,
    LayerStatus,
    LayerTask,
    Outcome,
    ReportQuery,
    ReportReply,
    ReviewRequested,
    ReviewResolution,
    Usage,
    VetoLevel,
    action_problem,
)
from humangr.contracts.types import utc_now
from humangr.engine.actor import Actor, ActorContext, Route
from humangr.engine.bus import Msg
from humangr.engine.checks import SharedChecks
from humangr.engine.config import ReviewConfig
from humangr.engine.errors import BusClosedError, BusError, MessageRefused
from humangr.engine.review import (
    ReviewError,
    action_hash,
    build_report,
    is_settled,
    layer_result,
)

__all__ = ["PUBLISH_ATTEMPTS", "SupervisorActor"]

log = logging.getLogger("humangr.supervisor")

FINAL_LAYER = LayerID.HL7
DEADLINE_GRACE_S = 0.5
"""Extra time the Supervisor waits past a layer's own deadline for its report."""
PUBLISH_ATTEMPTS = 4
"""Tries to publish a decision before the handler fails (and JetStream redelivers the work)."""
_PUBLISH_BACKOFF_S = (0.05, 0.25, 1.0)


@dataclass(slots=True)
class _Review:
    submitted: ActionSubmitted
    action_hash: str
    expected: tuple[LayerID, ...]
    planned: int
    rules: dict[LayerID, list[Finding]]
    started: float
    results: dict[LayerID, ConsensusResult] = field(default_factory=dict)
    usage: Usage = field(default_factory=Usage)
    timings: dict[str, float] = field(default_factory=dict)
    changed: anyio.Event = field(default_factory=anyio.Event)

    @property
    def action_id(self) -> str:
        return self.submitted.action_id


@dataclass(slots=True)
class _PendingReview:
    report: HumanLayerReport
    request: ReviewRequested
    deadline: float
    announced: bool = False


class SupervisorActor(Actor):
    """Consumes ``ActionSubmitted`` and ``LayerReport``s, publishes ``Decision``s.

    The Supervisor alone decides what is reviewed: a submission that names ``layers`` is refused
    unless ``allow_layer_selection`` is set. It runs the local checks once per action and sends
    their findings with each ``LayerTask``; each ``LayerReport`` must carry the action's hash,
    and the layer's result is recomputed from its runs with the configured settings (its own
    consensus is never trusted). HL1–HL6 run in parallel, HL7 after them with their merged
    findings; as soon as the outcome is settled the decision is published and ``CancelAction``
    stops the remaining work. Missing or late layers are ``error`` (at least ``needs_review``)
    and keep their rule findings. A decision is published first and recorded only once out, so
    a failed publish is retried or redelivered, never lost. A ``needs_review`` waits for a human
    resolution, or is rejected when the review deadline passes.
    """

    name = "supervisor"
    max_concurrency = 10_000
    mailbox_size = 65_536

    def __init__(
        self,
        config: ReviewConfig,
        *,
        policy: Callable[[Sequence[LayerID]], str],
        llm_review: bool,
        checks: SharedChecks | None = None,
    ) -> None:
        self.config = config
        self.policy = policy
        self.llm_review = llm_review
        self._checks = checks or SharedChecks()
        self._reviews: dict[str, _Review] = {}
        self._reports: OrderedDict[str, HumanLayerReport] = OrderedDict()
        self._by_action: dict[str, str] = {}
        self._pending: dict[str, _PendingReview] = {}
        self._pending_changed = anyio.Event()

    def routes(self, ctx: ActorContext) -> Sequence[Route[Any]]:
        self._ctx = ctx
        s = ctx.subjects
        return [
            Route(s.action_submit, ActionSubmitted, self._on_action, queue="supervisor"),
            Route(s.layer_report, LayerReport, self._on_report),
            Route(s.review_resolves, ReviewResolution, self._on_resolution, queue="supervisor"),
            Route(s.report_get, ReportQuery, self._on_query, queue="supervisor"),
        ]

    def report(self, id_: str) -> HumanLayerReport | None:
        """A stored report by report id or action id."""
        report_id = self._by_action.get(id_, id_)
        return self._reports.get(report_id)

    async def _on_action(self, message: ActionSubmitted, _: Msg) -> None:
        expected = self._admit(message)
        if expected is None:
            return
        digest = action_hash(message.action)
        planned = self.config.gate.runs_per_layer if self.llm_review else 0
        rules = {lid: await self._checks.findings(digest, message.action, lid) for lid in expected}
        review = _Review(message, digest, expected, planned, rules, time.perf_counter())
        self._reviews[message.action_id] = review
        metrics = self._ctx.metrics
        metrics.actions_submitted.inc()
        metrics.inflight_actions.inc()
        try:
            await self._run(review)
        finally:
            metrics.inflight_actions.dec()
            self._reviews.pop(message.action_id, None)

    def _admit(self, message: ActionSubmitted) -> tuple[LayerID, ...] | None:
        """The layers to run, or ``None`` for a duplicate; refuses what cannot be reviewed."""
        action_id = message.action_id

        def refuse(reason: str) -> MessageRefused:
            return MessageRefused(f"action {action_id}: {reason}", correlation_id=action_id)

        if message.layers is not None and not self.config.allow_layer_selection:
            raise refuse(
                "the submission names the layers to run; the Supervisor alone decides what "
                "reviews an action (allow_layer_selection is off): leave `layers` out"
            )
        problem = action_problem(message.action, max_diff_bytes=self.config.max_diff_bytes)
        if problem is not None:
            raise refuse(problem)
        digest = action_hash(message.action)
        if message.action_hash and message.action_hash != digest:
            raise refuse(
                "action_hash does not match the action; compute it over the canonical JSON of "
                "the action or leave it out"
            )
        if action_id in self._reviews:
            log.info("submission of %s is already under review; duplicate ignored", action_id)
            return None
        decided = self.report(action_id)
        if decided is not None:
            if decided.action_hash != digest:
                raise refuse(
                    "this action id was already decided for another action; submit a new "
                    "action under a new id"
                )
            log.info("%s was already decided (%s); nothing new to publish", action_id, decided)
            return None
        configured = self.config.layers
        if message.layers is None:
            return configured
        expected = tuple(lid for lid in configured if lid in message.layers)
        if not expected:
            raise refuse(
                f"none of the requested layers ({', '.join(map(str, message.layers))}) is "
                "configured here"
            )
        return expected

    async def _run(self, review: _Review) -> None:
        first = tuple(lid for lid in review.expected if lid is not FINAL_LAYER)
        await self._dispatch(review, first)
        settled = await self._wait(review, first)
        if settled is None and FINAL_LAYER in review.expected:
            await self._dispatch(review, (FINAL_LAYER,), prior=_merged(review, first))
            settled = await self._wait(review, (FINAL_LAYER,))
        await self._decide(review, early=settled is not None)

    async def _dispatch(
        self, review: _Review, layers: Sequence[LayerID], prior: list[Finding] | None = None
    ) -> None:
        for lid in layers:
            task = LayerTask(
                action_id=review.action_id,
                layer_id=lid,
                action=review.submitted.action,
                action_hash=review.action_hash,
                runs=review.planned,
                deadline_s=self.config.layer_deadline_s,
                prior_findings=prior or [],
                settings=self.config.gate,
                rule_findings=review.rules[lid][:500],
                adaptive=self.config.adaptive_redundancy,
            )
            await self._ctx.publish(self._ctx.subjects.layer_task(lid), task)

    async def _wait(self, review: _Review, layers: Sequence[LayerID]) -> Outcome | None:
        """Wait until ``layers`` reported, the outcome settled early, or the deadline passed;
        a layer without a report by then is late: ``error`` with its rule findings."""
        with anyio.move_on_after(self.config.layer_deadline_s + DEADLINE_GRACE_S):
            while True:
                if self.config.early_exit:
                    settled = is_settled(review.results, review.expected, settings=self.config.gate)
                    if settled is Outcome.REJECTED:
                        return settled
                if all(lid in review.results for lid in layers):
                    return None
                await review.changed.wait()
                review.changed = anyio.Event()
        late = f"no report within the deadline of {self.config.layer_deadline_s:g}s"
        for lid in layers:
            if lid not in review.results:
                review.results[lid] = self._result(review, lid, [], late=late)
        return None

    def _result(
        self, review: _Review, lid: LayerID, runs: Sequence[Any], *, late: str | None
    ) -> ConsensusResult:
        return layer_result(
            lid,
            runs,
            planned=review.planned,
            rules=review.rules[lid],
            settings=self.config.gate,
            adaptive=self.config.adaptive_redundancy,
            late=late,
        )

    async def _decide(self, review: _Review, *, early: bool) -> None:
        """Publish the decision; on an early exit the unfinished layers are marked skipped."""
        submitted = review.submitted
        review.timings["total"] = (time.perf_counter() - review.started) * 1000
        notes = self.config.policy_notes()
        if review.expected != self.config.layers:
            notes = [
                f"partial review: {', '.join(lid.value for lid in review.expected)}",
                *(n for n in notes if not n.startswith("partial review")),
            ]
        report = build_report(
            report_id=f"rpt-{uuid.uuid4().hex[:20]}",
            action_id=submitted.action_id,
            action=submitted.action,
            results=review.results,
            expected=tuple(review.results) if early else review.expected,
            timings=review.timings,
            usage=review.usage,
            policy=self.policy(review.expected),
            settings=self.config.gate,
            policy_notes=notes,
        )
        if early:
            skipped = {
                lid: ConsensusResult(
                    status=LayerStatus.SKIP,
                    veto_level=VetoLevel.NONE,
                    error=f"skipped: the outcome was settled ({report.outcome}) first",
                )
                for lid in review.expected
                if lid not in review.results
            }
            report = msgspec.structs.replace(
                report, layer_results={**report.layer_results, **skipped}
            )
        await self._publish_decision(report, msg_id=f"decision:{submitted.action_id}")
        self._ctx.metrics.decision_latency.observe(time.perf_counter() - review.started)
        unfinished = [lid for lid in review.expected if lid not in review.results]
        pending = None
        if report.outcome is Outcome.NEEDS_REVIEW:
            pending = self._pending_review(review, report)
        try:
            if unfinished:
                reason = f"decided {report.outcome}; {len(unfinished)} layer(s) no longer needed"
                await self._ctx.publish(
                    self._ctx.subjects.action_cancel(submitted.action_id),
                    CancelAction(action_id=submitted.action_id, reason=reason),
                )
            if pending is not None:
                await self._announce(pending)
        except BusClosedError:
            raise
        except BusError as exc:
            # The decision is out; a lost cancel only costs the layers' work, and an
            # unannounced review is announced again by ``background``.
            log.warning("after deciding %s: %s", submitted.action_id, exc)

    async def _publish_decision(self, report: HumanLayerReport, *, msg_id: str) -> None:
        """Publish, retrying a failed publish a few times; record the decision only once it is
        out (a failure propagates, so the submission is redelivered and decided again)."""
        subject = self._ctx.subjects.decision(report.agent_id)
        for attempt, backoff in enumerate((*_PUBLISH_BACKOFF_S, None), 1):
            try:
                await self._ctx.publish(subject, report, headers={"Nats-Msg-Id": msg_id})
                break
            except BusClosedError:
                raise
            except BusError as exc:
                if backoff is None:
                    raise
                log.warning(
                    "publishing the decision on %s failed (attempt %d of %d): %s",
                    report.action_id,
                    attempt,
                    PUBLISH_ATTEMPTS,
                    exc,
                )
                await anyio.sleep(backoff)
        self._store(report)
        self._ctx.metrics.decisions.labels(report.outcome.value).inc()

    def _store(self, report: HumanLayerReport) -> None:
        self._reports[report.report_id] = report
        self._reports.move_to_end(report.report_id)
        self._by_action[report.action_id] = report.report_id
        while len(self._reports) > self.config.report_cache:
            _, old = self._reports.popitem(last=False)
            if self._by_action.get(old.action_id) == old.report_id:
                del self._by_action[old.action_id]

    def _pending_review(self, review: _Review, report: HumanLayerReport) -> _PendingReview:
        deadline_s = self.config.review_deadline_s
        request = ReviewRequested(
            action_id=report.action_id,
            action_hash=report.action_hash,
            report_id=report.report_id,
            action=review.submitted.action,
            blocking_reasons=report.blocking_reasons,
            deadline=utc_now() + timedelta(seconds=deadline_s),
        )
        pending = _PendingReview(report, request, time.monotonic() + deadline_s)
        self._pending[report.action_id] = pending
        self._pending_changed.set()
        return pending

    async def _announce(self, pending: _PendingReview) -> None:
        await self._ctx.publish(self._ctx.subjects.reviews_pending, pending.request)
        pending.announced = True

    async def _on_report(self, report: LayerReport, _: Msg) -> None:
        review = self._reviews.get(report.action_id)
        if review is None:
            log.debug("late or unexpected %s report for %s", report.layer_id, report.action_id)
            return
        lid = report.layer_id

        def refuse(reason: str) -> MessageRefused:
            return MessageRefused(
                f"{lid} report for {report.action_id}: {reason}", correlation_id=report.action_id
            )

        if report.action_hash != review.action_hash:
            named = f"{report.action_hash[:12]}…" if report.action_hash else "no action hash"
            raise refuse(
                f"names {named}, the action under review is {review.action_hash[:12]}…; a "
                "report binds to the action hash of its task"
            )
        if lid not in review.expected:
            raise refuse("this layer was not asked to review the action")
        if lid in review.results:
            log.info("second %s report for %s ignored", lid, report.action_id)
            return
        late = None
        if report.deadline_passed:
            late = report.consensus.error or "the layer's deadline passed"
        try:
            result = self._result(review, lid, report.runs, late=late)
        except ReviewError as exc:
            raise refuse(str(exc)) from None
        review.results[lid] = result
        review.usage = review.usage + sum((run.usage for run in report.runs), Usage())
        review.timings[lid.value] = (time.perf_counter() - review.started) * 1000
        review.changed.set()

    async def _on_resolution(self, resolution: ReviewResolution, msg: Msg) -> None:
        action_id = resolution.action_id
        subject_id = self._ctx.subjects.last_token(msg.subject, 1)
        if subject_id != action_id:
            raise MessageRefused(
                f"resolution for {action_id} published on the subject of {subject_id}",
                correlation_id=action_id,
            )
        pending = self._pending.get(action_id)
        if pending is None:
            raise MessageRefused(
                f"no review pending for action {action_id} "
                "(unknown, already resolved or timed out)",
                correlation_id=action_id,
            )
        if resolution.action_hash != pending.report.action_hash:
            raise MessageRefused(
                f"resolution for {action_id} names action_hash "
                f"{resolution.action_hash[:12]}…, the action under review is "
                f"{pending.report.action_hash[:12]}…; a resolution binds to that hash only",
                correlation_id=action_id,
            )
        outcome = Outcome.APPROVED if resolution.verdict == "approve" else Outcome.REJECTED
        await self._finalize(pending, outcome, resolution.reviewer, resolution.reason)

    async def _finalize(
        self,
        pending: _PendingReview,
        outcome: Outcome,
        by: str,
        reason: str,
        *,
        extra_reason: str | None = None,
    ) -> None:
        report = pending.report
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
        await self._publish_decision(final, msg_id=f"decision:{report.action_id}:resolved")
        if self._pending.get(report.action_id) is pending:
            del self._pending[report.action_id]

    async def background(self, ctx: ActorContext) -> None:
        """Reject every review whose deadline passed without a resolution; announce reviews
        whose request could not be published yet."""
        while True:
            now = time.monotonic()
            retry_in = 60.0
            for pending in list(self._pending.values()):
                try:
                    if not pending.announced:
                        await self._announce(pending)
                    if pending.deadline <= now:
                        reason = (
                            "review timed out: no resolution within "
                            f"{self.config.review_deadline_s:g}s"
                        )
                        await self._finalize(
                            pending, Outcome.REJECTED, "timeout", reason, extra_reason=reason
                        )
                except BusClosedError:
                    raise
                except BusError as exc:
                    log.warning("review of %s: %s; trying again", pending.report.action_id, exc)
                    retry_in = 1.0
            next_due = min((p.deadline for p in self._pending.values()), default=None)
            wait = retry_in if next_due is None else min(retry_in, max(0.0, next_due - now))
            self._pending_changed = anyio.Event()
            with anyio.move_on_after(wait):
                await self._pending_changed.wait()

    async def _on_query(self, query: ReportQuery, msg: Msg) -> None:
        report = self.report(query.id)
        reply = (
            ReportReply(report=report)
            if report is not None
            else ReportReply(error=f"no report with report id or action id {query.id!r}")
        )
        await self._ctx.reply(msg, reply)


def _merged(review: _Review, layers: Sequence[LayerID]) -> list[Finding]:
    findings = [
        f for lid in layers if lid in review.results for f in review.results[lid].merged_findings
    ]
    return findings[:500]
