"""``SupervisorActor``: decides what is reviewed, fans it out to the layers, recomputes every
layer's result and applies the gate.

The actor routes the messages and runs the background work; the review is beside it:
``Submissions`` admits and answers a submission (``admission``, ``standing``), ``ReviewFlow``
runs a review (``review_policy``, ``review_run``) and records its decision
(``decision_report``, ``DecisionOutbox``)."""

from __future__ import annotations

import functools
import logging
import uuid
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

import anyio

from humangr.contracts import (
    ActionSubmitted,
    HumanLayerReport,
    LayerID,
    LayerReport,
    ReportQuery,
    ReviewQuery,
    ReviewResolution,
    WorkerHeartbeat,
)
from humangr.contracts.grants import GrantQuery, GrantRevoke
from humangr.contracts.history import HistoryQuery
from humangr.engine.actor import Actor, ActorContext, Route
from humangr.engine.actor.damaged import report_damaged
from humangr.engine.bus import Msg
from humangr.engine.checks import SharedChecks, run_checks
from humangr.engine.config import ReviewConfig
from humangr.engine.errors import (
    BusClosedError,
    BusError,
    MessageRefused,
    SignatureError,
    StateError,
)
from humangr.engine.heartbeats import verify_heartbeat
from humangr.engine.signatures import verify_layer_report
from humangr.engine.signing import SigningKey
from humangr.engine.state import MemoryStateStore, StateStore
from humangr.engine.state.reviews import ReviewState

from .grant_desk import GrantDesk
from .grant_gate import GrantGate
from .human_review import HumanReviews
from .outbox import PUBLISH_ATTEMPTS, DecisionOutbox
from .review_run import ActiveReview, LocalLayer, record_report
from .submissions import Submissions
from .worker_roster import WorkerRoster, describe_layers

__all__ = ["PUBLISH_ATTEMPTS", "SupervisorActor"]

log = logging.getLogger("humangr.supervisor")

TICK_S = 1.0
"""How often the Supervisor looks at the outbox, the pending reviews and the reviews in flight."""


class SupervisorActor(Submissions, Actor):
    """Consumes ``ActionSubmitted`` and ``LayerReport``s, publishes ``Decision``s.

    The Supervisor alone decides what is reviewed: a submission that names ``layers`` is refused
    unless ``allow_layer_selection`` is set. It runs the local checks once per action and sends
    their findings with each ``LayerTask``; each ``LayerReport`` must be signed by a trusted
    worker key (``trusted_workers``) and carry the action's hash and the digest of the very
    task it answers, and the layer's result is recomputed from its runs and the Supervisor's
    own rule findings with the configured settings (its own consensus is never trusted).
    HL1–HL6 run in parallel, HL7 after them with their merged findings; as soon as the outcome
    is settled the decision is published and ``CancelAction`` stops the remaining work.
    Missing or late layers are ``error`` (at least ``needs_review``) and keep their rule
    findings.

    Decisions, pending human reviews, the outbox and (where the bus does not redeliver) the
    reviews in flight live in the shared ``StateStore``, so any number of Supervisors can serve
    one deployment and any of them can restart: a decision is recorded and published exactly
    once (``DecisionOutbox``); a redelivered submission that was decided publishes nothing new;
    a review whose Supervisor died is run again; resolutions, timeouts and queries work
    whichever Supervisor receives them (``HumanReviews``).
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
        state: StateStore | None = None,
        resume_inflight: bool = True,
        checks: SharedChecks | None = None,
        signing_key: SigningKey | None = None,
        trusted_workers: Iterable[str] = (),
        on_decision: Callable[[HumanLayerReport], bool | None] | None = None,
        local_layers: Mapping[LayerID, LocalLayer] | None = None,
    ) -> None:
        self.config = config
        self.local_layers: Mapping[LayerID, LocalLayer] = dict(local_layers or {})
        """Layer actors of this process: their tasks are handed over in process while they
        run (no bus message, no signature); any other layer's go by bus."""
        self._policy_notes = config.policy_notes()
        """What every report of this configuration says about its policy (worked out once)."""
        self.on_decision = on_decision
        """Told of each decision once signed and recorded (the embedded engine's waiters)."""
        self.signing_key = signing_key or SigningKey.generate()
        """Signs every decision (a fresh key per Supervisor unless one is given)."""
        self.trusted_workers = frozenset(trusted_workers)
        """The layer workers' public keys whose reports are accepted; any other report is
        dead-lettered (none trusted: every report is, and the layers count as missing)."""
        self.policy = policy
        self.llm_review = llm_review
        self.store: StateStore = state if state is not None else MemoryStateStore()
        self.resume_inflight = resume_inflight
        """Keep reviews in flight in the store and run again those whose Supervisor died
        (for buses that do not redeliver; JetStream does)."""
        self.owner = f"supervisor-{uuid.uuid4().hex[:12]}"
        self._checks = checks or SharedChecks(
            run=functools.partial(
                run_checks,
                options=config.check_options(),
                # Without LLM runs the local checks are the whole review: what none reads
                # is a finding "not reviewed by any local check".
                local_only=not llm_review or config.gate.runs_per_layer == 0,
            )
        )
        self._reviews: dict[str, ActiveReview] = {}
        self._answering: set[str] = set()
        """Actions taken from the mailbox and not answered yet (a duplicate is ignored)."""
        self._hashes: dict[tuple[str, str], anyio.Event] = {}
        """(action hash, policy version) of the reviews under way here, set when decided."""
        self._wake = anyio.Event()
        self.roster = WorkerRoster()
        """What the layer workers said they can serve (their heartbeats)."""
        self.heartbeats_heard = 0
        """Heartbeats handled (believed or refused): ``humangr bench`` leaves them out."""

    def routes(self, ctx: ActorContext) -> Sequence[Route[Any]]:
        self._ctx = ctx
        s = ctx.subjects
        return [
            Route(
                s.agent_submits,
                ActionSubmitted,
                self._on_action,
                queue="supervisor",
                # the submitter is the subject's agent, never the id the action claims
                subject_sender=s.submitter,
                receipt=True,  # the submitter learns it was received (core NATS)
            ),
            Route(s.action_submit, ActionSubmitted, self._on_bare_submit, queue="supervisor"),
            Route(s.layer_report, LayerReport, self._on_report),
            Route(s.worker_heartbeat, WorkerHeartbeat, self._on_heartbeat),
            Route(s.review_resolves, ReviewResolution, self._on_resolution, queue="supervisor"),
            Route(s.report_get, ReportQuery, self._on_report_query, queue="supervisor"),
            Route(s.agent_report_gets, ReportQuery, self._on_agent_query, queue="supervisor"),
            Route(s.review_query, ReviewQuery, self._on_review_query, queue="supervisor"),
            # reviewers' grant and history requests (GrantDesk)
            Route(s.grant_query, GrantQuery, self._on_grant_query, queue="supervisor"),
            Route(s.grant_revoke, GrantRevoke, self._on_grant_revoke, queue="supervisor"),
            Route(s.history_query, HistoryQuery, self._on_history_query, queue="supervisor"),
        ]

    async def setup(self, ctx: ActorContext) -> None:
        self.state = ReviewState(
            self.store,
            owner=self.owner,
            retention_s=self.config.report_retention_s,
            review_deadline_s=self.config.review_deadline_s,
            lease_s=self.config.lease_s,
            on_damaged=functools.partial(report_damaged, ctx),
        )
        await self.state.open()
        self.grants = await GrantGate(
            self.store, ctx.metrics, functools.partial(report_damaged, ctx)
        ).open()
        policy = self.config.rules
        if policy is not None:
            ctx.metrics.start_policy(
                [(r.id, r.effect.value) for r in policy.rules]
                + [("default", policy.default.value)],
                [s.id for s in policy.suppressions],
            )
        self.outbox = DecisionOutbox(ctx, self.state, self.signing_key, self.on_decision)
        self.humans = HumanReviews(ctx, self.state, self.outbox, self.grants.book)
        self.desk = GrantDesk(ctx, self.grants.book, self.state)
        if self.llm_review:
            log.info(
                "supervisor mode: LLM review, %s; a layer whose live workers all say they "
                "have no LLM is local checks only",
                self.roster.say_if_changed(quiet=True) or describe_layers(*self.roster.layers()),
            )
        else:
            log.info("supervisor mode: local checks only (--llm none): no LLM run is planned")
        if self.llm_review and not self.trusted_workers:
            log.warning(
                "no layer worker key is trusted: every layer report will be refused and every "
                "review with LLM runs will need a human; trust the workers' keys (--trust-workers)"
            )

    async def _on_report(self, report: LayerReport, _: Msg) -> None:
        try:
            verify_layer_report(report, self.trusted_workers)
        except SignatureError as exc:
            raise MessageRefused(str(exc), correlation_id=report.action_id) from None
        review = self._reviews.get(report.action_id)
        if review is None:
            log.debug("late or unexpected %s report for %s", report.layer_id, report.action_id)
            return
        if report.layer_id in review.here:
            raise MessageRefused(
                f"{report.layer_id} report for {report.action_id}: this layer reviews the "
                "action in the Supervisor's own process; a report by bus is not part of the "
                "review",
                correlation_id=report.action_id,
            )
        record_report(review, report, self.config, self._ctx.metrics)

    async def _on_heartbeat(self, beat: WorkerHeartbeat, _: Msg) -> None:
        """A layer worker says what it serves: LLM runs are planned only where one can. Only
        a trusted worker key's heartbeat counts (anyone else is refused: a dead letter)."""
        self.heartbeats_heard += 1
        try:
            verify_heartbeat(beat, self.trusted_workers)
        except SignatureError as exc:
            raise MessageRefused(str(exc)) from None
        self.roster.heard(beat, anyio.current_time())  # said at the next tick, if it changed

    async def _on_resolution(self, resolution: ReviewResolution, msg: Msg) -> None:
        await self.humans.on_resolution(resolution, msg)

    async def _on_report_query(self, query: ReportQuery, msg: Msg) -> None:
        await self.humans.on_report_query(query, msg)

    async def _on_agent_query(self, query: ReportQuery, msg: Msg) -> None:
        """A query on ``agent_report_get(<agent>)``: only that agent's reports are answered."""
        agent = msg.subject.rpartition(".")[2]
        await self.humans.on_report_query(query, msg, agent_id=agent)

    async def _on_review_query(self, query: ReviewQuery, msg: Msg) -> None:
        await self.humans.on_review_query(query, msg)

    async def _on_grant_query(self, query: GrantQuery, msg: Msg) -> None:
        await self.desk.on_grant_query(query, msg)

    async def _on_grant_revoke(self, request: GrantRevoke, msg: Msg) -> None:
        await self.desk.on_grant_revoke(request, msg)

    async def _on_history_query(self, query: HistoryQuery, msg: Msg) -> None:
        await self.desk.on_history_query(query, msg)

    async def background(self, ctx: ActorContext) -> None:
        """Every tick (or sooner when woken): publish what the outbox holds, announce and time
        out pending reviews, and run again the reviews in flight whose Supervisor died."""
        tick = min(TICK_S, self.config.lease_s / 4)
        renewed = 0.0
        async with anyio.create_task_group() as tg:
            while True:
                wait = tick
                self.roster.expire(anyio.current_time())
                if self.llm_review:
                    self.roster.say_if_changed()
                try:
                    await self.outbox.drain()
                    due = await self.humans.sweep()
                    if due is not None:
                        wait = min(wait, due)
                    if self.resume_inflight:
                        renew = anyio.current_time() - renewed >= self.config.lease_s / 3
                        if renew:
                            renewed = anyio.current_time()
                        await self._resume(tg, renew=renew)
                except BusClosedError:
                    raise
                except (BusError, StateError) as exc:
                    log.warning("supervisor background work: %s; trying again", exc)
                self._wake = anyio.Event()
                with anyio.move_on_after(wait):
                    await self._wake.wait()
