"""Issue 25: the runs of one layer task share one rendering of the request (``layer_request``);
each run's request must be the one it got when it rendered its own: the same prompt, the same
tags in the same order, its own run number — for HL7 with prior findings and a layer with
local-check findings too."""

from __future__ import annotations

import pytest

from humangr.contracts import (
    ActionContext,
    Finding,
    FindingSource,
    LayerID,
    LayerStatus,
    LayerVerdict,
    Severity,
)
from humangr.engine.layer_run import layer_request, llm_layer_run
from humangr.engine.llm import ScriptedLLM, render_layer_request

pytestmark = pytest.mark.anyio

ACTION = ActionContext(agent_id="a", action_type="api_call", action_description="GET /health")
FOUND = Finding(
    id="f-1",
    layer_id=LayerID.HL7,
    severity=Severity.MEDIUM,
    title="a token in the URL",
    source=FindingSource.RULES,
)


@pytest.mark.parametrize("layer", [LayerID.HL2, LayerID.HL7])
async def test_a_shared_rendering_gives_each_run_the_request_it_rendered_alone(
    layer: LayerID,
) -> None:
    llm = ScriptedLLM.from_lines([{"match": {}, "json": {"findings": [], "summary": "ok"}}])
    tags = {"action_id": "A1", "run": "stale"}  # a caller's own "run" tag is overwritten
    shared = layer_request(layer, ACTION, prior_findings=[FOUND], rule_findings=[FOUND], tags=tags)
    for number in (1, 2, 3):
        result = await llm_layer_run(
            llm,
            layer,
            ACTION,
            number,
            prior_findings=[FOUND],
            rule_findings=[FOUND],
            tags=tags,
            request=shared,
        )
        assert result.status is LayerStatus.PASS
        alone = render_layer_request(
            layer,
            ACTION,
            prior_findings=[FOUND],
            rule_findings=[FOUND],
            schema=LayerVerdict,
            tags={**tags, "layer": layer.value, "run": str(number)},
        )
        sent = llm.requests[-1]
        assert sent == alone
        assert list(sent.tags.items()) == list(alone.tags.items())
        assert sent.tags["run"] == str(number)
    assert shared.tags == {"action_id": "A1", "run": "stale", "layer": layer.value}, (
        "the shared rendering itself is left as it was"
    )


async def test_without_a_shared_rendering_a_run_renders_its_own() -> None:
    llm = ScriptedLLM.from_lines([{"match": {}, "json": {"findings": [], "summary": "ok"}}])
    await llm_layer_run(llm, LayerID.HL3, ACTION, 2, tags={"action_id": "A2"})
    assert llm.requests[-1].tags == {"action_id": "A2", "layer": "HL3", "run": "2"}
