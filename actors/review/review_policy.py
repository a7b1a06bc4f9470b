"""The policy file's part in a review at the Supervisor: its decision on the action (counted;
one that cannot be evaluated sends the action to the layers, never an allow), the shadow
policy's disagreements (counted and logged, never deciding), the suppressions it marks on the
rule findings, and whether a grant in force decides the action."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from humangr.contracts import ActionSubmitted, Finding, LayerID
from humangr.engine.config import ReviewConfig
from humangr.engine.policy import Effect, PolicyDecision, decide, suppress
from humangr.engine.policy.replay import shadow_disagreement

from .grant_gate import GrantGate

if TYPE_CHECKING:
    from humangr.engine.metrics import Metrics

__all__ = ["granted", "note_shadow", "policy_decision", "suppressed"]

log = logging.getLogger("humangr.supervisor")


def policy_decision(
    config: ReviewConfig, submitted: ActionSubmitted, metrics: Metrics
) -> PolicyDecision | None:
    """What the policy file decides (``None``: no policy file); a policy that cannot be
    evaluated sends the action to the layers: never an allow."""
    policy = config.rules
    if policy is None:
        return None
    try:
        decision = decide(policy, submitted.action)
    except Exception:
        log.error("policy of %s failed; the layers review it", submitted.action_id, exc_info=True)
        decision = PolicyDecision(Effect.REVIEW, reason="the policy could not be evaluated")
    rule = decision.rule_id or "default"
    metrics.policy_decisions.labels(rule=rule, effect=decision.effect.value).inc()
    return decision


def note_shadow(
    config: ReviewConfig,
    submitted: ActionSubmitted,
    live: PolicyDecision | None,
    metrics: Metrics,
) -> None:
    """Count and log (ids, effects and rules only) where the shadow policy disagrees; it
    never affects the decision."""
    if config.shadow is None:
        return
    try:
        found = shadow_disagreement(config.shadow, submitted.action, live)
    except Exception:
        log.error("shadow policy of %s failed", submitted.action_id, exc_info=True)
        return
    if found is not None:
        was, new = found
        metrics.shadow_disagreements.labels(was.effect.value, new.effect.value).inc()
        log.warning(
            "shadow policy disagrees on %s: live %s (%s), shadow %s (%s)",
            submitted.action_id,
            was.effect.value,
            was.decided_by,
            new.effect.value,
            new.decided_by,
        )


def suppressed(
    config: ReviewConfig,
    submitted: ActionSubmitted,
    rules: dict[LayerID, list[Finding]],
    metrics: Metrics,
) -> dict[LayerID, list[Finding]]:
    """The rule findings with the policy's suppressions marked (none if that fails)."""
    policy = config.rules
    if policy is None or not policy.suppressions:
        return rules
    try:
        marked, applied = suppress(policy, submitted.action, rules)
    except Exception:
        log.error("suppressions of %s failed; none applied", submitted.action_id, exc_info=True)
        return rules
    for sid in applied:
        metrics.suppressions_applied.labels(suppression=sid).inc()
    return marked


async def granted(config: ReviewConfig, grants: GrantGate, submitted: ActionSubmitted) -> bool:
    """Whether a grant in force decides the action (a grant comes before a standing
    decision that is not an approval); a policy that cannot be evaluated: no."""
    if submitted.action.tool_call is None:
        return False
    policy = config.rules
    try:
        decision = None if policy is None else decide(policy, submitted.action)
    except Exception:
        return False
    _, grant = await grants.decide(submitted, decision)
    return grant is not None
