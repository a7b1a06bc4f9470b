"""The outcome of the local checks alone: what the gate decides when no LLM runs."""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence

from humangr.contracts import Finding, LayerID, Outcome

from .consensus import consensus
from .gate import blocking_reasons, gate
from .layers import DEFAULT_SETTINGS, GateSettings

__all__ = ["local_outcome"]


def local_outcome(
    findings: Mapping[LayerID, Sequence[Finding]],
    layers: Collection[LayerID] = tuple(LayerID),
    *,
    settings: GateSettings = DEFAULT_SETTINGS,
) -> tuple[Outcome, list[str]]:
    """The gate's outcome and its reasons when ``findings`` (from ``run_checks``) are all the
    review has: each layer's consensus of its rule findings with no LLM run. For the decision
    the engine makes without an LLM, give ``run_checks(action, local_only=True)``: what no
    local check reads is then a finding of its own ("Not reviewed by any local check")."""
    results = {
        lid: consensus(
            lid, [], planned_runs=0, rule_findings=findings.get(lid, ()), settings=settings
        )
        for lid in layers
    }
    return gate(results, layers, settings=settings), blocking_reasons(results, layers)
