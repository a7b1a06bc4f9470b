"""Builders shared by the review tests (plain functions, no fixtures)."""

from __future__ import annotations

from humangr.contracts import (
    ConsensusResult,
    Finding,
    FindingSource,
    LayerID,
    LayerRunResult,
    LayerStatus,
    ReviewFinding,
    Severity,
    VetoLevel,
)
from humangr.engine.review import LAYERS, error_run, fingerprint, make_run

S = Severity


def rf(
    severity: Severity, title: str = "issue", file: str | None = "app.py", line: int | None = 1
) -> ReviewFinding:
    return ReviewFinding(severity=severity, title=title, file=file, line=line)


def rule(
    layer: LayerID, severity: Severity, title: str = "rule hit", file: str = "app.py", line: int = 1
) -> Finding:
    return Finding(
        id=f"rule-{title.replace(' ', '-')}",
        layer_id=layer,
        severity=severity,
        title=title,
        file=file,
        line=line,
        source=FindingSource.RULES,
        fingerprint=fingerprint(layer, title, file, line),
    )


def run_of(layer: LayerID, n: int, *severities: Severity) -> LayerRunResult:
    """A valid run whose findings have these severities (distinct titles per severity)."""
    return make_run(layer, n, [rf(s, f"{s.value} problem") for s in severities])


def err(layer: LayerID, n: int, message: str = "reply invalid after 2 repairs") -> LayerRunResult:
    return error_run(layer, n, message)


def raw_run(layer: LayerID, n: int, status: LayerStatus, veto: VetoLevel) -> LayerRunResult:
    return LayerRunResult(layer_id=layer, run_number=n, status=status, veto_level=veto)


def cr(
    veto: VetoLevel = VetoLevel.NONE,
    status: LayerStatus | None = None,
    findings: list[Finding] | None = None,
    **kw: object,
) -> ConsensusResult:
    if status is None:
        status = {
            VetoLevel.NONE: LayerStatus.PASS,
            VetoLevel.WEAK: LayerStatus.FAIL,
            VetoLevel.MEDIUM: LayerStatus.FAIL,
            VetoLevel.STRONG: LayerStatus.FAIL,
        }[veto]
    return ConsensusResult(
        status=status,
        veto_level=veto,
        merged_findings=findings or [],
        valid_runs=3,
        planned_runs=3,
        **kw,  # type: ignore[arg-type]
    )


ALL = tuple(LAYERS)
