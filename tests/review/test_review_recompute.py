"""The Supervisor's recomputation of a layer: runs rescored from their findings, the plan
enforced, late layers ``error`` with their rule findings and rule veto."""

from __future__ import annotations

import msgspec
import pytest
from review_helpers import S, err, rule, run_of

from humangr.contracts import LayerID, LayerStatus, VetoLevel
from humangr.engine.review import (
    DEFAULT_SETTINGS,
    ReviewError,
    adaptive_applies,
    layer_result,
    reconcile_runs,
    rescore_run,
)

HL = LayerID
V = VetoLevel


def forged(layer: LayerID, n: int, *severities: S) -> object:
    """A run whose findings say one thing and whose status and veto claim a clean pass."""
    run = run_of(layer, n, *severities)
    return msgspec.structs.replace(run, status=LayerStatus.PASS, veto_level=V.NONE)


def test_a_run_is_rescored_from_its_findings() -> None:
    run = rescore_run(HL.HL4, forged(HL.HL4, 1, S.CRITICAL))  # type: ignore[arg-type]
    assert (run.status, run.veto_level) == (LayerStatus.FAIL, V.STRONG)
    weak = rescore_run(HL.HL1, forged(HL.HL1, 1, S.CRITICAL))  # type: ignore[arg-type]
    assert weak.veto_level is V.WEAK, "a run's veto never exceeds its layer's power"
    assert rescore_run(HL.HL4, err(HL.HL4, 1)).status is LayerStatus.ERROR


def test_a_run_claiming_to_be_pending_is_an_error_run() -> None:
    pending = msgspec.structs.replace(run_of(HL.HL2, 1), status=LayerStatus.PENDING)
    assert rescore_run(HL.HL2, pending).status is LayerStatus.ERROR


def test_a_run_of_another_layer_is_refused() -> None:
    with pytest.raises(ReviewError, match="another layer"):
        rescore_run(HL.HL4, run_of(HL.HL2, 1))


@pytest.mark.parametrize(
    ("runs", "problem"),
    [
        ([run_of(HL.HL4, 1), run_of(HL.HL4, 1), run_of(HL.HL4, 2)], "twice"),
        ([run_of(HL.HL4, n) for n in (1, 2, 3, 4)], "run 4; 3 run"),
        ([run_of(HL.HL4, 1), run_of(HL.HL4, 2)], "no result for run(s) 3"),
        ([run_of(HL.HL4, 1), run_of(HL.HL4, 3)], "no result for run(s) 2"),
    ],
)
def test_an_inconsistent_report_is_refused(runs: list[object], problem: str) -> None:
    with pytest.raises(ReviewError, match=problem.replace("(", r"\(").replace(")", r"\)")):
        reconcile_runs(HL.HL4, runs, 3, adaptive=True)  # type: ignore[arg-type]


def test_adaptive_skip_of_run_three_only_below_strong_and_only_when_runs_agree() -> None:
    assert adaptive_applies(HL.HL2, 3, True)
    assert not adaptive_applies(HL.HL4, 3, True)
    assert not adaptive_applies(HL.HL2, 3, False)
    agree = [run_of(HL.HL2, 1), run_of(HL.HL2, 2)]
    assert len(reconcile_runs(HL.HL2, agree, 3, adaptive=True)) == 2
    disagree = [run_of(HL.HL2, 1), run_of(HL.HL2, 2, S.HIGH)]
    with pytest.raises(ReviewError, match="run\\(s\\) 3"):
        reconcile_runs(HL.HL2, disagree, 3, adaptive=True)
    with pytest.raises(ReviewError, match="run\\(s\\) 3"):
        reconcile_runs(HL.HL2, agree, 3, adaptive=False)


def test_forged_clean_runs_do_not_approve() -> None:
    runs = [forged(HL.HL4, 1, S.CRITICAL), forged(HL.HL4, 2, S.CRITICAL), run_of(HL.HL4, 3)]
    result = layer_result(
        HL.HL4,
        runs,  # type: ignore[arg-type]
        planned=3,
        rules=[],
        settings=DEFAULT_SETTINGS,
        adaptive=False,
    )
    assert result.veto_level is V.STRONG
    assert result.status is LayerStatus.FAIL


def test_a_late_layer_is_error_and_keeps_its_rule_findings_and_veto() -> None:
    rules = [rule(HL.HL4, S.CRITICAL, "AWS access key")]
    result = layer_result(
        HL.HL4,
        [run_of(HL.HL4, 1)],
        planned=3,
        rules=rules,
        settings=DEFAULT_SETTINGS,
        adaptive=False,
        late="deadline of 0.5s passed",
    )
    assert result.status is LayerStatus.ERROR
    assert result.veto_level is V.STRONG
    assert [f.title for f in result.merged_findings] == ["AWS access key"]
    assert result.error is not None
    assert result.error.startswith("deadline of 0.5s passed")


def test_a_layer_that_never_reported_is_error_with_its_rules_even_without_an_llm() -> None:
    rules = [rule(HL.HL3, S.HIGH, "bare except")]
    for planned in (0, 3):
        result = layer_result(
            HL.HL3,
            [],
            planned=planned,
            rules=rules,
            settings=DEFAULT_SETTINGS,
            adaptive=True,
            late="no report",
        )
        assert (result.status, result.veto_level) == (LayerStatus.ERROR, V.MEDIUM)
        assert not result.local_only
    clean = layer_result(
        HL.HL3, [], planned=3, rules=[], settings=DEFAULT_SETTINGS, adaptive=True, late="late"
    )
    assert (clean.status, clean.veto_level) == (LayerStatus.ERROR, V.NONE)
