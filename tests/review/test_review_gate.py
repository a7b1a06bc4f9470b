"""The veto gate (seed S14 with its fixes), early exit and blocking reasons."""

from __future__ import annotations

import pytest
from review_helpers import ALL, S, cr, err, rf, run_of

from humangr.contracts import (
    ConsensusResult,
    Finding,
    FindingSource,
    LayerID,
    LayerStatus,
    Outcome,
    VetoLevel,
)
from humangr.engine.review import (
    GateSettings,
    blocking_reasons,
    consensus,
    gate,
    is_settled,
    make_run,
    max_veto,
)

V = VetoLevel
L = LayerStatus
OC = Outcome
HL = LayerID


def results_of(*vetoes: VetoLevel) -> dict[LayerID, ConsensusResult]:
    return {lid: cr(v) for lid, v in zip(ALL, vetoes, strict=False)}


@pytest.mark.parametrize(
    ("vetoes", "outcome"),
    [
        pytest.param((V.STRONG,), OC.REJECTED, id="s14-inv001-one-strong"),
        pytest.param((V.NONE,) * 6 + (V.STRONG,), OC.REJECTED, id="strong-among-none"),
        pytest.param((V.STRONG,) * 7, OC.REJECTED, id="s14-edge003-seven-strong"),
        pytest.param((V.MEDIUM, V.MEDIUM), OC.REJECTED, id="two-medium"),
        pytest.param((V.MEDIUM,) * 3 + (V.WEAK,), OC.REJECTED, id="three-medium"),
        pytest.param((V.MEDIUM, V.NONE, V.WEAK), OC.NEEDS_REVIEW, id="one-medium"),
        pytest.param((V.WEAK,) * 7, OC.APPROVED, id="all-weak"),
        pytest.param((V.NONE,) * 7, OC.APPROVED, id="s14-edge002-all-none"),
        pytest.param((V.WEAK, V.NONE), OC.APPROVED, id="weak-and-none"),
        pytest.param((), OC.APPROVED, id="s14-edge001-no-layers"),
    ],
)
def test_gate_over_vetoes(vetoes: tuple[VetoLevel, ...], outcome: Outcome) -> None:
    results = results_of(*vetoes)
    assert gate(results, expected=list(results)) is outcome


@pytest.mark.parametrize(
    ("results", "expected", "outcome"),
    [
        pytest.param({HL.HL1: cr()}, [HL.HL1, HL.HL2], OC.NEEDS_REVIEW, id="missing-layer"),
        pytest.param({}, list(ALL), OC.NEEDS_REVIEW, id="nothing-reported"),
        pytest.param(
            {HL.HL1: cr(), HL.HL2: cr(status=L.ERROR)},
            [HL.HL1, HL.HL2],
            OC.NEEDS_REVIEW,
            id="error-layer",
        ),
        pytest.param(
            {HL.HL1: cr(status=L.ERROR)},
            [],
            OC.NEEDS_REVIEW,
            id="unexpected-error-layer-still-counts",
        ),
        pytest.param({HL.HL7: cr(status=L.SKIP)}, [HL.HL7], OC.NEEDS_REVIEW, id="skipped-layer"),
        pytest.param({HL.HL1: cr(status=L.PENDING)}, [HL.HL1], OC.NEEDS_REVIEW, id="pending"),
        pytest.param({HL.HL4: cr(V.STRONG)}, list(ALL), OC.REJECTED, id="strong-beats-missing"),
        pytest.param(
            {HL.HL2: cr(V.MEDIUM), HL.HL3: cr(V.MEDIUM, status=L.ERROR)},
            [HL.HL2, HL.HL3],
            OC.REJECTED,
            id="two-medium-beats-error",
        ),
        pytest.param(
            {HL.HL4: cr(V.STRONG, status=L.ERROR)},
            [HL.HL4],
            OC.REJECTED,
            id="error-with-rules-strong",
        ),
        pytest.param(
            {HL.HL1: cr(), HL.HL2: cr(V.WEAK)},
            [HL.HL1, HL.HL2],
            OC.APPROVED,
            id="all-present-clean",
        ),
        pytest.param(
            {HL.HL1: cr(), HL.HL4: cr(V.NONE, local_only=True)},
            [HL.HL1, HL.HL4],
            OC.APPROVED,
            id="local-only-is-valid",
        ),
    ],
)
def test_gate_fails_closed(
    results: dict[LayerID, ConsensusResult], expected: list[LayerID], outcome: Outcome
) -> None:
    assert gate(results, expected) is outcome


def test_gate_trusts_no_layer_to_stay_within_its_power() -> None:
    assert gate({HL.HL1: cr(V.STRONG)}, [HL.HL1]) is OC.REJECTED


def test_gate_settings_change_the_medium_threshold() -> None:
    results = results_of(V.MEDIUM, V.MEDIUM)
    assert gate(results, list(results), settings=GateSettings(rejecting_mediums=3)) is (
        OC.NEEDS_REVIEW
    )
    assert (
        gate(results_of(V.MEDIUM), [HL.HL1], settings=GateSettings(rejecting_mediums=1))
        is OC.REJECTED
    )


def test_invalid_llm_output_never_approves() -> None:
    results = {
        lid: consensus(
            lid, [err(lid, n, "reply invalid after 2 repairs") for n in (1, 2, 3)], planned_runs=3
        )
        for lid in ALL
    }
    assert gate(results, ALL) is OC.NEEDS_REVIEW
    reasons = blocking_reasons(results, ALL)
    assert len(reasons) == 7
    assert all(": error — 0 of 3 runs valid" in r for r in reasons)


def test_none_none_strong_reaches_a_human() -> None:
    runs = [run_of(HL.HL4, 1), run_of(HL.HL4, 2), run_of(HL.HL4, 3, S.CRITICAL)]
    layer = consensus(HL.HL4, runs, planned_runs=3)
    assert layer.veto_level >= V.MEDIUM
    assert layer.dissent
    others: dict[LayerID, ConsensusResult] = {lid: cr() for lid in ALL if lid is not HL.HL4}
    assert gate({**others, HL.HL4: layer}, ALL) is OC.NEEDS_REVIEW


@pytest.mark.parametrize(
    ("results", "expected", "settled"),
    [
        pytest.param({HL.HL4: cr(V.STRONG)}, ALL, OC.REJECTED, id="strong-settles"),
        pytest.param(
            {HL.HL2: cr(V.MEDIUM), HL.HL5: cr(V.MEDIUM)}, ALL, OC.REJECTED, id="two-medium-settle"
        ),
        pytest.param({HL.HL2: cr(V.MEDIUM)}, ALL, None, id="one-medium-open"),
        pytest.param({HL.HL2: cr(status=L.ERROR)}, ALL, None, id="error-still-open"),
        pytest.param({lid: cr() for lid in ALL[:6]}, ALL, None, id="hl7-pending"),
        pytest.param({lid: cr() for lid in ALL}, ALL, OC.APPROVED, id="all-in-approved"),
        pytest.param(
            {lid: cr(V.MEDIUM if lid is HL.HL3 else V.NONE) for lid in ALL},
            ALL,
            OC.NEEDS_REVIEW,
            id="all-in-one-medium",
        ),
        pytest.param({}, (), OC.APPROVED, id="no-layers"),
        pytest.param({}, ALL, None, id="nothing-yet"),
    ],
)
def test_is_settled(
    results: dict[LayerID, ConsensusResult],
    expected: tuple[LayerID, ...],
    settled: Outcome | None,
) -> None:
    assert is_settled(results, expected) is settled


def test_settled_outcome_holds_whatever_the_missing_layers_say() -> None:
    partial = {HL.HL4: cr(V.STRONG)}
    for fill in V:
        full = {**{lid: cr(fill) for lid in ALL}, **partial}
        assert gate(full, ALL) is is_settled(partial, ALL)


def _finding(
    title: str,
    severity: S,
    file: str | None = None,
    line: int | None = None,
    votes: int = 2,
    source: FindingSource = FindingSource.LLM,
) -> Finding:
    return Finding(
        id=title[:10],
        layer_id=HL.HL4,
        severity=severity,
        title=title,
        file=file,
        line=line,
        votes=votes,
        source=source,
    )


def test_s14_inv003_reasons_name_layer_and_finding() -> None:
    hl4 = cr(
        V.STRONG,
        findings=[
            _finding("SQL built from request input", S.CRITICAL, "app/users.py", 12),
            _finding("naming", S.LOW),
        ],
    )
    assert blocking_reasons({HL.HL4: hl4}) == [
        "HL4 security: strong veto — SQL built from request input (app/users.py:12)"
    ]


def test_reasons_for_error_missing_and_medium_layers_in_layer_order() -> None:
    results = {
        HL.HL3: cr(status=L.ERROR, error="1 of 3 runs valid"),
        HL.HL2: cr(
            V.MEDIUM,
            findings=[
                _finding("unhandled None", S.HIGH, "a.py"),
                _finding("rules: bare except", S.HIGH, source=FindingSource.RULES, votes=3),
            ],
        ),
        HL.HL1: cr(V.WEAK),
    }
    assert blocking_reasons(results, [HL.HL1, HL.HL2, HL.HL3, HL.HL5]) == [
        "HL2 functionality: medium veto — unhandled None (a.py); rules: bare except",
        "HL3 edge cases: error — 1 of 3 runs valid",
        "HL5 performance: missing — no report before the deadline",
    ]


def test_reasons_mark_dissent_unconfirmed_and_local_only() -> None:
    dissent = cr(V.MEDIUM, dissent=True, findings=[_finding("RCE via eval", S.CRITICAL, votes=1)])
    (reason,) = blocking_reasons({HL.HL4: dissent})
    assert reason.startswith("HL4 security: medium veto (dissent:")
    assert "RCE via eval [unconfirmed: 1 of 3 runs]" in reason
    local = cr(
        V.STRONG,
        local_only=True,
        findings=[_finding("AWS key", S.CRITICAL, "cfg.py", 3, source=FindingSource.RULES)],
    )
    (reason,) = blocking_reasons({HL.HL6: local})
    assert reason == "HL6 compliance: strong veto (local checks only) — AWS key (cfg.py:3)"


def test_reasons_cap_the_findings_named() -> None:
    many = [_finding(f"problem {i}", S.HIGH) for i in range(5)]
    (reason,) = blocking_reasons({HL.HL5: cr(V.MEDIUM, findings=many)})
    assert reason.endswith("problem 0; problem 1; problem 2; 2 more")


def test_no_reasons_when_approved() -> None:
    results = results_of(V.NONE, V.WEAK, V.NONE)
    assert gate(results, list(results)) is OC.APPROVED
    assert blocking_reasons(results, list(results)) == []


def test_reasons_are_bounded() -> None:
    huge = cr(V.STRONG, findings=[_finding("x" * 200, S.CRITICAL, "f" * 500, 1)] * 3)
    (reason,) = blocking_reasons({HL.HL4: huge})
    assert len(reason) <= 2000


def test_max_veto() -> None:
    assert max_veto({}) is V.NONE
    assert max_veto(results_of(V.WEAK, V.MEDIUM, V.NONE)) is V.MEDIUM


def test_real_runs_through_consensus_and_gate() -> None:
    sqli = rf(S.CRITICAL, "SQL built from request input", "app/users.py", 12)
    results = {
        lid: consensus(lid, [make_run(lid, n, []) for n in (1, 2, 3)], planned_runs=3)
        for lid in ALL
    }
    results[HL.HL4] = consensus(
        HL.HL4,
        [make_run(HL.HL4, 1, [sqli]), make_run(HL.HL4, 2, [sqli]), make_run(HL.HL4, 3, [])],
        planned_runs=3,
    )
    assert gate(results, ALL) is OC.REJECTED
    assert blocking_reasons(results, ALL) == [
        "HL4 security: strong veto — SQL built from request input (app/users.py:12)"
    ]
