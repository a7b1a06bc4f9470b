"""One layer run (seed S05 with its fixes): the layer table, status, veto, fingerprints."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest
from review_helpers import S, rf

from humangr.contracts import (
    Finding,
    FindingSource,
    LayerID,
    LayerRunResult,
    LayerStatus,
    Usage,
    VetoLevel,
    decode,
    encode,
)
from humangr.engine.errors import ConfigError
from humangr.engine.review import (
    DEFAULT_SETTINGS,
    LAYERS,
    MAX_RUN_FINDINGS,
    GateSettings,
    ReviewError,
    error_run,
    fingerprint,
    make_run,
    run_status,
    run_veto,
)

V = VetoLevel
L = LayerStatus


@pytest.mark.parametrize(
    ("lid", "name", "power"),
    [
        (LayerID.HL1, "ux", V.WEAK),
        (LayerID.HL2, "functionality", V.MEDIUM),
        (LayerID.HL3, "edge_cases", V.MEDIUM),
        (LayerID.HL4, "security", V.STRONG),
        (LayerID.HL5, "performance", V.MEDIUM),
        (LayerID.HL6, "compliance", V.STRONG),
        (LayerID.HL7, "final_review", V.STRONG),
    ],
)
def test_layer_table_matches_design(lid: LayerID, name: str, power: VetoLevel) -> None:
    spec = LAYERS[lid]
    assert (spec.id, spec.name, spec.veto_power) == (lid, name, power)
    assert spec.title
    assert spec.focus


def test_s05_edge003_every_layer_id_is_in_the_table() -> None:
    assert set(LAYERS) == set(LayerID)


def test_labels_name_layers_for_humans() -> None:
    assert LAYERS[LayerID.HL4].label == "HL4 security"
    assert LAYERS[LayerID.HL3].label == "HL3 edge cases"
    assert LAYERS[LayerID.HL1].label == "HL1 UX"


def test_s05_inv004_layer_table_is_read_only() -> None:
    with pytest.raises(TypeError):
        LAYERS[LayerID.HL1] = LAYERS[LayerID.HL4]  # type: ignore[index]
    with pytest.raises(dataclasses.FrozenInstanceError):
        LAYERS[LayerID.HL1].veto_power = V.STRONG  # type: ignore[misc]


@pytest.mark.parametrize(
    ("severities", "status"),
    [
        ((), L.PASS),
        ((S.INFO,), L.PASS),
        ((S.LOW, S.INFO), L.PASS),
        ((S.MEDIUM,), L.WARN),
        ((S.LOW, S.MEDIUM), L.WARN),
        ((S.HIGH,), L.FAIL),
        ((S.CRITICAL,), L.FAIL),
        ((S.MEDIUM, S.HIGH, S.LOW), L.FAIL),
    ],
    ids=lambda v: "-".join(s.value for s in v) if isinstance(v, tuple) else str(v),
)
def test_s05_inv003_severity_determines_status(
    severities: tuple[Any, ...], status: LayerStatus
) -> None:
    assert run_status([rf(s) for s in severities]) is status


@pytest.mark.parametrize(
    ("severities", "power", "veto"),
    [
        ((), V.STRONG, V.NONE),
        ((S.MEDIUM, S.LOW), V.STRONG, V.NONE),
        ((S.CRITICAL,), V.STRONG, V.STRONG),
        ((S.CRITICAL,), V.MEDIUM, V.MEDIUM),
        ((S.CRITICAL,), V.WEAK, V.WEAK),
        ((S.CRITICAL,), V.NONE, V.NONE),
        # seed fix (DESIGN 12.2): high-only findings keep their veto
        ((S.HIGH,), V.STRONG, V.MEDIUM),
        ((S.HIGH,), V.MEDIUM, V.MEDIUM),
        ((S.HIGH,), V.WEAK, V.WEAK),
        ((S.HIGH,), V.NONE, V.NONE),
        ((S.HIGH, S.CRITICAL), V.STRONG, V.STRONG),
    ],
)
def test_s05_inv002_run_veto_follows_power(
    severities: tuple[Any, ...], power: VetoLevel, veto: VetoLevel
) -> None:
    result = run_veto([rf(s) for s in severities], power)
    assert result is veto
    assert result <= power


def test_high_only_findings_keep_their_veto_in_a_run() -> None:
    run = make_run(LayerID.HL4, 1, [rf(S.HIGH, "weak token check")])
    assert (run.status, run.veto_level) == (L.FAIL, V.MEDIUM)


@pytest.mark.parametrize(
    ("a", "b"),
    [
        (("SQL Injection!", "app/users.py", 12), ("  sql   injection ", "app/users.py", 17)),
        (("SQL-injection", "./app/users.py", 12), ("sql injection", "app/users.py", 10)),
        (("Ｓｑｌ injection", "app\\users.py", 3), ("sql_injection", "app/users.py", 9)),
        (("no file", None, None), ("No File.", None, None)),
    ],
)
def test_fingerprint_folds_noise(a: tuple[Any, ...], b: tuple[Any, ...]) -> None:
    assert fingerprint(LayerID.HL4, *a) == fingerprint(LayerID.HL4, *b)


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ((LayerID.HL4, "sql injection", "a.py", 12), (LayerID.HL2, "sql injection", "a.py", 12)),
        ((LayerID.HL4, "sql injection", "a.py", 12), (LayerID.HL4, "xss", "a.py", 12)),
        ((LayerID.HL4, "sql injection", "a.py", 12), (LayerID.HL4, "sql injection", "b.py", 12)),
        ((LayerID.HL4, "sql injection", "a.py", 12), (LayerID.HL4, "sql injection", "a.py", 25)),
        ((LayerID.HL4, "sql injection", "a.py", 0), (LayerID.HL4, "sql injection", "a.py", None)),
    ],
)
def test_fingerprint_separates_different_findings(a: tuple[Any, ...], b: tuple[Any, ...]) -> None:
    assert fingerprint(*a) != fingerprint(*b)


def test_fingerprint_is_short_hex_and_stable() -> None:
    fp = fingerprint(LayerID.HL4, "SQL injection", "app.py", 5)
    assert len(fp) == 16
    int(fp, 16)
    assert fp == fingerprint(LayerID.HL4, "SQL injection", "app.py", 5)


def test_make_run_stamps_ids_source_and_fingerprints() -> None:
    usage = Usage(input_tokens=10, output_tokens=5, calls=1)
    run = make_run(
        LayerID.HL4,
        2,
        [rf(S.CRITICAL, "SQL built from request input", "app/users.py", 12), rf(S.LOW, "naming")],
        usage=usage,
        elapsed_ms=12.5,
        repairs=1,
    )
    assert (run.layer_id, run.run_number, run.status, run.veto_level) == (
        LayerID.HL4,
        2,
        L.FAIL,
        V.STRONG,
    )
    assert (run.usage, run.execution_time_ms, run.repairs, run.error) == (usage, 12.5, 1, None)
    assert [f.id for f in run.findings] == ["HL4-r2-1", "HL4-r2-2"]
    first = run.findings[0]
    assert first.source is FindingSource.LLM
    assert first.votes == 1
    assert first.layer_id is LayerID.HL4
    assert first.fingerprint == fingerprint(
        LayerID.HL4, "SQL built from request input", "app/users.py", 12
    )
    assert decode(encode(run), LayerRunResult) == run


def test_make_run_accepts_findings_and_restamps_them_for_the_layer() -> None:
    given = Finding(
        id="x", layer_id=LayerID.HL2, severity=S.HIGH, title="t", source=FindingSource.RULES
    )
    run = make_run(LayerID.HL5, 1, [given])
    f = run.findings[0]
    assert (f.layer_id, f.source, f.id) == (LayerID.HL5, FindingSource.RULES, "HL5-r1-1")
    assert f.fingerprint == fingerprint(LayerID.HL5, "t", None, None)


def test_make_run_never_exceeds_the_layers_power() -> None:
    run = make_run(LayerID.HL1, 1, [rf(S.CRITICAL)])
    assert run.veto_level is V.WEAK


def test_make_run_with_too_many_findings_keeps_the_most_severe_and_their_veto() -> None:
    many = [rf(S.LOW, f"nit {i}") for i in range(MAX_RUN_FINDINGS + 10)] + [rf(S.CRITICAL, "rce")]
    run = make_run(LayerID.HL4, 1, many)
    assert len(run.findings) == MAX_RUN_FINDINGS
    assert any(f.title == "rce" for f in run.findings)
    assert run.veto_level is V.STRONG
    decode(encode(run), LayerRunResult)


def test_s05_edge001_inv001_an_exception_becomes_an_error_run() -> None:
    run = error_run(LayerID.HL3, 3, TimeoutError("LLM call timed out after 60s"), repairs=2)
    assert (run.status, run.veto_level, run.findings) == (L.ERROR, V.NONE, [])
    assert run.error == "TimeoutError: LLM call timed out after 60s"
    assert run.repairs == 2


def test_s05_edge002_fixed_invalid_output_is_an_error_not_empty_findings() -> None:
    run = error_run(LayerID.HL4, 1, "reply still invalid after 2 repairs: $.findings[0].severity")
    assert run.status is L.ERROR
    assert run.error is not None
    assert "invalid" in run.error


def test_error_run_messages_are_bounded_and_never_empty() -> None:
    assert error_run(LayerID.HL4, 1, "").error
    assert error_run(LayerID.HL4, 1, ValueError()).error == "ValueError"
    long = error_run(LayerID.HL4, 1, "x" * 5000)
    assert long.error is not None
    assert len(long.error) == 2000
    decode(encode(long), LayerRunResult)


@pytest.mark.parametrize("n", [0, 17])
def test_run_numbers_outside_the_contract_are_refused(n: int) -> None:
    with pytest.raises(ReviewError, match="run_number"):
        make_run(LayerID.HL4, n, [])
    with pytest.raises(ReviewError, match="run_number"):
        error_run(LayerID.HL4, n, "boom")


def test_default_settings_and_thresholds() -> None:
    assert DEFAULT_SETTINGS.runs_per_layer == 3
    t = DEFAULT_SETTINGS.thresholds()
    assert t["min_valid_runs"] == 2
    assert t["rejecting_mediums"] == 2
    assert t["dissent_floor"] == "medium"


@pytest.mark.parametrize(
    "kwargs",
    [
        {"runs_per_layer": -1},
        {"min_valid_runs": 0},
        {"rejecting_mediums": 0},
        {"dissent_floor": V.NONE},
        {"confirm_votes": 0},
    ],
)
def test_settings_refuse_values_that_would_fail_open(kwargs: dict[str, Any]) -> None:
    with pytest.raises(ConfigError):
        GateSettings(**kwargs)
