"""Re-deciding a stored decision under another policy, with the local checks only.

``redecide(report, action, policy, …)`` says what ``policy`` would have decided for ``action``
whose review produced ``report``: the rule (or default) that matches, the local checks run
again with the new policy's suppressions, and — for an action the policy sends to the layers —
the layer results recorded in ``report`` reused as they are (no LLM is ever called). When the
policy sends to the layers an action whose review never ran them (a rule or the local checks
decided it), the outcome is ``None``: it "would need the layers". Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass

from humangr.contracts import ActionContext, HumanLayerReport, LayerID, Outcome
from humangr.engine.checks import run_checks
from humangr.engine.checks.options import DEFAULT_OPTIONS, CheckOptions
from humangr.engine.review import DEFAULT_SETTINGS, GateSettings, consensus, gate, is_settled

from .evaluate import decide
from .model import Effect, Policy, PolicyDecision
from .suppress import suppress
from .verdict import LOCAL_CHECKS

__all__ = [
    "NEEDS_LAYERS",
    "RECORDED_LAYERS",
    "Redecision",
    "layers_ran",
    "redecide",
    "shadow_disagreement",
]

NEEDS_LAYERS = "would need the layers"
"""``decided_by`` of a re-decision the recorded report cannot settle without an LLM."""
RECORDED_LAYERS = "layers (recorded)"
"""``decided_by`` of a re-decision that reuses the layer results recorded in the report."""


@dataclass(frozen=True, slots=True)
class Redecision:
    """What the new policy would decide: the outcome (``None``: it would need the layers),
    what decides it (``rule:<id>``, ``policy default``, ``local checks``, the recorded
    layers), and the rule of the policy that matched (``default``: none)."""

    outcome: Outcome | None
    decided_by: str
    rule: str


def layers_ran(report: HumanLayerReport) -> bool:
    """Whether an LLM layer ran (and reported) in the review that produced ``report``."""
    return any(
        not result.local_only and (result.executed_runs > 0 or result.valid_runs > 0)
        for result in report.layer_results.values()
    )


def redecide(
    report: HumanLayerReport,
    action: ActionContext,
    policy: Policy,
    *,
    settings: GateSettings = DEFAULT_SETTINGS,
    options: CheckOptions = DEFAULT_OPTIONS,
    layers: Collection[LayerID] = (),
    local_only: bool = False,
) -> Redecision:
    """The decision ``policy`` would make on ``action`` (reviewed into ``report``).

    ``layers``: the layers expected (default: those of ``report``, else all seven);
    ``local_only``: the engine runs no LLM layer, so the local checks are the whole review.
    Fails closed: a local-check rejection stands under every rule but ``deny``."""
    decision = decide(policy, action)
    rule = decision.rule_id or "default"
    if decision.effect is Effect.DENY:
        return Redecision(Outcome.REJECTED, decision.decided_by, rule)
    expected = tuple(layers) or tuple(report.layer_results) or tuple(LayerID)
    found = run_checks(action, expected, options=options, local_only=local_only)
    marked, _ = suppress(policy, action, found)
    rules_only = {
        lid: consensus(
            lid, [], planned_runs=0, rule_findings=marked.get(lid, []), settings=settings
        )
        for lid in expected
    }
    if is_settled(rules_only, expected, settings=settings) is Outcome.REJECTED:
        return Redecision(Outcome.REJECTED, LOCAL_CHECKS, rule)
    if decision.effect is Effect.ALLOW:
        return Redecision(Outcome.APPROVED, decision.decided_by, rule)
    if decision.effect is Effect.ASK:
        return Redecision(Outcome.NEEDS_REVIEW, decision.decided_by, rule)
    if local_only:
        return Redecision(gate(rules_only, expected, settings=settings), LOCAL_CHECKS, rule)
    if layers_ran(report):
        return Redecision(report.outcome, RECORDED_LAYERS, rule)
    return Redecision(None, NEEDS_LAYERS, rule)


def shadow_disagreement(
    shadow: Policy, action: ActionContext, live: PolicyDecision | None
) -> tuple[PolicyDecision, PolicyDecision] | None:
    """The live and the shadow decision on ``action`` when their effects differ (no live
    policy: ``review``, what the engine does without one), else ``None``."""
    mine = decide(shadow, action)
    theirs = live if live is not None else PolicyDecision(Effect.REVIEW)
    return None if mine.effect is theirs.effect else (theirs, mine)
