"""``ReviewFlow``: the part of ``SupervisorActor`` that runs a review, as a mixin of it.

Policy, grants and local checks first, then the layers (``run_layers``), then the decision:
recorded and published once (``DecisionOutbox``), the layers' unfinished work cancelled and a
human review announced. The reviews in flight whose Supervisor died are run again from here.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Mapping, Sequence

import anyio

from humangr.contracts import ActionSubmitted, CancelAction, Finding, LayerID, Outcome
from humangr.engine.actor import ActorContext
from humangr.engine.checks import SharedChecks
from humangr.engine.config import ReviewConfig
from humangr.engine.errors import BusClosedError, BusError, MessageRefused, StateError
from humangr.engine.policy import Effect
from humangr.engine.review import action_hash
from humangr.engine.state.records import DamagedEntry
from humangr.engine.state.reviews import InflightRecord, ReviewState, Stored

from .admission import requested_layers
from .decision_report import decision_report
from .grant_gate import GrantGate
from .human_review import HumanReviews
from .outbox import DecisionOutbox
from .review_policy import note_shadow, policy_decision, suppressed
from .review_run import ActiveReview, LocalLayer, run_layers
from .worker_roster import WorkerRoster

__all__ = ["ReviewFlow"]

log = logging.getLogger("humangr.supervisor")


class ReviewFlow:
    """Runs the reviews of one Supervisor (a mixin: ``SupervisorActor`` sets what it uses)."""

    config: ReviewConfig
    policy: Callable[[Sequence[LayerID]], str]
    llm_review: bool
    resume_inflight: bool
    roster: WorkerRoster
    state: ReviewState
    grants: GrantGate
    outbox: DecisionOutbox
    humans: HumanReviews
    _ctx: ActorContext
    _checks: SharedChecks
    _policy_notes: list[str]
    _reviews: dict[str, ActiveReview]
    _wake: anyio.Event
    local_layers: Mapping[LayerID, LocalLayer]

    async def _review(
        self, submitted: ActionSubmitted, expected: tuple[LayerID, ...], digest: str | None = None
    ) -> None:
        digest = digest or action_hash(submitted.action)
        planned = self.config.gate.runs_per_layer if self.llm_review else 0
        local = self.roster.local_only(expected) if planned else ()
        if local == expected:  # no worker can run an LLM call for any of them
            planned = 0
        decision = policy_decision(self.config, submitted, self._ctx.metrics)
        note_shadow(self.config, submitted, decision, self._ctx.metrics)
        decision, grant = await self.grants.decide(submitted, decision)
        rules: dict[LayerID, list[Finding]] = {lid: [] for lid in expected}
        if decision is None or decision.effect is not Effect.DENY:  # deny needs no check
            for lid in expected:
                rules[lid] = await self._checks.findings(digest, submitted.action, lid)
            rules = suppressed(self.config, submitted, rules, self._ctx.metrics)
        started = time.perf_counter()
        review = ActiveReview(
            submitted, digest, expected, planned, rules, started, policy=decision, local=local
        )
        self._reviews[submitted.action_id] = review
        metrics = self._ctx.metrics
        metrics.actions_submitted.inc()
        metrics.inflight_actions.inc()
        try:
            if self.resume_inflight:
                await self.state.track(submitted)
            early = await run_layers(self._ctx, self.config, review, self.local_layers)
            await self._decide(review, early=early)
            await self.grants.used(grant)
        finally:
            self._uncount(review)
            self._reviews.pop(submitted.action_id, None)

    async def _decide(self, review: ActiveReview, *, early: bool) -> None:
        """Publish the decision; on an early exit the unfinished layers are marked skipped."""
        report = decision_report(
            review,
            early=early,
            config=self.config,
            notes=self._policy_notes,
            policy=self.policy,
            metrics=self._ctx.metrics,
        )
        action_id = review.action_id
        self._ctx.metrics.decision_latency.observe(time.perf_counter() - review.started)
        self._uncount(review)
        recorded = await self.outbox.decide(action_id, report, review.submitted.action)
        result = "decided" if recorded is not None else "duplicate"
        self._ctx.metrics.count_submission(result)
        if recorded is None:
            return
        unfinished = [lid for lid in review.expected if lid not in review.results]
        await self._decided(action_id, recorded.outcome, unfinished)

    async def _decided(self, action_id: str, outcome: Outcome, unfinished: list[LayerID]) -> None:
        """After a decision is recorded: cancel the layers' unfinished work, announce a review."""
        try:
            if unfinished:
                reason = f"decided {outcome}; {len(unfinished)} layer(s) no longer needed"
                await self._ctx.publish(
                    self._ctx.subjects.action_cancel(action_id),
                    CancelAction(action_id=action_id, reason=reason),
                )
            if outcome is Outcome.NEEDS_REVIEW:
                self._ctx.metrics.pending_reviews.inc()
                await self.humans.announce(action_id)
        except BusClosedError:
            raise
        except (BusError, StateError) as exc:
            # The decision is recorded; a lost cancel only costs the layers' work, and an
            # unannounced review is announced by ``background``.
            log.warning("after deciding %s: %s", action_id, exc)
            self._wake.set()

    def _uncount(self, review: ActiveReview) -> None:
        if review.counted:
            review.counted = False
            self._ctx.metrics.inflight_actions.dec()

    async def _resume(self, tg: anyio.abc.TaskGroup, *, renew: bool) -> None:
        if renew:
            for action_id in list(self._reviews):
                await self.state.renew(action_id)
        for stored in await self.state.stale_inflight():
            submitted = stored.value.submitted
            if submitted.action_id in self._reviews or not await self.state.claim_inflight(stored):
                continue
            try:
                decided = await self.state.decision(submitted.action_id)
            except DamagedEntry:  # quarantined and reported; never decided twice
                await self.state.untrack(submitted.action_id)
                continue
            if decided is not None:
                if not decided.published:
                    await self.state.ensure_outbox(submitted.action_id)
                await self.state.untrack(submitted.action_id)
                continue
            log.warning("review of %s lost its Supervisor; running it again", submitted.action_id)
            tg.start_soon(self._rerun, stored)

    async def _rerun(self, stored: Stored[InflightRecord]) -> None:
        submitted = stored.value.submitted
        try:
            expected = requested_layers(
                submitted, self.config.layers, lambda reason: MessageRefused(reason)
            )
            await self._review(submitted, expected)
        except Exception as exc:  # one lost review must not stop the background work
            log.error("running %s again failed: %s", submitted.action_id, exc)
