"""Binding (action hash, policy version) and the final report of a review."""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from datetime import datetime
from typing import Any

import msgspec

from humangr.contracts import (
    ActionContext,
    ConsensusResult,
    HumanLayerReport,
    LayerID,
    LayerStatus,
    Usage,
    VetoLevel,
    canonical_json,
    sha256_hex,
)
from humangr.contracts.types import utc_now

from .gate import MISSING_REASON, blocking_reasons, gate, max_veto
from .layers import DEFAULT_SETTINGS, LAYERS, GateSettings, LayerSpec

__all__ = ["action_hash", "build_report", "policy_version"]


def action_hash(action: ActionContext) -> str:
    """sha256 (hex) of the canonical JSON of ``action``: a decision applies to this hash only.

    An action without a tool call hashes as it did before ``tool_call`` existed, so stored
    decisions and their signatures keep their hashes."""
    if action.tool_call is None:
        return sha256_hex(canonical_json(_legacy(action)))
    return sha256_hex(canonical_json(action))


def _legacy(action: ActionContext) -> dict[str, Any]:
    fields = msgspec.structs.asdict(action)
    del fields["tool_call"]
    return fields


def policy_version(
    *,
    layers: Mapping[LayerID, LayerSpec] = LAYERS,
    prompts_digest: str = "",
    thresholds: Mapping[str, Any] | None = None,
) -> str:
    """A short stable hash of the layer table, the prompts (by digest) and the thresholds
    (``DEFAULT_SETTINGS.thresholds()`` when not given)."""
    table = [
        [spec.id.value, spec.name, spec.title, spec.focus, spec.veto_power.value]
        for spec in sorted(layers.values(), key=lambda s: s.id.value)
    ]
    policy = {
        "layers": table,
        "prompts": prompts_digest,
        "thresholds": dict(thresholds if thresholds is not None else DEFAULT_SETTINGS.thresholds()),
    }
    return sha256_hex(canonical_json(policy))[:16]


def _missing(
    expected: Collection[LayerID], results: Mapping[LayerID, ConsensusResult]
) -> dict[LayerID, ConsensusResult]:
    return {
        lid: ConsensusResult(
            status=LayerStatus.ERROR,
            veto_level=VetoLevel.NONE,
            agreement_ratio=0.0,
            error=f"missing: {MISSING_REASON}",
        )
        for lid in expected
        if lid not in results
    }


def build_report(
    *,
    report_id: str,
    action_id: str,
    action: ActionContext,
    results: Mapping[LayerID, ConsensusResult],
    expected: Collection[LayerID],
    timings: Mapping[str, float],
    usage: Usage,
    policy: str,
    settings: GateSettings = DEFAULT_SETTINGS,
    decided_at: datetime | None = None,
    policy_notes: Sequence[str] = (),
    digest: str | None = None,
) -> HumanLayerReport:
    """The decision on one action: outcome by the gate, the highest veto, the blocking reasons,
    and every layer's result. An expected layer that never reported appears as ``error``.
    ``digest``: ``action_hash(action)`` when the caller worked it out already."""
    layer_results = {**results, **_missing(expected, results)}
    return HumanLayerReport(
        report_id=report_id,
        action_id=action_id,
        agent_id=action.agent_id,
        action_hash=digest if digest is not None else action_hash(action),
        policy_version=policy,
        outcome=gate(results, expected, settings=settings),
        final_veto_level=max_veto(results),
        layer_results={lid: layer_results[lid] for lid in sorted(layer_results, key=str)},
        blocking_reasons=blocking_reasons(results, expected),
        timings={name: max(0.0, float(timings[name])) for name in sorted(timings)},
        usage=usage,
        decided_at=decided_at if decided_at is not None else utc_now(),
        policy_notes=list(policy_notes)[:20],
    )
