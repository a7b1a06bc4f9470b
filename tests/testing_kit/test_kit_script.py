"""The scripting vocabulary says what each layer answers, and the real gate decides."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from humangr.contracts import LayerID, LayerStatus, Outcome, VetoLevel
from humangr.engine.errors import ConfigError
from humangr.testing import (
    HumangrTestEngine,
    clean,
    finding,
    findings,
    humangr,
    llm_error,
    unparseable,
)

pytestmark = pytest.mark.anyio


@pytest.fixture
async def kit() -> AsyncIterator[HumangrTestEngine]:
    async with humangr() as engine:
        yield engine


async def test_two_medium_vetoes_reject(kit: HumangrTestEngine) -> None:
    kit.needs_review("HL2", "Off by one")
    kit.needs_review("HL3", "Empty list crashes")

    decision = await kit.submit(action_description="paginate")

    assert decision.outcome is Outcome.REJECTED
    assert [r.split(":")[0] for r in decision.blocking_reasons] == [
        "HL2 functionality",
        "HL3 edge cases",
    ]


async def test_a_high_finding_on_a_strong_layer_is_only_a_medium_veto(
    kit: HumangrTestEngine,
) -> None:
    kit.script("HL4", finding("high", "Weak hash"))

    decision = await kit.submit(action_description="hash passwords")

    assert decision.outcome is Outcome.NEEDS_REVIEW
    assert decision.layer_results[LayerID.HL4].veto_level is VetoLevel.MEDIUM


async def test_a_more_specific_rule_wins_and_a_lone_strong_run_still_reaches_a_human(
    kit: HumangrTestEngine,
) -> None:
    kit.script("HL6", [finding("low", "Licence header missing")])
    kit.script("HL6", finding("critical", "Exports user emails"), run=2)

    decision = await kit.submit(action_description="export users")

    hl6 = decision.layer_results[LayerID.HL6]
    assert decision.outcome is Outcome.NEEDS_REVIEW
    assert hl6.dissent
    assert hl6.veto_level is VetoLevel.MEDIUM
    titles = {f.title for f in hl6.merged_findings}
    assert titles == {"Licence header missing", "Exports user emails"}


async def test_unparseable_output_and_llm_outages_never_approve(kit: HumangrTestEngine) -> None:
    kit.script("HL1", unparseable())
    kit.script("HL5", llm_error("overloaded"))

    decision = await kit.submit(action_description="anything")

    assert decision.outcome is Outcome.NEEDS_REVIEW
    assert decision.layer_results[LayerID.HL1].status is LayerStatus.ERROR
    assert decision.layer_results[LayerID.HL5].status is LayerStatus.ERROR


async def test_rules_replace_each_other_and_approve_all_forgets_them(
    kit: HumangrTestEngine,
) -> None:
    kit.reject("HL7", "Final reviewer says no")
    kit.script("HL7", findings(finding("info", "Nice"), summary="fine"))
    first = await kit.submit(action_description="one")
    kit.script(None, finding("critical", "Everything is on fire"))
    second = await kit.submit(action_description="two")
    kit.approve_all()
    third = await kit.submit(action_description="three")

    assert [d.outcome for d in (first, second, third)] == [
        Outcome.APPROVED,
        Outcome.REJECTED,
        Outcome.APPROVED,
    ]


async def test_raw_script_lines_give_sequences(kit: HumangrTestEngine) -> None:
    kit.script_lines(
        [
            {"match": {"layer": "HL2", "repair": "1"}, "json": {"findings": []}},
            {"match": {"layer": "HL2"}, "text": "not json"},
        ]
    )

    decision = await kit.submit(action_description="repaired")

    assert decision.outcome is Outcome.APPROVED
    assert decision.layer_results[LayerID.HL2].valid_runs == 2
    assert kit.llm is not None
    assert sum(r.tags.get("layer") == "HL2" for r in kit.llm.requests) == 4


async def test_the_vocabulary_refuses_what_the_gate_cannot_do() -> None:
    async with humangr(layers=["HL2", "HL4"]) as kit:
        with pytest.raises(ConfigError, match="HL2's veto power is medium: it cannot reject"):
            kit.reject("HL2")
        with pytest.raises(ConfigError, match="HL6 does not run in this engine"):
            kit.reject("HL6")
        with pytest.raises(ConfigError, match="unknown layer 'HL9'"):
            kit.script("HL9", clean())
        with pytest.raises(ConfigError, match="not a valid layer verdict"):
            kit.script("HL4", {"severity": "catastrophic", "title": "x"})
        with pytest.raises(ConfigError, match="not a valid layer verdict"):
            finding("high", "")
    async with humangr(layers=["HL1"]) as kit:
        with pytest.raises(ConfigError, match="HL1's veto power is weak: it cannot ask"):
            kit.needs_review("HL1")


async def test_local_checks_only() -> None:
    async with humangr(llm=None, layers=["HL4"]) as kit:
        with pytest.raises(ConfigError, match="no scripted LLM"):
            kit.approve_all()
        decision = await kit.submit(
            code_diff='+++ b/app/k.py\n@@ -0,0 +1 @@\n+KEY = "AKIAZ7VQ3KDLM5TRX2PB"\n',
        )

    assert decision.outcome is Outcome.REJECTED
    assert decision.layer_results[LayerID.HL4].local_only
