"""How the gate, with the local checks alone, decides the labelled tool calls of a corpus.

Each case runs through ``run_checks(..., local_only=True)`` and ``local_outcome``: what the
embedded engine decides with no LLM, "not reviewed by any local check" findings included. A
dangerous call is *stopped* when its outcome is not approved; an everyday call is *accepted*
when it is approved. Per kind, per category and overall: the share of dangerous calls stopped,
of everyday calls accepted, and of calls given exactly the expected outcome.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from humangr.contracts import Finding, Outcome, Severity, ToolKind
from humangr.engine.review import local_outcome

from .registry import run_checks
from .tool_cases import ToolCase

__all__ = ["TOOL_METRICS", "GroupScore", "ToolResult", "ToolScores", "evaluate_tools"]

TOOL_METRICS = ("dangerous_stopped", "everyday_accepted", "expected_matched")
"""The tool-call metrics, all shares between 0 and 1 where higher is better."""


@dataclass(frozen=True, slots=True)
class ToolResult:
    case: ToolCase
    outcome: Outcome
    findings: tuple[str, ...]
    """The findings of medium severity or above: ``severity layer: argument `x`: title``."""
    reasons: tuple[str, ...]
    """The gate's reasons when the call is not approved."""
    seconds: float

    @property
    def stopped(self) -> bool:
        return self.outcome is not Outcome.APPROVED

    @property
    def right(self) -> bool:
        """Stopped when dangerous, accepted when everyday."""
        return self.stopped == self.case.dangerous

    @property
    def matched(self) -> bool:
        return self.outcome is self.case.expect


@dataclass(frozen=True, slots=True)
class GroupScore:
    name: str
    dangerous: int
    everyday: int
    dangerous_stopped: float | None
    everyday_accepted: float | None
    expected_matched: float | None

    def metric(self, name: str) -> float | None:
        value: float | None = getattr(self, name)
        return value


@dataclass(slots=True)
class ToolScores:
    kinds: list[GroupScore] = field(default_factory=list)
    categories: list[GroupScore] = field(default_factory=list)
    overall: GroupScore = field(default_factory=lambda: _group("overall", []))
    results: list[ToolResult] = field(default_factory=list)
    p50_ms: float | None = None
    p99_ms: float | None = None


def _describe(f: Finding) -> str:
    where = f"argument `{f.argument}`: " if f.argument else (f"{f.file}: " if f.file else "")
    return f"{f.severity.value} {f.layer_id.value}: {where}{f.title}"


def _run(case: ToolCase) -> ToolResult:
    assert case.action is not None
    start = time.perf_counter()
    found = run_checks(case.action, options=case.options, local_only=True)
    outcome, reasons = local_outcome(found)
    seconds = time.perf_counter() - start
    shown = sorted(
        (f for fs in found.values() for f in fs if f.severity >= Severity.MEDIUM),
        key=lambda f: f.id,
    )
    shown.sort(key=lambda f: f.severity, reverse=True)
    return ToolResult(case, outcome, tuple(_describe(f) for f in shown), tuple(reasons), seconds)


def _rate(n: int, d: int) -> float | None:
    return round(n / d, 4) if d else None


def _group(name: str, rows: Sequence[ToolResult]) -> GroupScore:
    bad = [r for r in rows if r.case.dangerous]
    good = [r for r in rows if not r.case.dangerous]
    return GroupScore(
        name,
        len(bad),
        len(good),
        _rate(sum(r.stopped for r in bad), len(bad)),
        _rate(sum(not r.stopped for r in good), len(good)),
        _rate(sum(r.matched for r in rows), len(rows)),
    )


def _percentile(values: Sequence[float], share: float) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(share * len(ordered)) - 1))
    return round(ordered[index] * 1000, 3)


def evaluate_tools(cases: Iterable[ToolCase]) -> ToolScores:
    """Decide every tool call with the local checks alone and score the outcomes."""
    todo = list(cases)
    if todo:
        _run(todo[0])  # warm caches and lazy imports so the first call's time is not skewed
    results = [_run(c) for c in todo]
    kinds = [k for k in ToolKind if any(r.case.kind is k for r in results)]
    categories = sorted({r.case.category for r in results})
    seconds = [r.seconds for r in results]
    return ToolScores(
        kinds=[_group(k.value, [r for r in results if r.case.kind is k]) for k in kinds],
        categories=[_group(c, [r for r in results if r.case.category == c]) for c in categories],
        overall=_group("overall", results),
        results=results,
        p50_ms=_percentile(seconds, 0.5),
        p99_ms=_percentile(seconds, 0.99),
    )
