"""The Supervisor's decision report of a review: its notes, the gate applied to the layers'
recomputed results, the policy file's decision, the cost of the review, and — on an early
exit — the unfinished layers marked skipped."""

from __future__ import annotations

import secrets
import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

import msgspec

from humangr.contracts import (
    ConsensusResult,
    HumanLayerReport,
    LayerID,
    LayerStatus,
    ReviewCost,
    VetoLevel,
)
from humangr.engine.config import ReviewConfig
from humangr.engine.policy import LOCAL_CHECKS, Effect, policy_report
from humangr.engine.review import build_report
from humangr.engine.review.cost import review_cost

from .review_run import ActiveReview

if TYPE_CHECKING:
    from humangr.engine.metrics import Metrics

__all__ = ["decision_report", "local_note", "review_cost_of"]


def local_note(layers: Sequence[LayerID]) -> str:
    """The report's note on layers that got no LLM run, said once."""
    names = ", ".join(lid.value for lid in layers)
    return f"local checks only for {names}: no live layer worker has an LLM for them"


def decision_report(
    review: ActiveReview,
    *,
    early: bool,
    config: ReviewConfig,
    notes: list[str],
    policy: Callable[[Sequence[LayerID]], str],
    metrics: Metrics,
) -> HumanLayerReport:
    """The report deciding ``review`` (its cost observed in ``metrics``). ``notes``: what every
    report of ``config`` says about its policy; ``policy``: the policy version of a set of
    layers. On an ``early`` exit the layers that did not report are marked skipped."""
    submitted = review.submitted
    review.timings["total"] = (time.perf_counter() - review.started) * 1000
    if review.expected != config.layers:
        notes = [
            f"partial review: {', '.join(lid.value for lid in review.expected)}",
            *(n for n in notes if not n.startswith("partial review")),
        ]
    if review.local:
        notes = [local_note(review.local), *notes]
    if review.settled_by_rules:
        notes = ["settled by local checks: no LLM call was needed", *notes]
    decision = review.policy
    if decision is not None and decision.effect is Effect.REVIEW and decision.rule_id:
        notes = [f"policy rule {decision.rule_id}: review", *notes]
    report = build_report(
        report_id=f"rpt-{secrets.token_hex(10)}",
        action_id=submitted.action_id,
        action=submitted.action,
        results=review.results,
        expected=tuple(review.results) if early else review.expected,
        timings=review.timings,
        usage=review.usage,
        policy=policy(review.expected),
        settings=config.gate,
        policy_notes=notes,
        digest=review.action_hash,
    )
    by_rules = review.settled_by_rules or review.planned == 0
    cost = review_cost_of(review, config)
    metrics.observe_cost(cost)
    report = msgspec.structs.replace(
        report, cost=cost, decided_by=LOCAL_CHECKS if by_rules else "layers"
    )
    if decision is not None:
        report = policy_report(report, decision)
    if not early:
        return report
    skipped = {
        lid: ConsensusResult(
            status=LayerStatus.SKIP,
            veto_level=VetoLevel.NONE,
            error=f"skipped: the outcome was settled ({report.outcome}) first",
        )
        for lid in review.expected
        if lid not in review.results
    }
    return msgspec.structs.replace(report, layer_results={**report.layer_results, **skipped})


def review_cost_of(review: ActiveReview, config: ReviewConfig) -> ReviewCost:
    """What the review's LLM runs cost at ``config``'s prices, and what the local checks, the
    policy file, adaptive redundancy and the early exit saved."""
    per_layer = review.planned
    planned = per_layer * (len(review.expected) - len(review.local))
    adaptive = early_exit = 0
    for lid in review.expected:
        result = review.results.get(lid)
        if result is None:
            early_exit += per_layer
        elif result.status is not LayerStatus.ERROR and not review.settled_by_rules:
            adaptive += max(0, result.planned_runs - result.executed_runs)
    by_policy = review.policy is not None and review.policy.effect is not Effect.REVIEW
    return review_cost(
        review.runs,
        config.prices,
        calls_planned=planned,
        saved_by_rules=planned if review.settled_by_rules or by_policy else 0,
        saved_by_adaptive=adaptive,
        saved_by_early_exit=early_exit,
    )
