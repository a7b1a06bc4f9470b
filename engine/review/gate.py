"""The veto gate (seed S14, fail-closed) and the human-readable reasons behind its outcome.

The gate reads each result's ``veto_level`` as reported; it never lowers a veto to the layer's
power (``consensus`` already caps it), so a faulty or forged report can only block, not approve.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping

from humangr.contracts import (
    ConsensusResult,
    Finding,
    LayerID,
    LayerStatus,
    Outcome,
    Severity,
    VetoLevel,
)

from .consensus import VOTING_STATUSES, is_confirmed
from .layers import DEFAULT_SETTINGS, LAYERS, GateSettings
from .run import clip

__all__ = ["MISSING_REASON", "blocking_reasons", "gate", "is_settled", "max_veto"]

MISSING_REASON = "no report before the deadline"
_SHOWN_FINDINGS = 3
_MAX_REASONS = 200


def max_veto(results: Mapping[LayerID, ConsensusResult]) -> VetoLevel:
    """The highest veto among ``results`` (none when empty)."""
    return max((r.veto_level for r in results.values()), default=VetoLevel.NONE)


def _rejects(results: Mapping[LayerID, ConsensusResult], settings: GateSettings) -> bool:
    vetoes = [r.veto_level for r in results.values()]
    mediums = sum(1 for v in vetoes if v is VetoLevel.MEDIUM)
    return VetoLevel.STRONG in vetoes or mediums >= settings.rejecting_mediums


def _unfinished(
    results: Mapping[LayerID, ConsensusResult], expected: Collection[LayerID]
) -> list[LayerID]:
    """Expected layers without a result, and any layer whose result is not a verdict."""
    missing = [lid for lid in expected if lid not in results]
    failed = [lid for lid, r in results.items() if r.status not in VOTING_STATUSES]
    return sorted(set(missing) | set(failed), key=lambda lid: lid.value)


def gate(
    results: Mapping[LayerID, ConsensusResult],
    expected: Collection[LayerID],
    *,
    settings: GateSettings = DEFAULT_SETTINGS,
) -> Outcome:
    """The outcome of a review: any ``strong`` → rejected; two or more ``medium`` → rejected;
    any expected layer missing, or any layer in error (or without a verdict) → needs_review;
    exactly one ``medium`` → needs_review; else approved. Nothing here can fail open."""
    if _rejects(results, settings):
        return Outcome.REJECTED
    if _unfinished(results, expected):
        return Outcome.NEEDS_REVIEW
    if any(r.veto_level is VetoLevel.MEDIUM for r in results.values()):
        return Outcome.NEEDS_REVIEW
    return Outcome.APPROVED


def is_settled(
    results: Mapping[LayerID, ConsensusResult],
    expected: Collection[LayerID],
    *,
    settings: GateSettings = DEFAULT_SETTINGS,
) -> Outcome | None:
    """The outcome if no missing layer can change it any more, else ``None``: rejected as soon
    as a ``strong`` or enough ``medium`` vetoes are in; otherwise only once every expected layer
    has reported (for early exit: publish, cancel the rest, skip HL7)."""
    if _rejects(results, settings):
        return Outcome.REJECTED
    if any(lid not in results for lid in expected):
        return None
    return gate(results, expected, settings=settings)


def _argument(f: Finding) -> str:
    if not f.argument:
        return ""
    return f"argument `{f.argument}` of {f.tool}: " if f.tool else f"argument `{f.argument}`: "


def _where(f: Finding) -> str:
    if f.file and f.line is not None:
        return f" ({f.file}:{f.line})"
    return f" ({f.file})" if f.file else ""


def _veto_reason(label: str, r: ConsensusResult) -> str:
    blocking = [f for f in r.merged_findings if f.severity >= Severity.HIGH and not f.suppressed_by]
    named = [f for f in blocking if is_confirmed(f)] or blocking
    parts = [f"{_argument(f)}{f.title}{_where(f)}" for f in named[:_SHOWN_FINDINGS]]
    if len(named) > _SHOWN_FINDINGS:
        parts.append(f"{len(named) - _SHOWN_FINDINGS} more")
    if named and not is_confirmed(named[0]):
        parts[0] += f" [unconfirmed: {named[0].votes} of {r.valid_runs} runs]"
    what = "; ".join(parts) if parts else "no single finding named"
    note = " (dissent: a run vetoed strong, overruled by the majority)" if r.dissent else ""
    if r.local_only:
        note += " (local checks only)"
    return f"{label}: {r.veto_level.value} veto{note} — {what}"


def blocking_reasons(
    results: Mapping[LayerID, ConsensusResult],
    expected: Collection[LayerID] = (),
) -> list[str]:
    """Why the action is not simply approved, one line per layer in layer order: medium and
    strong vetoes with the findings behind them, layers in error, expected layers missing."""
    reasons: list[str] = []
    for lid in sorted(set(results) | set(expected), key=lambda lid: lid.value):
        label = LAYERS[lid].label
        r = results.get(lid)
        if r is None:
            reasons.append(f"{label}: missing — {MISSING_REASON}")
            continue
        if r.veto_level >= VetoLevel.MEDIUM:
            reasons.append(_veto_reason(label, r))
        if r.status is LayerStatus.ERROR:
            reasons.append(f"{label}: error — {r.error or 'no valid verdict'}")
        elif r.status not in VOTING_STATUSES:
            reasons.append(f"{label}: {r.status.value} — no verdict")
    return [clip(reason) for reason in reasons[:_MAX_REASONS]]
