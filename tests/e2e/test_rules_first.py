"""Issue 12, rules first: when the local checks settle the outcome, the decision is published
with no LLM call and no layer task; otherwise their findings travel with the layer tasks."""

from __future__ import annotations

from contextlib import AbstractAsyncContextManager

import pytest
from e2e_helpers import CLEAN, diff_action, engine_on, swallowed_action

from humangr.actors.roles import Engine
from humangr.contracts import LayerID, LayerTask, Outcome
from humangr.engine.bus import Bus
from humangr.engine.llm import ScriptedLLM
from humangr.testing.watch import layer_tasks

pytestmark = pytest.mark.anyio

SETTLED = "settled by local checks: no LLM call was needed"


def tasks_of(bus: Bus, engine: Engine) -> AbstractAsyncContextManager[list[LayerTask]]:
    """Every layer task the Supervisor sends while the block runs, by bus or in process."""
    return layer_tasks(bus, engine.subjects, engine=engine)


@pytest.mark.parametrize(
    ("example", "why"),
    [
        ("02-hardcoded-key-and-shell.diff", "a strong veto (HL4: AWS key)"),
        ("04-blocking-call-in-async.diff", "two mediums (HL3 and HL5)"),
    ],
)
async def test_what_the_rules_reject_costs_no_llm_call(bus: Bus, example: str, why: str) -> None:
    llm = ScriptedLLM.from_lines([{"match": {}, **CLEAN}])
    async with engine_on(bus, llm=llm) as engine, tasks_of(bus, engine) as tasks:
        report = await engine.submit(diff_action(example), timeout=30)
    assert report.outcome is Outcome.REJECTED, why
    assert llm.calls == 0
    assert tasks == [], "no layer task was sent"
    assert report.policy_notes[0] == SETTLED
    assert report.cost.calls == 0
    assert report.cost.calls_planned == 21
    assert report.cost.saved_by_rules == 21
    assert all(r.local_only for r in report.layer_results.values())


async def test_findings_that_do_not_settle_travel_with_the_layer_tasks(bus: Bus) -> None:
    llm = ScriptedLLM.from_lines([{"match": {}, **CLEAN}])
    async with engine_on(bus, llm=llm) as engine, tasks_of(bus, engine) as tasks:
        report = await engine.submit(swallowed_action(), timeout=30)
    assert report.outcome is Outcome.NEEDS_REVIEW
    assert SETTLED not in report.policy_notes
    assert llm.calls == 17
    by_layer = {task.layer_id: task for task in tasks}
    assert set(by_layer) == set(LayerID)
    assert [f.title for f in by_layer[LayerID.HL3].rule_findings] == [
        f.title for f in report.layer_results[LayerID.HL3].merged_findings
    ]
    assert by_layer[LayerID.HL3].rule_findings
    assert all(not by_layer[lid].rule_findings for lid in LayerID if lid is not LayerID.HL3)


async def test_without_an_llm_the_supervisor_decides_from_the_rules_alone(bus: Bus) -> None:
    async with engine_on(bus) as engine, tasks_of(bus, engine) as tasks:
        clean = await engine.submit(diff_action("01-clean-refactor.diff"), timeout=30)
    assert clean.outcome is Outcome.APPROVED
    assert tasks == []
    assert SETTLED not in clean.policy_notes, "local checks only is the policy, not a shortcut"
    assert clean.cost.calls_planned == 0
