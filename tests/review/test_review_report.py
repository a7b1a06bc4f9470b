"""Binding (action hash, policy version) and the final report."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Collection, Mapping
from datetime import UTC, datetime

import msgspec
import pytest
from review_helpers import ALL, S, cr, err, run_of

from humangr.contracts import (
    ActionContext,
    ConsensusResult,
    HumanLayerReport,
    LayerID,
    LayerStatus,
    Outcome,
    Usage,
    VetoLevel,
    decode,
    encode,
)
from humangr.engine.review import (
    DEFAULT_SETTINGS,
    LAYERS,
    GateSettings,
    LayerSpec,
    action_hash,
    build_report,
    consensus,
    policy_version,
)

V = VetoLevel
HL = LayerID
ACTION = ActionContext(
    agent_id="dev-1",
    action_type="code_diff",
    action_description="add a user lookup",
    code_diff="+ cursor.execute(f'SELECT * FROM users WHERE id={uid}')",
    affected_files=["app/users.py"],
    environment={"branch": "main", "env": "prod"},
)
AT = datetime(2025, 1, 2, 3, 4, 5, tzinfo=UTC)


def test_action_hash_is_sha256_of_canonical_json() -> None:
    plain = json.loads(msgspec.json.encode(ACTION))
    del plain["tool_call"]  # an action without a tool call hashes as before the field existed
    canonical = json.dumps(plain, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    assert action_hash(ACTION) == hashlib.sha256(canonical.encode()).hexdigest()


def test_action_hash_ignores_key_order_but_not_content() -> None:
    swapped = ActionContext(
        **{**msgspec.structs.asdict(ACTION), "environment": {"env": "prod", "branch": "main"}}
    )
    assert action_hash(swapped) == action_hash(ACTION)
    changed = msgspec.structs.replace(ACTION, code_diff=ACTION.code_diff + " ")  # type: ignore[operator]
    assert action_hash(changed) != action_hash(ACTION)


def test_policy_version_is_short_stable_and_sensitive() -> None:
    base = policy_version()
    assert len(base) == 16
    assert base == policy_version(thresholds=DEFAULT_SETTINGS.thresholds())
    assert policy_version(prompts_digest="abc") != base
    assert policy_version(thresholds=GateSettings(rejecting_mediums=3).thresholds()) != base
    weaker = dict(LAYERS)
    weaker[HL.HL4] = LayerSpec(
        id=HL.HL4,
        name="security",
        title="Security",
        focus=LAYERS[HL.HL4].focus,
        veto_power=V.MEDIUM,
    )
    assert policy_version(layers=weaker) != base
    assert policy_version(layers=dict(reversed(list(LAYERS.items())))) == base


def _report(
    results: Mapping[LayerID, ConsensusResult],
    expected: Collection[LayerID],
    decided_at: datetime | None = None,
) -> HumanLayerReport:
    return build_report(
        report_id="r-1",
        action_id="a-1",
        action=ACTION,
        results=results,
        expected=expected,
        timings={"total": 1200.0, "HL4": 900.5},
        usage=Usage(input_tokens=100, calls=3),
        policy=policy_version(),
        decided_at=decided_at,
    )


def test_report_of_a_rejected_action() -> None:
    results = {lid: cr() for lid in ALL}
    results[HL.HL4] = consensus(
        HL.HL4,
        [run_of(HL.HL4, 1, S.CRITICAL), run_of(HL.HL4, 2, S.CRITICAL), err(HL.HL4, 3)],
        planned_runs=3,
    )
    report = _report(results, ALL, decided_at=AT)
    assert report.outcome is Outcome.REJECTED
    assert report.final_veto_level is V.STRONG
    assert report.agent_id == "dev-1"
    assert report.action_hash == action_hash(ACTION)
    assert report.policy_version == policy_version()
    assert report.blocking_reasons == ["HL4 security: strong veto — critical problem (app.py:1)"]
    assert list(report.layer_results) == list(ALL)
    assert report.usage == Usage(input_tokens=100, calls=3)
    assert report.timings == {"HL4": 900.5, "total": 1200.0}
    assert report.decided_at == AT
    assert decode(encode(report), HumanLayerReport) == report


def test_s14_inv004_report_includes_every_expected_layer() -> None:
    report = _report({HL.HL1: cr()}, [HL.HL1, HL.HL5])
    assert set(report.layer_results) == {HL.HL1, HL.HL5}
    missing = report.layer_results[HL.HL5]
    assert missing.status is LayerStatus.ERROR
    assert "no report before the deadline" in (missing.error or "")
    assert report.outcome is Outcome.NEEDS_REVIEW
    assert report.blocking_reasons == ["HL5 performance: missing — no report before the deadline"]


@pytest.mark.parametrize(
    ("vetoes", "outcome", "final"),
    [
        ((V.NONE, V.WEAK), Outcome.APPROVED, V.WEAK),
        ((V.MEDIUM, V.NONE), Outcome.NEEDS_REVIEW, V.MEDIUM),
        ((), Outcome.APPROVED, V.NONE),
    ],
)
def test_report_outcome_and_final_veto(
    vetoes: tuple[VetoLevel, ...], outcome: Outcome, final: VetoLevel
) -> None:
    results = {lid: cr(v) for lid, v in zip(ALL, vetoes, strict=False)}
    report = _report(results, list(results))
    assert (report.outcome, report.final_veto_level) == (outcome, final)


def test_s14_inv002_same_inputs_same_report_except_timestamp() -> None:
    results = {lid: cr(V.MEDIUM if lid is HL.HL2 else V.NONE) for lid in ALL}
    first, second = _report(results, ALL), _report(results, ALL)
    assert msgspec.structs.replace(first, decided_at=AT) == msgspec.structs.replace(
        second, decided_at=AT
    )
    assert encode(_report(results, ALL, decided_at=AT)) == encode(
        _report(dict(reversed(list(results.items()))), list(reversed(ALL)), decided_at=AT)
    )
