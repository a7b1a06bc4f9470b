"""Consensus of one layer over its runs and its local checks
(docs/design.md#consensus-of-a-layer).

Choices where the design leaves room:

* Only runs with status pass, warn or fail vote; error (and pending/running/skip) runs do not.
* A layer needs ``min(settings.min_valid_runs, planned_runs)`` valid runs; with fewer it is
  ``error``. Its veto is then the local checks' veto alone (none without rule findings): an
  error layer already leads to ``needs_review`` at the gate, and a single surviving run is not
  a consensus. The findings of the surviving runs are still reported, unconfirmed.
* Status and veto are each the upper median of the valid runs. Any valid ``strong`` run that the
  median overrules sets ``dissent`` and raises the layer to at least ``settings.dissent_floor``
  (and its status to at least warn).
* ``agreement_ratio`` counts the valid runs equal (status and veto) to that median vote, before
  dissent and local checks adjust it: it measures how much the runs agreed with each other.
* LLM findings are grouped by fingerprint; ``votes`` = distinct runs reporting it. Confirmed
  (``votes >= settings.confirm_votes``) and unconfirmed findings are both kept in
  ``merged_findings``; unconfirmed ones never raise the veto (only run vetoes vote). A merged
  finding's severity is the one at least ``confirm_votes`` of its runs reach.
* A rule finding the policy suppressed (``suppressed_by``) is kept but sets neither status nor
  veto.
* Rule findings are added once with ``source=rules`` and ``votes = max(valid runs,
  confirm_votes)``, so they read as confirmed; see ``is_confirmed``.
"""

from __future__ import annotations

import functools
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from typing import TypeVar

import msgspec

from humangr.contracts import (
    ConsensusResult,
    Finding,
    FindingSource,
    LayerID,
    LayerRunResult,
    LayerStatus,
    Usage,
    VetoLevel,
)
from humangr.engine.signatures import shared

from .errors import ReviewError
from .layers import DEFAULT_SETTINGS, LAYERS, GateSettings
from .run import clip, fingerprint, run_status, run_veto

__all__ = [
    "MAX_MERGED_FINDINGS",
    "VOTING_STATUSES",
    "consensus",
    "is_confirmed",
    "merged_failures",
    "status_rank",
]

MAX_MERGED_FINDINGS = 500
VOTING_STATUSES = frozenset({LayerStatus.PASS, LayerStatus.WARN, LayerStatus.FAIL})
_T = TypeVar("_T")
_STATUS_RANK = {LayerStatus.PASS: 0, LayerStatus.WARN: 1, LayerStatus.FAIL: 2}


def status_rank(status: LayerStatus) -> int:
    """Order of verdict statuses: pass < warn < fail (other statuses rank as fail)."""
    return _STATUS_RANK.get(status, 2)


def _max_status(*statuses: LayerStatus) -> LayerStatus:
    return max(statuses, key=status_rank)


def is_confirmed(finding: Finding, settings: GateSettings = DEFAULT_SETTINGS) -> bool:
    """A rule finding, or an LLM finding reported by at least ``confirm_votes`` runs."""
    return finding.source is FindingSource.RULES or finding.votes >= settings.confirm_votes


def _upper_median(values: Sequence[_T], key: Callable[[_T], int]) -> _T:
    """The level at least half of ``values`` reach (2 of 3; the higher of 2)."""
    ordered = sorted(values, key=key)
    return ordered[len(ordered) // 2]


def _check(
    layer_id: LayerID, runs: Sequence[LayerRunResult], planned: int, rules: Sequence[Finding]
) -> None:
    if planned < 0:
        raise ReviewError(f"planned_runs={planned} for {layer_id.value}; it must be >= 0")
    if len(runs) > planned:
        raise ReviewError(
            f"{len(runs)} runs given for {layer_id.value} but {planned} planned; "
            "pass every run that was planned and no more"
        )
    numbers = [r.run_number for r in runs]
    if len(set(numbers)) != len(numbers):
        raise ReviewError(f"duplicate run numbers {sorted(numbers)} for {layer_id.value}")
    for other in {r.layer_id for r in runs} | {f.layer_id for f in rules}:
        if other is not layer_id:
            raise ReviewError(
                f"a {other.value} result was given to the consensus of {layer_id.value}"
            )


def _merge_llm(
    layer_id: LayerID, runs: Sequence[LayerRunResult], settings: GateSettings
) -> list[Finding]:
    groups: dict[str, dict[int, Finding]] = defaultdict(dict)
    for run in runs:
        for f in run.findings:
            fp = f.fingerprint or fingerprint(layer_id, f.title, f.file, f.line, f.argument)
            best = groups[fp].get(run.run_number)
            if best is None or f.severity > best.severity:
                groups[fp][run.run_number] = f
    merged = []
    for fp, by_run in groups.items():
        reports = [by_run[n] for n in sorted(by_run)]
        ranked = sorted(reports, key=lambda f: f.severity.rank, reverse=True)
        severity = ranked[min(settings.confirm_votes, len(ranked)) - 1].severity
        base = next(f for f in reports if f.severity is ranked[0].severity)
        merged.append(
            msgspec.structs.replace(
                base,
                id=f"{layer_id.value}-{fp}",
                layer_id=layer_id,
                severity=severity,
                source=FindingSource.LLM,
                fingerprint=fp,
                votes=min(100, len(reports)),
            )
        )
    return merged


def _rule_findings(layer_id: LayerID, rules: Iterable[Finding], votes: int) -> list[Finding]:
    return [
        msgspec.structs.replace(
            f,
            layer_id=layer_id,
            source=FindingSource.RULES,
            fingerprint=f.fingerprint or fingerprint(layer_id, f.title, f.file, f.line, f.argument),
            votes=min(100, votes),
        )
        for f in rules
    ]


def _order(findings: list[Finding], settings: GateSettings) -> list[Finding]:
    def key(f: Finding) -> tuple[int, int, int, str, int, str, str]:
        return (
            -f.severity.rank,
            -is_confirmed(f, settings),
            -f.votes,
            f.file or "",
            f.line if f.line is not None else -1,
            f.title,
            f.fingerprint,
        )

    return sorted(findings, key=key)[:MAX_MERGED_FINDINGS]


def merged_failures(failures: Sequence[tuple[int, str]]) -> list[str]:
    """``run N: error`` per failed run, runs with the same error said once: ``runs 1–3: …``
    (consecutive numbers as a range, others listed: ``runs 1, 3: …``), in run order."""
    by_error: dict[str, list[int]] = {}
    for number, error in failures:
        by_error.setdefault(error, []).append(number)
    lines = []
    for error, numbers in by_error.items():
        if len(numbers) == 1:
            lines.append(f"run {numbers[0]}: {error}")
        elif numbers == list(range(numbers[0], numbers[-1] + 1)):
            lines.append(f"runs {numbers[0]}–{numbers[-1]}: {error}")
        else:
            lines.append(f"runs {', '.join(map(str, numbers))}: {error}")
    return lines


@functools.cache
def _nothing_found(power: VetoLevel) -> ConsensusResult:
    """The verdict of a layer with no LLM run and no local finding: one shared (frozen) object
    per veto power, its canonical form worked out once (``engine.signatures.shared``)."""
    return shared(
        ConsensusResult(
            status=run_status(()),
            veto_level=run_veto((), power),
            merged_findings=[],
            agreement_ratio=1.0,
            local_only=True,
            executed_runs=0,
            usage=Usage(),
        )
    )


def consensus(
    layer_id: LayerID,
    runs: Sequence[LayerRunResult],
    *,
    planned_runs: int,
    rule_findings: Sequence[Finding] = (),
    settings: GateSettings = DEFAULT_SETTINGS,
) -> ConsensusResult:
    """Merge a layer's runs (``planned_runs`` of them were started; 0 = no LLM configured) and
    its local-check findings into one verdict. See the module docstring for the rules."""
    _check(layer_id, runs, planned_runs, rule_findings)
    power = LAYERS[layer_id].veto_power
    if planned_runs == 0 and not runs and not rule_findings:  # the common case, made cheap
        return _nothing_found(power)
    ordered_runs = sorted(runs, key=lambda r: r.run_number)
    valid = [r for r in ordered_runs if r.status in VOTING_STATUSES]
    active = [f for f in rule_findings if not f.suppressed_by]  # suppressed: veto nothing
    rules_status = run_status(active)
    rules_veto = run_veto(active, power)
    rules = _rule_findings(layer_id, rule_findings, max(len(valid), settings.confirm_votes))
    findings = _order(_merge_llm(layer_id, valid, settings) + rules, settings)

    executed, usage = len(runs), sum((r.usage for r in runs), Usage())
    if planned_runs == 0:
        return ConsensusResult(
            status=rules_status,
            veto_level=rules_veto,
            merged_findings=findings,
            agreement_ratio=1.0,
            local_only=True,
            executed_runs=executed,
            usage=usage,
        )

    needed = min(settings.min_valid_runs, planned_runs)
    if len(valid) < needed:
        failures = merged_failures(
            [
                (r.run_number, r.error or r.status.value)
                for r in ordered_runs
                if r.status not in VOTING_STATUSES
            ]
        )
        missing = planned_runs - len(runs)
        if missing:
            failures.append(f"{missing} run(s) without a result")
        detail = f"{len(valid)} of {planned_runs} runs valid, {needed} needed"
        return ConsensusResult(
            status=LayerStatus.ERROR,
            veto_level=rules_veto,
            merged_findings=findings,
            agreement_ratio=0.0,
            valid_runs=len(valid),
            planned_runs=planned_runs,
            error=clip(f"{detail} ({'; '.join(failures)})"),
            executed_runs=executed,
            usage=usage,
        )

    vetoes = [min(r.veto_level, power) for r in valid]
    vote_status = _upper_median([r.status for r in valid], status_rank)
    vote_veto = _upper_median(vetoes, lambda v: v.rank)
    agreeing = sum(
        1 for r, v in zip(valid, vetoes, strict=True) if r.status is vote_status and v is vote_veto
    )
    dissent = VetoLevel.STRONG in vetoes and vote_veto < VetoLevel.STRONG
    status = _max_status(vote_status, rules_status, LayerStatus.WARN if dissent else vote_status)
    veto = max(vote_veto, rules_veto, settings.dissent_floor if dissent else VetoLevel.NONE)
    return ConsensusResult(
        status=status,
        veto_level=min(veto, power),
        agreement_ratio=agreeing / len(valid),
        dissent=dissent,
        merged_findings=findings,
        valid_runs=len(valid),
        planned_runs=planned_runs,
        executed_runs=executed,
        usage=usage,
    )
