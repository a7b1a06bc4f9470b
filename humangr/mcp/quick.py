"""``test_action``: the local checks and at most one LLM run per layer, folded into
``pass|warn|fail``. A quick signal for an agent, not a decision."""

from __future__ import annotations

import logging
import time
from collections.abc import Mapping, Sequence

import anyio

from humangr.contracts import (
    ActionContext,
    Finding,
    LayerID,
    LayerRunResult,
    LayerStatus,
    Severity,
    VetoLevel,
)
from humangr.engine.checks import run_checks
from humangr.engine.layer_run import llm_layer_run
from humangr.engine.llm import LLMClient
from humangr.engine.review import LAYERS, error_run, run_status, run_veto

from .schemas import QuickLayer, TestActionResult, Verdict

__all__ = ["quick_layer", "quick_review", "quick_verdict"]

log = logging.getLogger("humangr.mcp")


def quick_verdict(layers: Mapping[LayerID, QuickLayer], findings: Sequence[Finding]) -> Verdict:
    """``fail`` if any finding is high or critical or a layer vetoes ``medium`` or more;
    ``warn`` if any finding is medium or a layer could not run; else ``pass``."""
    worst = max((f.severity for f in findings), default=Severity.INFO)
    if worst >= Severity.HIGH or any(q.veto_level >= VetoLevel.MEDIUM for q in layers.values()):
        return "fail"
    if worst is Severity.MEDIUM or any(q.status is LayerStatus.ERROR for q in layers.values()):
        return "warn"
    return "pass"


def quick_layer(
    layer_id: LayerID, rules: Sequence[Finding], run: LayerRunResult | None
) -> tuple[QuickLayer, list[Finding]]:
    """One layer's quick result from its rule findings and its LLM run (if any). A failed
    run makes the layer ``error`` (never a clean pass); its rule findings still count."""
    findings = [*rules, *(run.findings if run is not None else [])]
    veto = run_veto(rules, LAYERS[layer_id].veto_power)
    error = None
    if run is not None:
        veto = max(veto, run.veto_level)
        error = run.error
    status = LayerStatus.ERROR if error is not None else run_status(findings)
    layer = QuickLayer(
        status=status,
        veto_level=veto,
        findings=len(findings),
        llm_runs=0 if run is None else 1,
        error=error,
    )
    return layer, findings


async def _llm_run(
    llm: LLMClient,
    layer_id: LayerID,
    action: ActionContext,
    prior: Sequence[Finding],
    *,
    deadline_s: float,
    max_repairs: int,
) -> LayerRunResult:
    started = time.perf_counter()
    with anyio.move_on_after(deadline_s):
        return await llm_layer_run(
            llm,
            layer_id,
            action,
            1,
            prior_findings=prior,
            tags={"action_id": "test_action"},
            max_repairs=max_repairs,
        )
    elapsed = (time.perf_counter() - started) * 1000
    return error_run(layer_id, 1, f"no reply within {deadline_s:g}s", elapsed_ms=elapsed)


async def quick_review(
    action: ActionContext,
    layers: Sequence[LayerID],
    llm: LLMClient | None,
    *,
    llm_note: str,
    deadline_s: float = 120.0,
    max_repairs: int = 2,
) -> TestActionResult:
    """Run the local checks of ``layers`` and, with an LLM, one run per layer in parallel
    (HL7 sees the local findings of the others)."""
    rules = run_checks(action, layers, local_only=llm is None)
    runs: dict[LayerID, LayerRunResult] = {}
    if llm is not None:
        prior = [f for lid in layers if lid is not LayerID.HL7 for f in rules.get(lid, [])]

        async def one(lid: LayerID) -> None:
            runs[lid] = await _llm_run(
                llm, lid, action, prior, deadline_s=deadline_s, max_repairs=max_repairs
            )

        async with anyio.create_task_group() as tg:
            for lid in layers:
                tg.start_soon(one, lid)
    results: dict[LayerID, QuickLayer] = {}
    findings: list[Finding] = []
    for lid in layers:
        results[lid], layer_findings = quick_layer(lid, rules.get(lid, []), runs.get(lid))
        findings.extend(layer_findings)
    findings.sort(key=lambda f: (-f.severity.rank, f.layer_id.value, f.file or "", f.line or 0))
    verdict = quick_verdict(results, findings)
    errors = sum(1 for q in results.values() if q.status is LayerStatus.ERROR)
    summary = (
        f"{verdict}: {len(findings)} finding(s) in {len(layers)} layer(s)"
        + (f", {errors} layer(s) could not run" if errors else "")
        + (" — local checks only" if llm is None else "")
    )
    log.info("test_action: %s", summary)
    return TestActionResult(
        verdict=verdict, summary=summary, layers=results, findings=findings, llm=llm_note
    )
