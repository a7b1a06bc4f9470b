"""Whether a reviewer's resolution was applied, when the Supervisor did not say so.

A resolution is acknowledged by the final decision it produces (or refused by a dead letter).
A Supervisor that dies after receiving it acknowledges nothing, so the sender sends it again
every ``RESEND_S`` while nothing answers (a live Supervisor takes the review over once the dead
one's short claim runs out); and if nothing answers within the wait, the review is looked up
and the sender is told how it stands — never left with silence."""

from __future__ import annotations

from humangr.contracts import HumanLayerReport, ReviewDetail
from humangr.engine.errors import DecisionMismatch, EngineError

__all__ = ["RESEND_S", "after_silence", "judge", "transient"]

RESEND_S = 2.5
"""Seconds without an answer before the resolution is sent again (longer than a Supervisor's
claim on a review, so the next one can take over the review of one that died)."""
TRY_AGAIN = "try again"


def transient(error: EngineError) -> bool:
    """A refusal that leaves the review pending for the next send (another Supervisor held
    the review for a moment), not a final answer."""
    return TRY_AGAIN in str(error)


def judge(
    final: HumanLayerReport, report: HumanLayerReport, reviewer: str, reason: str
) -> HumanLayerReport | EngineError:
    """``final`` if this resolution produced it, else why not (another reviewer's, or a
    decision on another action)."""
    if final.action_hash != report.action_hash:
        return DecisionMismatch(report.action_id, report.action_hash, final.action_hash)
    if final.resolved_by != reviewer or final.resolution_reason != reason:
        return EngineError(
            f"the review of {report.action_id} was resolved first by {final.resolved_by}: "
            f"{final.outcome.value} ({final.resolution_reason or 'no reason'})"
        )
    return final


def after_silence(
    detail: ReviewDetail | None,
    report: HumanLayerReport,
    reviewer: str,
    reason: str,
    *,
    sends: int,
    wait: float,
    where: str,
) -> HumanLayerReport | EngineError:
    """What became of a resolution nothing acknowledged within ``wait`` s, from the review's
    ``detail`` asked afterwards (``None``: no Supervisor answered that either)."""
    action_id = report.action_id
    unanswered = (
        f"the resolution of {action_id} was not acknowledged {where} within {wait:g}s "
        f"(sent {sends} time{'s' if sends != 1 else ''})"
    )
    if detail is None:
        return EngineError(
            f"{unanswered} and no Supervisor answers; `humangr show {action_id}` tells whether "
            "it was applied"
        )
    if detail.final is not None:
        return judge(detail.final, report, reviewer, reason)
    if detail.pending:
        return EngineError(f"{unanswered}; the review is still pending; {TRY_AGAIN}")
    return EngineError(
        f"{unanswered}; the review is no longer pending but its final decision is not out "
        f"yet; `humangr show {action_id}` tells how it ended"
    )
