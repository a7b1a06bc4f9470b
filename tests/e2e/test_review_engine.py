"""The whole review engine end to end, over MemoryBus and a real NatsBus alike."""

from __future__ import annotations

from typing import Any

import anyio
import pytest
from e2e_helpers import CLEAN, diff_action, engine_on

from humangr.actors.roles import Engine
from humangr.contracts import (
    ActionContext,
    DeadLetter,
    HumanLayerReport,
    LayerID,
    LayerStatus,
    Outcome,
    ReviewRequested,
    ReviewResolution,
    VetoLevel,
    decode,
    encode,
)
from humangr.engine.bus import Bus
from humangr.engine.errors import EngineError
from humangr.engine.llm import ScriptedLLM

pytestmark = pytest.mark.anyio


def findings_of(
    report: HumanLayerReport, layer: LayerID
) -> list[tuple[str, str | None, int | None]]:
    return [(f.title, f.file, f.line) for f in report.layer_results[layer].merged_findings]


async def test_hardcoded_key_and_shell_true_are_rejected_with_hl4_lines(bus: Bus) -> None:
    async with engine_on(bus) as engine:
        report = await engine.submit(diff_action("02-hardcoded-key-and-shell.diff"), timeout=30)
    assert report.outcome is Outcome.REJECTED
    assert report.final_veto_level is VetoLevel.STRONG
    lines = {line for _, file, line in findings_of(report, LayerID.HL4) if file == "app/deploy.py"}
    assert 3 in lines, "the AWS key on line 3 must be named"
    assert 9 in lines, "subprocess.run(..., shell=True) on line 9 must be named"
    assert any(reason.startswith("HL4 security: strong veto") for reason in report.blocking_reasons)
    assert report.layer_results[LayerID.HL4].local_only


async def test_clean_refactor_is_approved(bus: Bus) -> None:
    async with engine_on(bus) as engine:
        report = await engine.submit(diff_action("01-clean-refactor.diff"), timeout=30)
    assert report.outcome is Outcome.APPROVED, report.blocking_reasons
    assert set(report.layer_results) == set(LayerID)
    assert all(not r.merged_findings for r in report.layer_results.values())
    assert report.blocking_reasons == []


async def test_clean_refactor_is_approved_by_17_llm_runs(bus: Bus) -> None:
    """Adaptive redundancy (the default): HL1, HL2, HL3 and HL5 stop after two agreeing runs;
    HL4, HL6 and HL7 (strong power) always run three."""
    llm = ScriptedLLM.from_lines([{"match": {}, **CLEAN}])
    async with engine_on(bus, llm=llm) as engine:
        report = await engine.submit(diff_action("01-clean-refactor.diff"), timeout=30)
    assert report.outcome is Outcome.APPROVED
    assert llm.calls == 17
    strong = {LayerID.HL4, LayerID.HL6, LayerID.HL7}
    for lid, result in report.layer_results.items():
        assert result.valid_runs == result.executed_runs == (3 if lid in strong else 2)
        assert result.planned_runs == 3
        assert result.agreement_ratio == 1.0
        assert not result.local_only
    assert report.cost.calls == 17
    assert report.cost.calls_planned == 21
    assert report.cost.saved_by_adaptive == 4


async def test_every_layer_runs_three_times_without_adaptive_redundancy(bus: Bus) -> None:
    llm = ScriptedLLM.from_lines([{"match": {}, **CLEAN}])
    async with engine_on(bus, llm=llm, adaptive_redundancy=False) as engine:
        report = await engine.submit(diff_action("01-clean-refactor.diff"), timeout=30)
    assert report.outcome is Outcome.APPROVED
    assert llm.calls == 21
    assert all(r.valid_runs == 3 for r in report.layer_results.values())
    assert report.cost.saved_by_adaptive == 0


async def test_invalid_llm_output_never_approves(bus: Bus) -> None:
    llm = ScriptedLLM.from_lines(
        [{"match": {}, **CLEAN}, {"match": {"layer": "HL2"}, "text": "Looks good to me!"}]
    )
    async with engine_on(bus, llm=llm) as engine:
        report = await engine.submit(diff_action("01-clean-refactor.diff"), timeout=30)
    assert report.outcome is Outcome.NEEDS_REVIEW
    hl2 = report.layer_results[LayerID.HL2]
    assert hl2.status is LayerStatus.ERROR
    assert any(reason.startswith("HL2") for reason in report.blocking_reasons)
    # each of the 3 runs: the reply, then 2 repairs
    # HL1, HL3, HL5 agree after two runs; HL4, HL6 run three; HL2's invalid runs do not agree,
    # so it runs three, each repaired twice; then HL7 runs three.
    assert llm.calls == 3 * 2 + 2 * 3 + 3 * 3 + 3


async def test_early_exit_publishes_before_slow_layers_and_cancels_their_calls(bus: Bus) -> None:
    critical = {
        "findings": [
            {
                "severity": "critical",
                "title": "Remote code execution",
                "file": "app/x.py",
                "line": 4,
            }
        ]
    }
    llm = ScriptedLLM.from_lines(
        [
            {"match": {}, **CLEAN, "delay_ms": 30_000},
            {"match": {"layer": "HL4"}, "json": critical},
        ]
    )
    async with engine_on(bus, llm=llm) as engine:
        with anyio.fail_after(10):
            report = await engine.submit(diff_action("01-clean-refactor.diff"), timeout=10)
        assert report.outcome is Outcome.REJECTED
        assert report.layer_results[LayerID.HL7].status is LayerStatus.SKIP
        slow_calls = 4 * 2 + 3  # runs 1-2 of HL1-3 and HL5, three of HL6; HL7 never starts
        with anyio.fail_after(5):
            while llm.cancelled < slow_calls:  # noqa: ASYNC110 - polling test state
                await anyio.sleep(0.01)
    assert llm.cancelled == slow_calls
    assert report.blocking_reasons[0].startswith("HL4 security: strong veto — Remote code")


async def test_a_layer_past_its_deadline_yields_needs_review(bus: Bus) -> None:
    llm = ScriptedLLM.from_lines(
        [{"match": {}, **CLEAN}, {"match": {"layer": "HL3"}, **CLEAN, "delay_ms": 30_000}]
    )
    async with engine_on(bus, llm=llm, layer_deadline_s=0.3) as engine:
        report = await engine.submit(diff_action("01-clean-refactor.diff"), timeout=10)
    assert report.outcome is Outcome.NEEDS_REVIEW
    assert report.layer_results[LayerID.HL3].status is LayerStatus.ERROR
    assert any(r.startswith("HL3") for r in report.blocking_reasons)


async def test_hl7_sees_the_merged_findings_of_hl1_to_hl6(bus: Bus) -> None:
    warn = {"findings": [{"severity": "low", "title": "Naming could be clearer"}]}
    llm = ScriptedLLM.from_lines(
        [{"match": {}, **CLEAN}, {"match": {"layer": "HL1"}, "json": warn}]
    )
    async with engine_on(bus, llm=llm) as engine:
        report = await engine.submit(diff_action("01-clean-refactor.diff"), timeout=30)
    assert report.outcome is Outcome.APPROVED
    hl7_prompts = [r for r in llm.requests if r.tags.get("layer") == "HL7"]
    assert len(hl7_prompts) == 3
    assert "Naming could be clearer" in hl7_prompts[0].system[-1].text
    assert all(
        "Naming could" not in r.system[-1].text for r in llm.requests if r not in hl7_prompts
    )


async def resolve_flow(
    bus: Bus, engine: Engine, resolution: dict[str, Any] | None
) -> tuple[HumanLayerReport, ReviewRequested, list[DeadLetter]]:
    """Submit an action that needs review; optionally publish a resolution; collect the rest."""
    medium = {"findings": [{"severity": "high", "title": "Unbounded retry loop"}]}
    assert isinstance(engine.llm, ScriptedLLM)
    engine.llm.add_lines([{"match": {"layer": "HL5"}, "json": medium}])
    s = engine.subjects
    action = diff_action("01-clean-refactor.diff")
    letters: list[DeadLetter] = []
    async with bus.subscribe(s.reviews_pending) as pending, bus.subscribe(s.dlq) as dlq:
        with anyio.fail_after(10):
            async with anyio.create_task_group() as tg:
                result: list[HumanLayerReport] = []

                async def submit() -> None:
                    result.append(await engine.submit(action, final=True, timeout=10))

                tg.start_soon(submit)
                request = decode((await pending.__anext__()).data, ReviewRequested)
                if resolution is not None:
                    for bad in ({**resolution, "action_hash": "0" * 64},):
                        await bus.publish(
                            s.review_resolve(request.action_id),
                            encode(ReviewResolution(action_id=request.action_id, **bad)),
                        )
                        letters.append(decode((await dlq.__anext__()).data, DeadLetter))
                    await bus.publish(
                        s.review_resolve(request.action_id),
                        encode(
                            ReviewResolution(
                                action_id=request.action_id,
                                action_hash=request.action_hash,
                                **{k: v for k, v in resolution.items() if k != "action_hash"},
                            )
                        ),
                    )
    return result[0], request, letters


async def test_needs_review_resolved_by_a_human_binds_to_the_action_hash(bus: Bus) -> None:
    llm = ScriptedLLM.from_lines([{"match": {}, **CLEAN}])
    async with engine_on(bus, llm=llm) as engine:
        final, request, letters = await resolve_flow(
            bus,
            engine,
            {
                "verdict": "approve",
                "reviewer": "alice",
                "reason": "Retry loop is bounded by caller",
            },
        )
        stored = await engine.report(request.action_id)
    assert request.blocking_reasons
    assert request.blocking_reasons[0].startswith("HL5")
    assert "action_hash" in letters[0].error
    assert final.outcome is Outcome.APPROVED
    assert final.resolved_by == "alice"
    assert final.report_id == request.report_id
    assert stored == final


async def test_needs_review_without_an_answer_is_rejected_at_the_deadline(bus: Bus) -> None:
    llm = ScriptedLLM.from_lines([{"match": {}, **CLEAN}])
    async with engine_on(bus, llm=llm, review_deadline_s=0.3) as engine:
        final, _, _ = await resolve_flow(bus, engine, None)
    assert final.outcome is Outcome.REJECTED
    assert final.resolved_by == "timeout"
    assert "review timed out" in final.blocking_reasons[-1]


async def test_oversized_and_mismatched_submissions_are_dead_lettered(bus: Bus) -> None:
    from humangr.contracts import ActionSubmitted

    async with engine_on(bus, max_diff_bytes=100) as engine:
        s = engine.subjects
        action = diff_action("01-clean-refactor.diff")
        async with bus.subscribe(s.dlq) as dlq:
            await bus.publish(
                s.agent_submit(action.agent_id),
                encode(ActionSubmitted(action_id="big", action=action)),
            )
            letter = decode((await dlq.__anext__()).data, DeadLetter)
            assert "the limit is 100" in letter.error
            small = ActionContext(agent_id="a", action_type="t", action_description="d")
            wrong = ActionSubmitted(action_id="w", action=small, action_hash="f" * 64)
            await bus.publish(s.agent_submit("a"), encode(wrong))
            letter = decode((await dlq.__anext__()).data, DeadLetter)
            assert "action_hash does not match" in letter.error


async def test_report_lookup_of_an_unknown_id_is_a_clear_error(bus: Bus) -> None:
    async with engine_on(bus) as engine:
        with pytest.raises(EngineError, match="no report"):
            await engine.report("nope")


async def test_selected_layers_only(bus: Bus) -> None:
    async with engine_on(bus, layers=(LayerID.HL4, LayerID.HL6), partial=True) as engine:
        report = await engine.submit(diff_action("01-clean-refactor.diff"), timeout=30)
    assert set(report.layer_results) == {LayerID.HL4, LayerID.HL6}
    assert report.outcome is Outcome.APPROVED
