"""Property tests of the review logic: caps, fail-closed, determinism, monotonicity."""

from __future__ import annotations

import random
from collections.abc import Mapping
from datetime import UTC, datetime

import msgspec
from hypothesis import given, settings
from hypothesis import strategies as st
from review_helpers import ALL, rule

from humangr.contracts import (
    ActionContext,
    ConsensusResult,
    Finding,
    LayerID,
    LayerRunResult,
    LayerStatus,
    Outcome,
    ReviewFinding,
    Severity,
    Usage,
    VetoLevel,
)
from humangr.engine.review import (
    LAYERS,
    VOTING_STATUSES,
    build_report,
    consensus,
    error_run,
    gate,
    is_settled,
    make_run,
    policy_version,
)

FAST = settings(max_examples=60, deadline=None)
RANK = {Outcome.APPROVED: 0, Outcome.NEEDS_REVIEW: 1, Outcome.REJECTED: 2}

layers = st.sampled_from(ALL)
severities = st.sampled_from(list(Severity))
vetoes = st.sampled_from(list(VetoLevel))
statuses = st.sampled_from(list(LayerStatus))
review_findings = st.builds(
    ReviewFinding,
    severity=severities,
    title=st.sampled_from(["SQL injection", "sql  Injection!", "leak", "slow loop", "nit"]),
    file=st.sampled_from([None, "app.py", "lib/db.py"]),
    line=st.one_of(st.none(), st.integers(0, 40)),
)
# a run spec: None = error run, else the LLM's findings
run_specs = st.lists(st.one_of(st.none(), st.lists(review_findings, max_size=4)), max_size=5)


def build_runs(layer: LayerID, specs: list[list[ReviewFinding] | None]) -> list[LayerRunResult]:
    return [
        error_run(layer, n, "invalid reply") if spec is None else make_run(layer, n, spec)
        for n, spec in enumerate(specs, 1)
    ]


@st.composite
def layer_inputs(draw: st.DrawFn) -> tuple[LayerID, list[LayerRunResult], int, list[Finding]]:
    layer = draw(layers)
    specs = draw(run_specs)
    runs = build_runs(layer, specs)
    raw = draw(st.lists(st.tuples(statuses, vetoes), max_size=2))
    runs += [
        LayerRunResult(layer_id=layer, run_number=len(runs) + i, status=s, veto_level=v)
        for i, (s, v) in enumerate(raw, 1)
    ]
    llm_configured = bool(runs) or draw(st.booleans())
    planned = len(runs) + draw(st.integers(0, 2)) if llm_configured else 0
    rules = [
        rule(layer, s, f"rule {i}") for i, s in enumerate(draw(st.lists(severities, max_size=3)))
    ]
    return layer, runs, planned, rules


@FAST
@given(layer_inputs())
def test_consensus_never_exceeds_the_layers_power(data) -> None:  # type: ignore[no-untyped-def]
    layer, runs, planned, rules = data
    result = consensus(layer, runs, planned_runs=planned, rule_findings=rules)
    assert result.veto_level <= LAYERS[layer].veto_power
    assert 0.0 <= result.agreement_ratio <= 1.0
    assert result.valid_runs == sum(1 for r in runs if r.status in VOTING_STATUSES)


@FAST
@given(layers, run_specs)
def test_runs_never_exceed_the_layers_power(layer: LayerID, specs) -> None:  # type: ignore[no-untyped-def]
    for run in build_runs(layer, specs):
        assert run.veto_level <= LAYERS[layer].veto_power


@FAST
@given(layer_inputs(), st.randoms(use_true_random=False))
def test_consensus_is_deterministic_and_order_free(data, rnd: random.Random) -> None:  # type: ignore[no-untyped-def]
    layer, runs, planned, rules = data
    shuffled = list(runs)
    rnd.shuffle(shuffled)
    first = consensus(layer, runs, planned_runs=planned, rule_findings=rules)
    assert consensus(layer, shuffled, planned_runs=planned, rule_findings=rules) == first


@FAST
@given(layers, st.lists(st.lists(review_findings, max_size=3), min_size=2, max_size=5))
def test_a_strong_run_always_reaches_at_least_medium(layer: LayerID, specs) -> None:  # type: ignore[no-untyped-def]
    runs = build_runs(layer, specs)
    result = consensus(layer, runs, planned_runs=len(runs))
    if any(r.veto_level is VetoLevel.STRONG for r in runs):
        assert result.veto_level >= VetoLevel.MEDIUM


@st.composite
def layer_results(draw: st.DrawFn) -> dict[LayerID, ConsensusResult]:
    chosen = draw(st.lists(layers, unique=True))
    return {lid: ConsensusResult(status=draw(statuses), veto_level=draw(vetoes)) for lid in chosen}


@FAST
@given(layer_results(), st.lists(layers, unique=True))
def test_an_error_or_missing_layer_never_approves(results, expected) -> None:  # type: ignore[no-untyped-def]
    broken = any(lid not in results for lid in expected) or any(
        r.status not in VOTING_STATUSES for r in results.values()
    )
    if broken:
        assert gate(results, expected) is not Outcome.APPROVED


@FAST
@given(st.dictionaries(layers, run_specs, min_size=1))
def test_invalid_runs_never_approve_end_to_end(specs_by_layer) -> None:  # type: ignore[no-untyped-def]
    results = {
        lid: consensus(
            lid, build_runs(lid, specs), planned_runs=3 if len(specs) <= 3 else len(specs)
        )
        for lid, specs in specs_by_layer.items()
    }
    if any(sum(1 for s in specs if s is not None) < 2 for specs in specs_by_layer.values()):
        assert gate(results, list(results)) is not Outcome.APPROVED


def _raise(
    results: Mapping[LayerID, ConsensusResult], lid: LayerID, to: VetoLevel
) -> dict[LayerID, ConsensusResult]:
    raised = dict(results)
    raised[lid] = msgspec.structs.replace(results[lid], veto_level=max(to, results[lid].veto_level))
    return raised


@FAST
@given(layer_results(), st.lists(layers, unique=True), st.data())
def test_gate_is_monotone_in_every_veto(results, expected, data) -> None:  # type: ignore[no-untyped-def]
    if not results:
        return
    lid = data.draw(st.sampled_from(sorted(results, key=str)))
    before = gate(results, expected)
    after = gate(_raise(results, lid, data.draw(vetoes)), expected)
    assert RANK[after] >= RANK[before]
    if before is Outcome.REJECTED:
        assert after is Outcome.REJECTED


@FAST
@given(layer_results(), st.data())
def test_a_settled_outcome_holds_whatever_the_rest_say(results, data) -> None:  # type: ignore[no-untyped-def]
    settled = is_settled(results, ALL)
    rest = {
        lid: ConsensusResult(status=data.draw(statuses), veto_level=data.draw(vetoes))
        for lid in ALL
        if lid not in results
    }
    if settled is not None:
        assert gate({**results, **rest}, ALL) is settled


ACTION = ActionContext(agent_id="a", action_type="t", action_description="d")
ACTION_TIME = datetime(2025, 1, 1, tzinfo=UTC)


@FAST
@given(layer_results(), st.lists(layers, unique=True))
def test_reports_are_deterministic(results, expected) -> None:  # type: ignore[no-untyped-def]
    def report() -> object:
        made = build_report(
            report_id="r",
            action_id="x",
            action=ACTION,
            results=results,
            expected=expected,
            timings={"total": 1.0},
            usage=Usage(),
            policy=policy_version(),
        )
        return msgspec.structs.replace(made, decided_at=ACTION_TIME)

    first = report()
    assert report() == first
    assert first.outcome is gate(results, expected)  # type: ignore[attr-defined]
