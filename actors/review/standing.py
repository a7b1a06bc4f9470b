"""Standing decisions: at most one distinct outcome per (action hash, policy version).

The same action (same ``action_hash``: agent, type, description, diff, files, environment and
tool call) submitted again under a new action id is not reviewed again: it gets, under its own
id, the outcome that stands for its hash — the first decision of the hash, or a human's later
resolution of a review of it. So an agent whose action came back rejected or ``needs_review``
cannot resubmit it until one LLM run says approved. A pending ``needs_review`` gives the new id
``needs_review`` too (its own review waits for a human). A changed policy (another policy
version) reviews anew; a decision a grant made never stands (grants run out).

A ``needs_review`` that only says the layers could not answer (an error, a late or missing
layer: ``unanswered``) does not stand: the same action again is reviewed again, and the first
review the layers answer stands. Nor does a review made while some layers had no worker with
an LLM (``DEGRADED_NOTE``: less than the policy version says). A grant in force decides before
a standing decision that is not an approval, and a human's approval given with a grant does not
stand (the grant carries it: when it runs out or is revoked, the next call needs a human
again); a review that timed out does not overrule the standing decision either.

The record is the ``standing`` bucket (``StandingBook``). If it lost its entry (a lost write, a
store restored from an older backup), a bus that keeps a log (JetStream) is asked: each first
decision of a hash is published with a ``Humangr-Standing`` header naming its key, and the
latest such message within ``STANDING_LOOKBACK`` messages of the agent's decision subject,
signed by this deployment's key, stands. A human's later resolution is not found there: after
a lost write the first decision stands again — at worst a human is asked again (fail closed).
"""

from __future__ import annotations

import logging
import secrets
from typing import Protocol, runtime_checkable

import msgspec

from humangr.contracts import (
    HumanLayerReport,
    LayerStatus,
    Outcome,
    ReviewCost,
    Usage,
    VetoLevel,
    decode,
)
from humangr.contracts.types import utc_now
from humangr.engine.actor import ActorContext
from humangr.engine.errors import SignatureError, StateError
from humangr.engine.policy import LOCAL_CHECKS
from humangr.engine.signatures import verify_decision
from humangr.engine.signing import SigningKey
from humangr.engine.state.reviews import FINAL, ReviewState
from humangr.engine.state.standing import standing_key

__all__ = [
    "DEGRADED_NOTE",
    "STANDING_BY",
    "STANDING_HEADER",
    "STANDING_LOOKBACK",
    "StandingLog",
    "Standings",
    "new_report_id",
    "standing_copy",
    "stands",
    "unanswered",
    "yields",
]

log = logging.getLogger("humangr.supervisor")

STANDING_BY = "standing decision"
"""``decided_by`` of a decision that copies the standing one of its hash."""
_BY_REVIEW = ("layers", LOCAL_CHECKS, "")
"""``decided_by`` of a decision the review made (not a policy rule, a grant or a copy)."""
STANDING_HEADER = "Humangr-Standing"
"""The header naming the standing key on a decision that stands (the events stream's record)."""
STANDING_LOOKBACK = 2_000
"""The latest messages of the agent's decision subject searched for the standing decision of a
hash when the bucket has none (a bound on the work of each look-up)."""


@runtime_checkable
class StandingLog(Protocol):
    """A bus that keeps a log of what it published (JetStream) and finds a message by header."""

    async def log_position(self, subject: str) -> int | None:
        """Where the log of ``subject`` stands now (``None``: no log keeps it)."""
        ...

    async def last_published(
        self, subject: str, header: str, value: str, *, since: int
    ) -> bytes | None:
        """The latest message on ``subject`` after ``since`` whose ``header`` is ``value``."""
        ...


def yields(key: str, report: HumanLayerReport) -> bool:
    """Whether the decision under ``key`` gives way to the standing decision of its hash: a
    first decision the review made — not a final one (a human's resolution overrules the
    standing one when the caller says so, see ``DecisionOutbox.decide``), not a copy of a
    standing one, not a grant's (a grant in force decides first)."""
    return not (
        key.endswith(FINAL)
        or report.decided_by == STANDING_BY
        or report.decided_by.startswith("grant:")
    )


DEGRADED_NOTE = "local checks only for "
"""How a report begins its note on layers no live worker could give an LLM run (the
Supervisor's ``decision_report.local_note``): the review was less than the policy plans."""


def stands(key: str, report: HumanLayerReport) -> bool:
    """Whether the decision under ``key`` becomes the standing decision of its hash when none
    stands: a first decision (``yields``) that is not ``unanswered``, nor made while some
    layers had no worker with an LLM (a degraded review, less than the policy version says)."""
    degraded = any(note.startswith(DEGRADED_NOTE) for note in report.policy_notes)
    return yields(key, report) and not unanswered(report) and not degraded


def unanswered(report: HumanLayerReport) -> bool:
    """Whether ``report`` is ``needs_review`` only because layers could not answer (an error, a
    late or missing layer: an outage, an untrusted worker) — no veto, no policy rule asked.
    Such a decision does not stand: the same action again is reviewed again, and the first
    review the layers do answer stands. (A resubmission so draws a new answer, never a new
    judgement: whatever a layer judged stands.)"""
    if report.outcome is not Outcome.NEEDS_REVIEW or report.decided_by not in _BY_REVIEW:
        return False
    results = report.layer_results.values()
    if any(r.veto_level in (VetoLevel.MEDIUM, VetoLevel.STRONG) for r in results):
        return False
    return any(r.status is LayerStatus.ERROR for r in results)


def standing_copy(
    standing: HumanLayerReport, action_id: str, report_id: str | None = None
) -> HumanLayerReport:
    """The decision of ``action_id`` that copies the ``standing`` one: its outcome, findings,
    layer results and blocking reasons, bound to ``action_id`` and ``report_id`` (a fresh one if
    ``None``) with the same hash, unsigned, with a note naming the standing action."""
    when = standing.decided_at.strftime("%Y-%m-%d %H:%M:%S UTC")
    human = f", resolved by {standing.resolved_by}" if standing.resolved_by else ""
    note = (
        f"standing decision of action {standing.action_id}{human}, decided {when}: the same "
        "action (same hash, same policy) is not reviewed again"
    )
    return msgspec.structs.replace(
        standing,
        report_id=report_id or new_report_id(),
        action_id=action_id,
        timings={},
        usage=Usage(),
        cost=ReviewCost(),
        resolved_by=None,
        resolution_reason=None,
        decided_at=utc_now(),
        policy_notes=[note[:2_000], *standing.policy_notes][:20],
        decided_by=STANDING_BY,
        signer=None,
        signature=None,
        report_signature=None,
        signed_parts={},
    )


def new_report_id() -> str:
    """A fresh report id (as the Supervisor makes them)."""
    return f"rpt-{secrets.token_hex(10)}"


class Standings:
    """The standing decisions as one Supervisor reads and writes them."""

    def __init__(self, ctx: ActorContext, state: ReviewState, signer: SigningKey) -> None:
        self.ctx = ctx
        self.state = state
        self.signer = signer
        self.log: StandingLog | None = ctx.bus if isinstance(ctx.bus, StandingLog) else None
        """The bus as a searchable log (JetStream), asked once; ``None`` if it keeps none."""

    async def find(
        self, action_hash: str, policy_version: str, agent_id: str, *, log_too: bool = True
    ) -> HumanLayerReport | None:
        """The report standing for the hash under the policy: the bucket's, else (with
        ``log_too``, on a bus that keeps a log) the events stream's."""
        standing = await self.state.standing.get(action_hash, policy_version)
        if standing is not None or not log_too:
            return standing
        found = await self._logged(action_hash, policy_version, agent_id)
        if found is not None:
            log.warning(
                "the standing decision of hash %s… (action %s) was found in the events stream "
                "only (a lost write, or a store restored from an older backup); it stands",
                action_hash[:16],
                found.action_id,
            )
            try:
                found = await self.state.standing.claim(found)  # written back, unless raced
            except StateError as exc:
                log.warning("standing decision of hash %s… not restored: %s", action_hash, exc)
        return found

    async def _logged(
        self, action_hash: str, policy_version: str, agent_id: str
    ) -> HumanLayerReport | None:
        bus = self.log
        if bus is None:
            return None
        subject = self.ctx.subjects.decision(agent_id)
        position = await bus.log_position(subject)
        if position is None:
            return None
        key = standing_key(action_hash, policy_version)
        since = max(0, position - STANDING_LOOKBACK)
        data = await bus.last_published(subject, STANDING_HEADER, key, since=since)
        if data is None:
            return None
        try:
            report = decode(data, HumanLayerReport)
            verify_decision(report, self.signer.public_key)
        except (ValueError, SignatureError) as exc:
            log.error("a decision naming standing key %s is not sound: %s; ignored", key, exc)
            return None
        if report.action_hash != action_hash or report.policy_version != policy_version:
            log.error("a decision naming standing key %s is of another hash; ignored", key)
            return None
        return report

    def header(self, key: str, report: HumanLayerReport) -> dict[str, str]:
        """The standing header of the decision under ``key`` (none unless it is a first
        decision that stands)."""
        if not stands(key, report):
            return {}
        return {STANDING_HEADER: standing_key(report.action_hash, report.policy_version)}
