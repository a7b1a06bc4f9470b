"""Consensus of one layer over its runs and local checks (docs/design.md#consensus-of-a-layer)."""

from __future__ import annotations

import itertools

import pytest
from review_helpers import S, err, raw_run, rf, rule, run_of

from humangr.contracts import (
    ConsensusResult,
    FindingSource,
    LayerID,
    LayerRunResult,
    LayerStatus,
    VetoLevel,
    decode,
    encode,
)
from humangr.engine.review import ReviewError, consensus, is_confirmed, make_run

V = VetoLevel
L = LayerStatus
HL4 = LayerID.HL4
HL2 = LayerID.HL2

# run shorthands for HL4 (power strong): N = clean, H = high (medium veto), C = critical (strong)
N = ()
H = (S.HIGH,)
M = (S.MEDIUM,)
C = (S.CRITICAL,)


def runs(layer: LayerID, *specs: tuple[S, ...] | str) -> list[LayerRunResult]:
    return [
        run_of(layer, n, *spec) if isinstance(spec, tuple) else err(layer, n)
        for n, spec in enumerate(specs, 1)
    ]


@pytest.mark.parametrize(
    ("layer", "specs", "status", "veto", "dissent", "agreement"),
    [
        pytest.param(HL4, (N, N, N), L.PASS, V.NONE, False, 1.0, id="all-clean"),
        pytest.param(HL4, (C, C, C), L.FAIL, V.STRONG, False, 1.0, id="all-strong"),
        pytest.param(HL4, (C, C, N), L.FAIL, V.STRONG, False, 2 / 3, id="two-of-three-strong"),
        pytest.param(HL4, (H, N, N), L.PASS, V.NONE, False, 2 / 3, id="lone-medium-outvoted"),
        pytest.param(HL4, (H, H, N), L.FAIL, V.MEDIUM, False, 2 / 3, id="two-medium"),
        pytest.param(HL4, (N, M, H), L.WARN, V.NONE, False, 1 / 3, id="status-median-warn"),
        # seed fix (DESIGN 12.4): a lone strong run is not voted away silently
        pytest.param(HL4, (N, N, C), L.WARN, V.MEDIUM, True, 2 / 3, id="none-none-strong"),
        pytest.param(HL4, (N, H, C), L.FAIL, V.MEDIUM, True, 1 / 3, id="none-medium-strong"),
        pytest.param(HL4, (H, H, C), L.FAIL, V.MEDIUM, True, 2 / 3, id="medium-medium-strong"),
        # two valid runs: the higher
        pytest.param(HL4, (N, "error", H), L.FAIL, V.MEDIUM, False, 1 / 2, id="two-valid-higher"),
        pytest.param(HL4, ("error", C, N), L.FAIL, V.STRONG, False, 1 / 2, id="two-valid-strong"),
        # the power caps everything; HL2 has medium power
        pytest.param(HL2, (C, C, C), L.FAIL, V.MEDIUM, False, 1.0, id="hl2-capped"),
        pytest.param(HL2, (C, N, N), L.PASS, V.NONE, False, 2 / 3, id="hl2-lone-critical"),
        # seed fix (DESIGN 12.2): high-only findings keep their veto
        pytest.param(HL2, (H, H, H), L.FAIL, V.MEDIUM, False, 1.0, id="high-only-keeps-veto"),
        pytest.param(LayerID.HL1, (H, H, N), L.FAIL, V.WEAK, False, 2 / 3, id="hl1-high-weak"),
        # N runs: the upper median
        pytest.param(HL4, (N, N, H, H), L.FAIL, V.MEDIUM, False, 1 / 2, id="four-upper-median"),
        pytest.param(HL4, (N, N, N, H, H), L.PASS, V.NONE, False, 3 / 5, id="five-median"),
        pytest.param(HL4, (N, N, N, C, C), L.WARN, V.MEDIUM, True, 3 / 5, id="five-dissent"),
    ],
)
def test_consensus_table(
    layer: LayerID,
    specs: tuple[tuple[S, ...] | str, ...],
    status: LayerStatus,
    veto: VetoLevel,
    dissent: bool,
    agreement: float,
) -> None:
    given = runs(layer, *specs)
    result = consensus(layer, given, planned_runs=len(given))
    assert (result.status, result.veto_level, result.dissent) == (status, veto, dissent)
    assert result.agreement_ratio == pytest.approx(agreement)
    valid = sum(1 for s in specs if s != "error")
    assert (result.valid_runs, result.planned_runs) == (valid, len(given))
    assert not result.local_only
    assert result.error is None


@pytest.mark.parametrize(
    ("specs", "planned", "fragment"),
    [
        pytest.param((N, "error", "error"), 3, "1 of 3 runs valid", id="one-valid"),
        pytest.param(("error", "error", "error"), 3, "0 of 3 runs valid", id="all-error"),
        pytest.param((C, "error", "error"), 3, "1 of 3 runs valid", id="lone-strong-in-error"),
        pytest.param((N,), 3, "2 run(s) without a result", id="runs-missing"),
        pytest.param((), 3, "0 of 3 runs valid", id="nothing-arrived"),
    ],
)
def test_fewer_than_two_valid_runs_is_an_error(
    specs: tuple[tuple[S, ...] | str, ...], planned: int, fragment: str
) -> None:
    result = consensus(HL4, runs(HL4, *specs), planned_runs=planned)
    assert result.status is L.ERROR
    assert result.veto_level is V.NONE
    assert result.error is not None
    assert fragment in result.error
    assert result.agreement_ratio == 0.0


def test_error_message_names_the_failed_runs() -> None:
    given = [run_of(HL4, 1), err(HL4, 2, "timeout after 60s"), err(HL4, 3, "invalid JSON")]
    result = consensus(HL4, given, planned_runs=3)
    assert result.error == (
        "1 of 3 runs valid, 2 needed (run 2: timeout after 60s; run 3: invalid JSON)"
    )


def test_error_layer_keeps_the_rules_veto_and_reports_surviving_findings() -> None:
    given = [run_of(HL4, 1, S.HIGH), err(HL4, 2), err(HL4, 3)]
    result = consensus(
        HL4, given, planned_runs=3, rule_findings=[rule(HL4, S.CRITICAL, "hardcoded secret")]
    )
    assert (result.status, result.veto_level) == (L.ERROR, V.STRONG)
    sources = {(f.source, f.votes) for f in result.merged_findings}
    assert sources == {(FindingSource.RULES, 2), (FindingSource.LLM, 1)}


@pytest.mark.parametrize("status", [L.SKIP, L.PENDING, L.RUNNING, L.ERROR])
def test_runs_without_a_verdict_do_not_vote(status: LayerStatus) -> None:
    given = [
        raw_run(HL4, 1, status, V.NONE),
        raw_run(HL4, 2, L.PASS, V.NONE),
        raw_run(HL4, 3, status, V.NONE),
    ]
    assert consensus(HL4, given, planned_runs=3).status is L.ERROR


def test_a_single_planned_run_is_enough_when_one_is_configured() -> None:
    result = consensus(HL4, runs(HL4, H), planned_runs=1)
    assert (result.status, result.veto_level, result.valid_runs) == (L.FAIL, V.MEDIUM, 1)


def test_run_vetoes_above_the_layers_power_are_capped() -> None:
    given = [raw_run(LayerID.HL1, n, L.FAIL, V.STRONG) for n in (1, 2, 3)]
    result = consensus(LayerID.HL1, given, planned_runs=3)
    assert result.veto_level is V.WEAK
    assert not result.dissent


@pytest.mark.parametrize(
    ("rules", "status", "veto"),
    [
        pytest.param([], L.PASS, V.NONE, id="no-rules"),
        pytest.param([S.LOW], L.PASS, V.NONE, id="low"),
        pytest.param([S.MEDIUM], L.WARN, V.NONE, id="medium"),
        pytest.param([S.HIGH], L.FAIL, V.MEDIUM, id="high"),
        pytest.param([S.CRITICAL, S.LOW], L.FAIL, V.STRONG, id="critical"),
    ],
)
def test_local_checks_only_is_a_valid_result(
    rules: list[S], status: LayerStatus, veto: VetoLevel
) -> None:
    found = [rule(HL4, s, f"rule {i}") for i, s in enumerate(rules)]
    result = consensus(HL4, [], planned_runs=0, rule_findings=found)
    assert (result.status, result.veto_level, result.local_only) == (status, veto, True)
    assert result.error is None
    assert (result.valid_runs, result.planned_runs) == (0, 0)
    assert len(result.merged_findings) == len(rules)
    assert all(is_confirmed(f) for f in result.merged_findings)


@pytest.mark.parametrize(
    ("layer", "specs", "rules", "status", "veto"),
    [
        pytest.param(HL4, (N, N, N), [S.CRITICAL], L.FAIL, V.STRONG, id="rules-raise"),
        pytest.param(HL4, (N, N, N), [S.MEDIUM], L.WARN, V.NONE, id="rules-raise-status"),
        pytest.param(HL4, (C, C, N), [S.LOW], L.FAIL, V.STRONG, id="rules-never-lower"),
        pytest.param(HL2, (N, N, N), [S.CRITICAL], L.FAIL, V.MEDIUM, id="rules-capped"),
        pytest.param(LayerID.HL1, (N, N, N), [S.HIGH], L.FAIL, V.WEAK, id="hl1-rules-high"),
    ],
)
def test_rule_findings_raise_the_layer(
    layer: LayerID,
    specs: tuple[tuple[S, ...], ...],
    rules: list[S],
    status: LayerStatus,
    veto: VetoLevel,
) -> None:
    found = [rule(layer, s, f"rule {i}") for i, s in enumerate(rules)]
    result = consensus(layer, runs(layer, *specs), planned_runs=3, rule_findings=found)
    assert (result.status, result.veto_level) == (status, veto)


def test_rule_findings_are_added_once_and_confirmed() -> None:
    hit = rule(HL4, S.HIGH, "hardcoded secret", "cfg.py", 3)
    result = consensus(HL4, runs(HL4, N, N, N), planned_runs=3, rule_findings=[hit])
    assert len(result.merged_findings) == 1
    merged = result.merged_findings[0]
    assert (merged.id, merged.source, merged.votes) == (hit.id, FindingSource.RULES, 3)
    assert merged.fingerprint == hit.fingerprint
    assert is_confirmed(merged)


def test_findings_are_grouped_by_fingerprint_with_votes() -> None:
    sqli_a = rf(S.CRITICAL, "SQL injection in login", "app/users.py", 12)
    sqli_b = rf(S.HIGH, "SQL  injection in LOGIN.", "app/users.py", 15)
    nit = rf(S.LOW, "variable naming", "app/users.py", 40)
    given = [
        make_run(HL4, 1, [sqli_a, nit]),
        make_run(HL4, 2, [sqli_b, sqli_a]),  # the same finding twice in one run counts once
        make_run(HL4, 3, []),
    ]
    result = consensus(HL4, given, planned_runs=3)
    by_title = {f.title: f for f in result.merged_findings}
    assert len(result.merged_findings) == 2
    sqli = by_title["SQL injection in login"]
    assert (sqli.votes, sqli.severity, sqli.file, sqli.line) == (2, S.CRITICAL, "app/users.py", 12)
    assert is_confirmed(sqli)
    naming = by_title["variable naming"]
    assert naming.votes == 1
    assert not is_confirmed(naming)
    assert result.merged_findings[0] == sqli


def test_merged_severity_is_the_one_two_runs_reach() -> None:
    given = [
        make_run(HL4, 1, [rf(S.CRITICAL, "token leak")]),
        make_run(HL4, 2, [rf(S.HIGH, "token leak")]),
        make_run(HL4, 3, [rf(S.LOW, "token leak")]),
    ]
    merged = consensus(HL4, given, planned_runs=3).merged_findings
    assert [(f.severity, f.votes) for f in merged] == [(S.HIGH, 3)]


def test_unconfirmed_findings_are_kept_but_do_not_raise_the_veto() -> None:
    given = [
        make_run(HL2, 1, [rf(S.CRITICAL, "crash on empty list")]),
        make_run(HL2, 2, []),
        make_run(HL2, 3, []),
    ]
    result = consensus(HL2, given, planned_runs=3)
    assert result.veto_level is V.NONE
    assert [(f.title, f.votes) for f in result.merged_findings] == [("crash on empty list", 1)]
    assert not is_confirmed(result.merged_findings[0])


def test_consensus_does_not_depend_on_run_order() -> None:
    given = [
        make_run(HL4, 1, [rf(S.HIGH, "a"), rf(S.LOW, "b")]),
        make_run(HL4, 2, [rf(S.CRITICAL, "a", line=5)]),
        make_run(HL4, 3, [rf(S.MEDIUM, "c")]),
    ]
    results = {
        encode(consensus(HL4, list(order), planned_runs=3))
        for order in itertools.permutations(given)
    }
    assert len(results) == 1


def test_consensus_round_trips_through_its_contract() -> None:
    given = runs(HL4, C, N, "error")
    result = consensus(HL4, given, planned_runs=3, rule_findings=[rule(HL4, S.HIGH)])
    assert decode(encode(result), ConsensusResult) == result


@pytest.mark.parametrize(
    ("given", "planned", "rules", "match"),
    [
        pytest.param(lambda: runs(HL2, N), 3, [], "HL2 result", id="run-of-other-layer"),
        pytest.param(lambda: [], 0, [rule(HL2, S.LOW)], "HL2 result", id="rule-of-other-layer"),
        pytest.param(
            lambda: runs(HL4, N, N) * 1 + runs(HL4, N),
            3,
            [],
            "duplicate",
            id="duplicate-run-numbers",
        ),
        pytest.param(lambda: runs(HL4, N, N, N), 2, [], "3 runs given", id="more-than-planned"),
        pytest.param(lambda: runs(HL4, N), 0, [], "1 runs given", id="runs-without-llm"),
        pytest.param(lambda: [], -1, [], "planned_runs=-1", id="negative-planned"),
    ],
)
def test_inconsistent_inputs_are_refused(given, planned, rules, match) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(ReviewError, match=match):
        consensus(HL4, given(), planned_runs=planned, rule_findings=rules)
