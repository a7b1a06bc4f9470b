"""One review under way at the Supervisor (``ActiveReview``) and its layers: the tasks sent to
them, the wait for their reports, each report checked and recorded, and each layer's result
recomputed from its runs and the Supervisor's own rule findings."""

from __future__ import annotations

import logging
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

import anyio

from humangr.contracts import (
    ActionSubmitted,
    ConsensusResult,
    Finding,
    LayerID,
    LayerReport,
    LayerRunResult,
    LayerTask,
    Outcome,
    Usage,
)
from humangr.engine.actor import ActorContext
from humangr.engine.config import ReviewConfig
from humangr.engine.errors import MessageRefused
from humangr.engine.policy import Effect, PolicyDecision
from humangr.engine.review import ReviewError, consensus, is_settled, layer_result
from humangr.engine.signatures import task_digest

if TYPE_CHECKING:
    from humangr.engine.metrics import Metrics

__all__ = [
    "DEADLINE_GRACE_S",
    "FINAL_LAYER",
    "ActiveReview",
    "LocalLayer",
    "layer_result_for",
    "merged_findings",
    "record_report",
    "run_layers",
]

log = logging.getLogger("humangr.supervisor")

FINAL_LAYER = LayerID.HL7
DEADLINE_GRACE_S = 0.5
"""Extra time the Supervisor waits past a layer's own deadline for its report."""


class LocalLayer(Protocol):
    """A layer actor in the Supervisor's own process (``LayerActor``): its tasks are handed
    to it and its reports come back as objects, with no bus message and no signature."""

    @property
    def ready(self) -> bool:
        """Whether it runs now (started and not stopped)."""
        ...

    async def review_task(self, task: LayerTask, digest: str | None = None) -> LayerReport | None:
        """The unsigned report of ``task`` (``None``: cancelled)."""
        ...

    def cancel(self, action_id: str) -> None:
        """Stop its work on ``action_id``: no report."""
        ...


@dataclass(slots=True)
class ActiveReview:
    """The state of one action's review while the Supervisor runs it."""

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
    counted: bool = True
    """Still counted in the in-flight gauge (until it is decided or given up)."""
    runs: list[LayerRunResult] = field(default_factory=list)
    """Every run the layers reported (for the cost)."""
    settled_by_rules: bool = False
    tasks: dict[LayerID, str] = field(default_factory=dict)
    """The digest of the task sent to each layer: a report must name it."""
    policy: PolicyDecision | None = None
    """What the policy file decided (``None``: no policy file)."""
    local: tuple[LayerID, ...] = ()
    """Layers given no LLM run: their live workers all say they have no LLM."""
    here: set[LayerID] = field(default_factory=set)
    """Layers whose task was handed to a layer actor of this process: their report comes back
    in process, and one by bus is not part of the review."""

    @property
    def action_id(self) -> str:
        """The id of the action under review."""
        return self.submitted.action_id


def merged_findings(review: ActiveReview, layers: Sequence[LayerID]) -> list[Finding]:
    """The merged findings of ``layers`` that reported (at most 500), for HL7's task."""
    findings = [
        f for lid in layers if lid in review.results for f in review.results[lid].merged_findings
    ]
    return findings[:500]


def layer_result_for(
    review: ActiveReview,
    lid: LayerID,
    runs: Sequence[Any],
    *,
    late: str | None,
    config: ReviewConfig,
) -> ConsensusResult:
    """The layer's result, recomputed from ``runs``, its rule findings and ``config``."""
    return layer_result(
        lid,
        runs,
        planned=review.planned,
        rules=review.rules[lid],
        settings=config.gate,
        adaptive=config.adaptive_redundancy,
        late=late,
    )


async def run_layers(
    ctx: ActorContext,
    config: ReviewConfig,
    review: ActiveReview,
    here: Mapping[LayerID, LocalLayer] | None = None,
) -> bool:
    """Rules first: when the local checks alone settle the outcome (a strong veto, or enough
    mediums) — or no LLM review is planned, so they are the whole review — decide at once,
    with no layer task and no LLM call. Otherwise HL1–HL6, then HL7.

    A layer in ``here`` (a layer actor of this process, running) gets its task handed over in
    process and its report is recorded as it comes back; the others get theirs by bus.
    Returns whether the outcome was settled early (the unfinished layers are then skipped)."""
    rules_only = {
        lid: consensus(lid, [], planned_runs=0, rule_findings=review.rules[lid])
        for lid in review.expected
    }
    rejected = is_settled(rules_only, review.expected, settings=config.gate)
    decided = review.policy is not None and review.policy.effect is not Effect.REVIEW
    if decided or rejected is Outcome.REJECTED or review.planned == 0:
        review.results = rules_only
        review.settled_by_rules = review.planned > 0 and not decided
        return False
    for lid in review.local:  # no worker can run them: their local checks are the result
        review.results[lid] = rules_only[lid]
    first = tuple(
        lid for lid in review.expected if lid is not FINAL_LAYER and lid not in review.local
    )
    here = {lid: layer for lid, layer in (here or {}).items() if layer.ready}
    async with anyio.create_task_group() as tg:
        dispatch = _Dispatch(ctx, config, review, here, tg)
        await dispatch.send(first)
        settled = await _wait(config, review, first)
        if settled is None and FINAL_LAYER in review.expected:
            if FINAL_LAYER not in review.local:
                await dispatch.send((FINAL_LAYER,), prior=merged_findings(review, first))
            settled = await _wait(config, review, (FINAL_LAYER,))
        unfinished = review.here - dispatch.answered
        for lid in unfinished:  # settled early or past the deadline: no report wanted
            here[lid].cancel(review.action_id)
        if unfinished:  # and a layer that ignores its cancel does not hold the review
            tg.cancel_scope.cancel()
    return settled is not None


@dataclass(slots=True)
class _Dispatch:
    """Sends a review's layer tasks: by bus, or to a layer of this process (``here``) in a
    task of ``tg`` whose report is recorded as a bus report would be."""

    ctx: ActorContext
    config: ReviewConfig
    review: ActiveReview
    here: Mapping[LayerID, LocalLayer]
    tg: anyio.abc.TaskGroup
    answered: set[LayerID] = field(default_factory=set)
    """Layers handed a task whose in-process review has returned (reported or not)."""

    async def send(self, layers: Sequence[LayerID], prior: list[Finding] | None = None) -> None:
        review, config = self.review, self.config
        for lid in layers:
            task = LayerTask(
                action_id=review.action_id,
                layer_id=lid,
                action=review.submitted.action,
                action_hash=review.action_hash,
                runs=review.planned,
                deadline_s=config.layer_deadline_s,
                prior_findings=prior or [],
                settings=config.gate,
                rule_findings=review.rules[lid][:500],
                adaptive=config.adaptive_redundancy,
            )
            digest = review.tasks[lid] = task_digest(task)
            layer = self.here.get(lid)
            if layer is None:
                await self.ctx.publish(self.ctx.subjects.layer_task(lid), task)
            else:
                review.here.add(lid)
                self.tg.start_soon(self._run_here, layer, task, digest)

    async def _run_here(self, layer: LocalLayer, task: LayerTask, digest: str) -> None:
        """``task`` reviewed by ``layer``; a failure leaves the layer without a report (it is
        then late: ``error``, at least a person's review), never a clean result."""
        try:
            report = await layer.review_task(task, digest)
            if report is not None:
                record_report(self.review, report, self.config, self.ctx.metrics)
        except MessageRefused as exc:
            log.error("in-process %s report refused: %s", task.layer_id.value, exc)
        except Exception:
            log.exception("in-process %s review of %s failed", task.layer_id.value, task.action_id)
        finally:
            self.answered.add(task.layer_id)


async def _wait(
    config: ReviewConfig, review: ActiveReview, layers: Sequence[LayerID]
) -> Outcome | None:
    """Wait until ``layers`` reported, the outcome settled early, or the deadline passed;
    a layer without a report by then is late: ``error`` with its rule findings."""
    with anyio.move_on_after(config.layer_deadline_s + DEADLINE_GRACE_S):
        while True:
            if config.early_exit:
                settled = is_settled(review.results, review.expected, settings=config.gate)
                if settled is Outcome.REJECTED:
                    return settled
            if all(lid in review.results for lid in layers):
                return None
            await review.changed.wait()
            review.changed = anyio.Event()
    late = f"no report within the deadline of {config.layer_deadline_s:g}s"
    for lid in layers:
        if lid not in review.results:
            review.results[lid] = layer_result_for(review, lid, [], late=late, config=config)
    return None


def record_report(
    review: ActiveReview, report: LayerReport, config: ReviewConfig, metrics: Metrics
) -> None:
    """Check a (verified) layer report against the review it answers and record the layer's
    recomputed result; a report that does not belong to the review is refused."""
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
    if report.task_digest is None or report.task_digest != review.tasks.get(lid):
        raise refuse(
            "it answers another task than the one this Supervisor sent (task_digest "
            f"{(report.task_digest or 'missing')[:12]}); a task published by anyone else "
            "is not part of the review"
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
        result = layer_result_for(review, lid, report.runs, late=late, config=config)
    except ReviewError as exc:
        raise refuse(str(exc)) from None
    _compare_view(report, result, metrics)
    review.results[lid] = result
    review.runs.extend(report.runs)
    review.usage = review.usage + sum((run.usage for run in report.runs), Usage())
    review.timings[lid.value] = (time.perf_counter() - review.started) * 1000
    review.changed.set()


def _compare_view(report: LayerReport, result: ConsensusResult, metrics: Metrics) -> None:
    """The layer's own consensus is never used to decide, but it must match the one
    recomputed from the same runs, rules and settings: a mismatch is logged and counted
    (``humangr_layer_view_mismatches_total``), the sign of a buggy, outdated or hostile
    worker. A late layer's view is only its reason, so it is not compared."""
    theirs = report.consensus
    if report.deadline_passed:
        return
    if (theirs.status, theirs.veto_level) == (result.status, result.veto_level):
        return
    metrics.layer_view_mismatches.labels(layer=report.layer_id.value).inc()
    log.warning(
        "%s report for %s says %s (veto %s), but its runs give %s (veto %s); the "
        "recomputed one is used (worker %s)",
        report.layer_id.value,
        report.action_id,
        theirs.status.value,
        theirs.veto_level.value,
        result.status.value,
        result.veto_level.value,
        report.signer or "unsigned",
    )
