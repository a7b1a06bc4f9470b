"""The Supervisor's view of a layer: recomputed from the reported runs, never taken on trust.

A ``LayerReport`` comes from another process. Its ``consensus`` is ignored; each run's status
and veto are derived again from its findings, the runs are checked against what was planned
(adaptive redundancy may leave out run 3 only where it cannot change the outcome), and the
consensus is computed with the Supervisor's settings and its own local-check findings. A late
layer is ``error`` and keeps its rule findings and rule veto.
"""

from __future__ import annotations

from collections.abc import Sequence

import msgspec

from humangr.contracts import (
    ConsensusResult,
    Finding,
    LayerID,
    LayerRunResult,
    LayerStatus,
    VetoLevel,
)

from .consensus import VOTING_STATUSES, consensus
from .errors import ReviewError
from .layers import LAYERS, GateSettings
from .run import clip, error_run, run_status, run_veto

__all__ = ["adaptive_applies", "late_result", "layer_result", "reconcile_runs", "rescore_run"]


def adaptive_applies(layer_id: LayerID, planned: int, adaptive: bool) -> bool:
    """Whether run 3 may be skipped when runs 1 and 2 agree: only below strong power, where the
    lone-strong dissent rule cannot apply and the median of three is already fixed."""
    return adaptive and planned >= 3 and LAYERS[layer_id].veto_power < VetoLevel.STRONG


def rescore_run(layer_id: LayerID, run: LayerRunResult) -> LayerRunResult:
    """``run`` with its status and veto derived from its own findings (an error run stays an
    error run: it has no verdict to recompute)."""
    if run.layer_id is not layer_id or any(f.layer_id is not layer_id for f in run.findings):
        raise ReviewError(f"a run of another layer was reported for {layer_id.value}")
    if run.status not in VOTING_STATUSES:
        if run.status is LayerStatus.ERROR:
            return run
        return msgspec.structs.replace(
            run,
            status=LayerStatus.ERROR,
            veto_level=VetoLevel.NONE,
            error=clip(f"run reported as {run.status.value}, which is not a verdict"),
        )
    power = LAYERS[layer_id].veto_power
    return msgspec.structs.replace(
        run, status=run_status(run.findings), veto_level=run_veto(run.findings, power)
    )


def _agree(first: LayerRunResult, second: LayerRunResult) -> bool:
    valid = first.status in VOTING_STATUSES and second.status in VOTING_STATUSES
    return valid and (first.status, first.veto_level) == (second.status, second.veto_level)


def reconcile_runs(
    layer_id: LayerID,
    runs: Sequence[LayerRunResult],
    planned: int,
    *,
    adaptive: bool,
    late: bool = False,
) -> list[LayerRunResult]:
    """The runs to take the consensus of, rescored and in order.

    Runs numbered twice or beyond the plan make the report inconsistent (``ReviewError``), as
    does a run that had to be made but is missing from a report in time (run 3 may be left out
    only where adaptive redundancy allows it). From a ``late`` layer, the missing runs count as
    ``error`` runs."""
    by_number: dict[int, LayerRunResult] = {}
    for run in runs:
        if not 1 <= run.run_number <= planned:
            raise ReviewError(
                f"{layer_id.value} reported run {run.run_number}; {planned} run(s) were planned"
            )
        if run.run_number in by_number:
            raise ReviewError(f"{layer_id.value} reported run {run.run_number} twice")
        by_number[run.run_number] = rescore_run(layer_id, run)
    required = planned
    if adaptive_applies(layer_id, planned, adaptive):
        first, second = by_number.get(1), by_number.get(2)
        if first is not None and second is not None and _agree(first, second):
            required = 2
    missing = [n for n in range(1, required + 1) if n not in by_number]
    if missing and not late:
        raise ReviewError(
            f"{layer_id.value} reported no result for run(s) {', '.join(map(str, missing))} "
            f"of {planned} planned; a complete report carries every run that had to be made"
        )
    for number in missing:
        by_number[number] = error_run(layer_id, number, "no result before the deadline")
    return [by_number[n] for n in sorted(by_number)]


def late_result(result: ConsensusResult, reason: str) -> ConsensusResult:
    """A layer past its deadline: ``error`` (so at least ``needs_review``), keeping the veto and
    findings it has — its rule findings and rule veto above all."""
    detail = f"{reason} ({result.error})" if result.error else reason
    return msgspec.structs.replace(
        result, status=LayerStatus.ERROR, error=clip(detail), local_only=False
    )


def layer_result(
    layer_id: LayerID,
    runs: Sequence[LayerRunResult],
    *,
    planned: int,
    rules: Sequence[Finding],
    settings: GateSettings,
    adaptive: bool,
    late: str | None = None,
) -> ConsensusResult:
    """A layer's result as the Supervisor computes it (see the module docstring). ``late`` is
    the reason when the layer missed its deadline (or never reported)."""
    reconciled = reconcile_runs(layer_id, runs, planned, adaptive=adaptive, late=late is not None)
    result = consensus(
        layer_id, reconciled, planned_runs=planned, rule_findings=rules, settings=settings
    )
    result = msgspec.structs.replace(result, executed_runs=len(runs))
    return result if late is None else late_result(result, late)
