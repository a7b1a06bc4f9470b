"""The decision on an action: the signed report of everything that led to it, what the review
cost, and asking a Supervisor for a stored report."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

import msgspec
from msgspec import Meta

from .enums import LayerID, Outcome, VetoLevel
from .layers import ConsensusResult, SignatureText, Usage
from .types import Count, Hash, Millis, Name, ShortText, Token, _Frozen, utc_now

__all__ = [
    "Decision",
    "HumanLayerReport",
    "PartDigest",
    "PartName",
    "ReportQuery",
    "ReportReply",
    "ReviewCost",
]

PartName = Annotated[str, Meta(min_length=1, max_length=64)]
PartDigest = Annotated[str, Meta(max_length=64)]


class ReviewCost(_Frozen, frozen=True, kw_only=True):
    """What a review cost in LLM calls and (estimated) money, and what the engine saved."""

    estimated_usd: Annotated[float, Meta(ge=0)] = 0.0
    """From the configured per-model price table; models without a price add nothing."""
    unpriced_models: Annotated[list[Annotated[str, Meta(max_length=128)]], Meta(max_length=16)] = []
    calls: Count = 0
    """LLM calls made (each run is one call, repairs included in the run's usage)."""
    calls_planned: Count = 0
    """Calls a full review would make: layers × runs per layer."""
    saved_by_rules: Count = 0
    """Calls not made because the local checks settled the outcome first."""
    saved_by_adaptive: Count = 0
    """Third runs left out because runs 1 and 2 agreed (layers below strong power)."""
    saved_by_early_exit: Count = 0
    """Calls not made (or cancelled) because the outcome was settled before they ran."""


class HumanLayerReport(_Frozen, frozen=True, kw_only=True):
    """The decision on one action, with everything that led to it."""

    report_id: Token
    action_id: Token
    agent_id: Token
    action_hash: Hash
    policy_version: Annotated[str, Meta(max_length=64)]
    outcome: Outcome
    final_veto_level: VetoLevel
    layer_results: dict[LayerID, ConsensusResult] = {}
    blocking_reasons: Annotated[list[ShortText], Meta(max_length=200)] = []
    timings: dict[Name, Millis] = {}
    usage: Usage = Usage()
    resolved_by: Name | None = None
    resolution_reason: ShortText | None = None
    decided_at: datetime = msgspec.field(default_factory=utc_now)
    policy_notes: Annotated[list[ShortText], Meta(max_length=20)] = []
    """How the policy differs from a full review: "partial review: HL4, HL6", an unsafe-policy
    setting, "settled by local checks"."""
    cost: ReviewCost = ReviewCost()
    signer: Annotated[str, Meta(max_length=64)] | None = None
    """The public key (NATS nkey form, ``N…``) of the Supervisor that signed the decision."""
    signature: Annotated[str, Meta(max_length=128)] | None = None
    """ed25519 signature (base64url) over the decision's binding: report and action ids, agent,
    action hash, outcome, policy version, decided-at and resolved-by (``humangr verify``)."""
    report_signature: SignatureText | None = None
    """ed25519 signature (base64url) by ``signer`` over the whole report's canonical encoding:
    every field but this one, ``signature`` and ``signed_parts`` included (``humangr verify``).
    Reports of older Supervisors have the binding ``signature`` only."""
    signed_parts: Annotated[dict[PartName, PartDigest], Meta(max_length=64)] = {}
    """A short digest of each part of the report as it was signed (``layer_results.HL3``,
    ``blocking_reasons``…), so ``humangr verify`` can name the part changed after signing."""
    decided_by: Annotated[str, Meta(max_length=80)] = ""
    """What decided the outcome: ``rule:<id>`` (a rule of the policy file), ``policy default``
    (the policy's default effect), ``layers`` (the review layers), ``local checks`` (the local
    checks alone settled it); a human's later resolution keeps it and sets ``resolved_by``.
    Empty in reports of older Supervisors."""


Decision = HumanLayerReport
"""The decision event published on ``hl.decisions.<agent_id>`` is the full report; ``Decision``
is its name as a message (``humangr schema Decision``) and an alias kept for code written
against it. The code here says ``HumanLayerReport``."""


class ReportQuery(_Frozen, frozen=True, kw_only=True):
    """Ask the Supervisor for a stored report by report id or action id (request/reply)."""

    id: Annotated[str, Meta(min_length=1, max_length=64)]


class ReportReply(_Frozen, frozen=True, kw_only=True):
    """The answer to a ``ReportQuery``: the report, or an error saying why there is none."""

    report: HumanLayerReport | None = None
    error: ShortText | None = None
