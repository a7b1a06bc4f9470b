"""``SupervisorActor``: fans actions out to the layers, applies consensus and the gate."""

from __future__ import annotations

import logging
import time
import uuid
from collections import OrderedDict
from collections.abc import Sequence
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
)
from humangr.contracts.types import utc_now
from humangr.engine.actor import Actor, ActorContext, Route
from humangr.engine.bus import Msg
from humangr.engine.config import ReviewConfig
from humangr.engine.errors import MessageRefused
from humangr.engine.review import action_hash, build_report, is_settled

__all__ = ["SupervisorActor"]

log = logging.getLogger("humangr.supervisor")

FINAL_LAYER = LayerID.HL7
DEADLINE_GRACE_S = 0.5
"""Extra time the Supervisor waits past a layer's own deadline for its (error) report."""


@dataclass(slots=True)
class _Review:
    submitted: ActionSubmitted
    action_hash: str
    expected: tuple[LayerID, ...]
    started: float
    results: dict[LayerID, ConsensusResult] = field(default_factory=dict)
    usage: Usage = field(default_factory=Usage)
    timings: dict[str, float] = field(default_factory=dict)
    changed: anyio.Event = field(default_factory=anyio.Event)

    def add(self, report: LayerReport) -> bool:
        if report.layer_id not in self.expected or report.layer_id in self.results:
            return False
        self.results[report.layer_id] = report.consensus
        self.usage = self.usage + report.usage
        self.timings[report.layer_id.value] = (time.perf_counter() - self.started) * 1000
        self.changed.set()
        return True


@dataclass(slots=True)
class _PendingReview:
    report: HumanLayerReport
    deadline: float


class SupervisorActor(Actor):
    """Consumes ``ActionSubmitted`` and ``LayerReport``s, publishes ``Decision``s.

    HL1–HL6 run in parallel; HL7 runs after them with their merged findings. As soon as the
    outcome is settled the decision is published and ``CancelAction`` stops the remaining work.
    Missing or late layers make the outcome ``needs_review``; a human then resolves it, or the
    action is rejected when the review deadline passes.
    """

    name = "supervisor"
    max_concurrency = 10_000
    mailbox_size = 65_536

    def __init__(self, config: ReviewConfig, *, policy_version: str) -> None:
        self.config = config
        self.policy_version = policy_version
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
        review = _Review(message, action_hash(message.action), expected, time.perf_counter())
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
        action = message.action
        size = len(action.code_diff.encode()) if action.code_diff else 0
        if size > self.config.max_diff_bytes:
            raise MessageRefused(
                f"action {message.action_id}: diff of {size} bytes exceeds the limit of "
                f"{self.config.max_diff_bytes}; split the change or raise max_diff_bytes"
            )
        if message.action_hash and message.action_hash != action_hash(action):
            raise MessageRefused(
                f"action {message.action_id}: action_hash does not match the action; "
                "compute it over the canonical JSON of the action or leave it out"
            )
        if message.action_id in self._reviews or message.action_id in self._by_action:
            log.info("duplicate submission of %s ignored", message.action_id)
            return None
        configured = self.config.layers
        if message.layers is None:
            return configured
        expected = tuple(lid for lid in configured if lid in message.layers)
        if not expected:
            raise MessageRefused(
                f"action {message.action_id}: none of the requested layers "
                f"({', '.join(map(str, message.layers))}) is configured here"
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
                action_id=review.submitted.action_id,
                layer_id=lid,
                action=review.submitted.action,
                action_hash=review.action_hash,
                runs=self.config.gate.runs_per_layer,
                deadline_s=self.config.layer_deadline_s,
                prior_findings=prior or [],
            )
            await self._ctx.publish(self._ctx.subjects.layer_task(lid), task)

    async def _wait(self, review: _Review, layers: Sequence[LayerID]) -> Outcome | None:
        """Wait until ``layers`` reported, the outcome settled early, or the deadline passed."""
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
        return None

    async def _decide(self, review: _Review, *, early: bool) -> None:
        """Publish the decision; on an early exit the unfinished layers are marked skipped."""
        submitted = review.submitted
        review.timings["total"] = (time.perf_counter() - review.started) * 1000
        report = build_report(
            report_id=f"rpt-{uuid.uuid4().hex[:20]}",
            action_id=submitted.action_id,
            action=submitted.action,
            results=review.results,
            expected=tuple(review.results) if early else review.expected,
            timings=review.timings,
            usage=review.usage,
            policy=self.policy_version,
            settings=self.config.gate,
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
        if unfinished:
            reason = f"decided {report.outcome}; {len(unfinished)} layer(s) no longer needed"
            await self._ctx.publish(
                self._ctx.subjects.action_cancel(submitted.action_id),
                CancelAction(action_id=submitted.action_id, reason=reason),
            )
        if report.outcome is Outcome.NEEDS_REVIEW:
            await self._request_review(review, report)

    async def _publish_decision(self, report: HumanLayerReport, *, msg_id: str) -> None:
        self._store(report)
        self._ctx.metrics.decisions.labels(report.outcome.value).inc()
        await self._ctx.publish(
            self._ctx.subjects.decision(report.agent_id), report, headers={"Nats-Msg-Id": msg_id}
        )

    def _store(self, report: HumanLayerReport) -> None:
        self._reports[report.report_id] = report
        self._reports.move_to_end(report.report_id)
        self._by_action[report.action_id] = report.report_id
        while len(self._reports) > self.config.report_cache:
            _, old = self._reports.popitem(last=False)
            if self._by_action.get(old.action_id) == old.report_id:
                del self._by_action[old.action_id]

    async def _request_review(self, review: _Review, report: HumanLayerReport) -> None:
        deadline_s = self.config.review_deadline_s
        self._pending[report.action_id] = _PendingReview(report, time.monotonic() + deadline_s)
        self._pending_changed.set()
        await self._ctx.publish(
            self._ctx.subjects.reviews_pending,
            ReviewRequested(
                action_id=report.action_id,
                action_hash=report.action_hash,
                report_id=report.report_id,
                action=review.submitted.action,
                blocking_reasons=report.blocking_reasons,
                deadline=utc_now() + timedelta(seconds=deadline_s),
            ),
        )

    async def _on_report(self, report: LayerReport, _: Msg) -> None:
        review = self._reviews.get(report.action_id)
        if review is None or not review.add(report):
            log.debug("late or unexpected %s report for %s", report.layer_id, report.action_id)

    async def _on_resolution(self, resolution: ReviewResolution, msg: Msg) -> None:
        subject_id = self._ctx.subjects.last_token(msg.subject, 1)
        if subject_id != resolution.action_id:
            raise MessageRefused(
                f"resolution for {resolution.action_id} published on the subject of {subject_id}"
            )
        pending = self._pending.get(resolution.action_id)
        if pending is None:
            raise MessageRefused(
                f"no review pending for action {resolution.action_id} "
                "(unknown, already resolved or timed out)"
            )
        if resolution.action_hash != pending.report.action_hash:
            raise MessageRefused(
                f"resolution for {resolution.action_id} names action_hash "
                f"{resolution.action_hash[:12]}…, the action under review is "
                f"{pending.report.action_hash[:12]}…; a resolution binds to that hash only"
            )
        del self._pending[resolution.action_id]
        outcome = Outcome.APPROVED if resolution.verdict == "approve" else Outcome.REJECTED
        await self._finalize(pending.report, outcome, resolution.reviewer, resolution.reason)

    async def _finalize(
        self, report: HumanLayerReport, outcome: Outcome, by: str, reason: str
    ) -> None:
        final = msgspec.structs.replace(
            report,
            outcome=outcome,
            resolved_by=by,
            resolution_reason=reason,
            decided_at=utc_now(),
        )
        await self._publish_decision(final, msg_id=f"decision:{report.action_id}:resolved")

    async def background(self, ctx: ActorContext) -> None:
        """Reject every review whose deadline passed without a resolution."""
        while True:
            now = time.monotonic()
            for action_id, pending in list(self._pending.items()):
                if pending.deadline <= now:
                    del self._pending[action_id]
                    reason = (
                        f"review timed out: no resolution within {self.config.review_deadline_s:g}s"
                    )
                    expired = msgspec.structs.replace(
                        pending.report,
                        blocking_reasons=[*pending.report.blocking_reasons, reason][-200:],
                    )
                    await self._finalize(expired, Outcome.REJECTED, "timeout", reason)
            next_due = min((p.deadline for p in self._pending.values()), default=None)
            self._pending_changed = anyio.Event()
            with anyio.move_on_after(60.0 if next_due is None else max(0.0, next_due - now)):
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
