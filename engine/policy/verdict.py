"""The decision a policy rule makes, written into the report of the local checks.

An ``allow``, ``ask`` or ``deny`` rule decides without any layer task or LLM call. The local
checks have run all the same, and the report built from them says whether they reject the
action on their own (a strong veto, or enough medium ones): ``deny`` rejects in any case;
``allow`` approves and ``ask`` hands the action to a human — unless the local checks reject it,
which no rule overrides (an allowed call that carries a private key is still rejected).
"""

from __future__ import annotations

import msgspec

from humangr.contracts import HumanLayerReport, Outcome

from .model import Effect, PolicyDecision

__all__ = ["LOCAL_CHECKS", "policy_report"]

LOCAL_CHECKS = "local checks"
"""``decided_by`` of a report the local checks settled."""
_MAX_TEXT = 2_000


def _clip(text: str) -> str:
    return text if len(text) <= _MAX_TEXT else text[: _MAX_TEXT - 1] + "…"


def policy_report(report: HumanLayerReport, decision: PolicyDecision) -> HumanLayerReport:
    """``report`` (the gate over the local checks alone) decided by ``decision`` (an ``allow``,
    ``ask`` or ``deny`` effect); a ``review`` decision returns ``report`` unchanged."""
    effect = decision.effect
    if effect is Effect.REVIEW:
        return report
    label = decision.label
    why = f" — {decision.reason}" if decision.reason else ""
    local = list(report.blocking_reasons)
    local_rejects = report.outcome is Outcome.REJECTED
    by = decision.decided_by
    if effect is Effect.DENY:
        outcome, reasons = Outcome.REJECTED, [f"{label}: deny{why}", *local]
    elif local_rejects:
        outcome, by = Outcome.REJECTED, LOCAL_CHECKS
        reasons = [*local, f"{label}: {effect.value}{why}; a rule never overrides a local check"]
    elif effect is Effect.ASK:
        outcome, reasons = Outcome.NEEDS_REVIEW, [f"{label}: ask — a human decides{why}", *local]
    else:
        outcome, reasons = Outcome.APPROVED, []
    note = f"{label}: {effect.value}, no LLM call was made"
    return msgspec.structs.replace(
        report,
        outcome=outcome,
        blocking_reasons=[_clip(r) for r in reasons][:200],
        decided_by=by,
        policy_notes=[_clip(note), *report.policy_notes][:20],
    )
