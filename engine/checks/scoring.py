"""Scores of the local checks on a labelled corpus, with bandit's beside them.

Per class: recall (vulnerable cases flagged), false alarms (safe cases flagged) and the Youden
index (recall minus false-alarm rate); overall: the mean Youden over the classes that have both
kinds of case, recall and false alarms over every case, and the share of ``commit`` cases not
approved. bandit's figures use its full default profile on the same parsed code and count any
issue of the tests that match the class, at any severity (``commit``: medium or high).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field

from humangr.contracts import Finding, Severity

from .base import CheckInput
from .corpus import COMMIT, Case
from .registry import run_checks

__all__ = ["BANDIT_CLASSES", "CaseResult", "ClassScore", "Scores", "evaluate"]

log = logging.getLogger(__name__)

BANDIT_CLASSES: dict[str, frozenset[str]] = {
    "shell-injection": frozenset({"B602", "B603", "B604", "B605", "B606", "B607", "B609"}),
    "sql-injection": frozenset({"B608", "B610", "B611"}),
    "deserialization": frozenset({"B301", "B302", "B506", "B614"}),
    "eval-exec": frozenset({"B102", "B307", "B701"}),
    "path-traversal": frozenset({"B202"}),
    "weak-password-hash": frozenset({"B303", "B324"}),
    "tls-verification": frozenset({"B323", "B501", "B502", "B503", "B504", "B507"}),
    "secret": frozenset({"B105", "B106", "B107"}),
}
"""The bandit tests that speak to each class (by bandit test id)."""


@dataclass(frozen=True, slots=True)
class CaseResult:
    case: Case
    flagged: bool
    titles: tuple[str, ...]
    """Our findings that flag the case: ``title (line n)``."""
    bandit: bool | None
    """Whether bandit flags it (None: bandit not run or no bandit test for the class)."""


@dataclass(frozen=True, slots=True)
class ClassScore:
    cls: str
    vulnerable: int
    safe: int
    recall: float | None
    false_alarms: float | None
    youden: float | None
    bandit_recall: float | None = None
    bandit_false_alarms: float | None = None
    bandit_youden: float | None = None


@dataclass(slots=True)
class Scores:
    min_severity: Severity
    bandit: bool
    classes: list[ClassScore] = field(default_factory=list)
    results: list[CaseResult] = field(default_factory=list)
    overall: dict[str, float | None] = field(default_factory=dict)
    bandit_overall: dict[str, float | None] = field(default_factory=dict)


def _bandit_ids(ctx: CheckInput) -> list[tuple[str, str, int]] | None:
    try:
        from .bandit_scan import run_bandit
    except Exception:  # bandit missing or broken: figures are left out, ours still count
        log.warning("checks-eval: bandit cannot be imported; its figures are left out")
        return None
    found: list[tuple[str, str, int]] = []
    try:
        for py in ctx.python_files():
            for frag in py.fragments:
                found += [(b.test_id, b.severity, b.line) for b in run_bandit(frag, full=True)]
    except Exception:  # bandit failing on one case leaves that case without bandit's figure
        log.warning("checks-eval: bandit failed on a case; its figure is left out", exc_info=True)
        return None
    return found


def _bandit_flags(case: Case, issues: list[tuple[str, str, int]] | None) -> bool | None:
    if issues is None:
        return None
    if case.cls == COMMIT:
        return any(sev in ("MEDIUM", "HIGH") for _, sev, _ in issues)
    ids = BANDIT_CLASSES.get(case.cls)
    if ids is None:
        return None
    return any(t in ids and (not case.lines or line in case.lines) for t, _, line in issues)


def _run(case: Case, min_severity: Severity, bandit: bool) -> CaseResult:
    assert case.action is not None
    found: list[Finding] = [f for fs in run_checks(case.action).values() for f in fs]
    hits = [f for f in found if case.counts(f, min_severity)]
    titles = tuple(f"{f.title} (line {f.line})" if f.line else f.title for f in hits)
    issues = _bandit_ids(CheckInput(case.action)) if bandit else None
    return CaseResult(case, bool(hits), titles, _bandit_flags(case, issues))


def _rate(n: int, d: int) -> float | None:
    return round(n / d, 4) if d else None


def _youden(recall: float | None, fa: float | None) -> float | None:
    return round(recall - fa, 4) if recall is not None and fa is not None else None


def _score(cls: str, rows: list[CaseResult]) -> ClassScore:
    vul = [r for r in rows if r.case.vulnerable]
    safe = [r for r in rows if not r.case.vulnerable]
    recall = _rate(sum(r.flagged for r in vul), len(vul))
    fa = _rate(sum(r.flagged for r in safe), len(safe))
    b_vul = [r.bandit for r in vul if r.bandit is not None]
    b_safe = [r.bandit for r in safe if r.bandit is not None]
    b_recall = _rate(sum(b_vul), len(b_vul)) if len(b_vul) == len(vul) else None
    b_fa = _rate(sum(b_safe), len(b_safe)) if len(b_safe) == len(safe) else None
    return ClassScore(
        cls,
        len(vul),
        len(safe),
        recall,
        fa,
        _youden(recall, fa),
        b_recall,
        b_fa,
        _youden(b_recall, b_fa),
    )


def _overall(
    classes: list[ClassScore], rows: list[CaseResult], bandit: bool
) -> dict[str, float | None]:
    scored = [c for c in classes if c.cls != COMMIT]
    youdens = [c.bandit_youden if bandit else c.youden for c in scored]
    known = [y for y in youdens if y is not None]

    def flag(r: CaseResult) -> bool:
        return bool(r.bandit) if bandit else r.flagged

    vul = [r for r in rows if r.case.vulnerable]
    safe = [r for r in rows if not r.case.vulnerable and r.case.cls != COMMIT]
    commits = [r for r in rows if r.case.cls == COMMIT]
    if bandit:
        vul, safe, commits = (
            [r for r in group if r.bandit is not None] for group in (vul, safe, commits)
        )
    return {
        "youden": round(sum(known) / len(known), 4) if known else None,
        "recall": _rate(sum(flag(r) for r in vul), len(vul)),
        "false_alarms": _rate(sum(flag(r) for r in safe), len(safe)),
        "commits_not_approved": _rate(sum(flag(r) for r in commits), len(commits)),
    }


def evaluate(
    cases: list[Case], *, min_severity: Severity = Severity.HIGH, bandit: bool = True
) -> Scores:
    """Run the checks (and bandit, when ``bandit``) on every case and score them."""
    results = [_run(c, min_severity, bandit) for c in cases]
    order = sorted({c.cls for c in cases}, key=lambda k: (k == COMMIT, k))
    classes = [_score(k, [r for r in results if r.case.cls == k]) for k in order]
    ran_bandit = bandit and any(r.bandit is not None for r in results)
    return Scores(
        min_severity=min_severity,
        bandit=ran_bandit,
        classes=classes,
        results=results,
        overall=_overall(classes, results, False),
        bandit_overall=_overall(classes, results, True) if ran_bandit else {},
    )
