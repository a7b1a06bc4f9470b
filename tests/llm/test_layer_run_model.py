"""Every LLM run records the model that answered (``LayerRunResult.model``, for the cost)."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from humangr.contracts import ActionContext, LayerID, LayerRunResult, LayerStatus
from humangr.engine.layer_run import llm_layer_run
from humangr.engine.llm import AnthropicLLM, LLMClient, ScriptedLLM
from humangr.standins.messages_api import ApiError, FakeAnthropic, ToolUse

pytestmark = pytest.mark.anyio

KEY = "sk-ant-test-model"
ACTION = ActionContext(agent_id="a", action_type="api_call", action_description="GET /health")
CLEAN = {"findings": [], "summary": "fine"}
INVALID = {"findings": "none"}


@pytest.fixture
async def fake() -> AsyncIterator[FakeAnthropic]:
    async with FakeAnthropic(api_key=KEY, model="claude-sonnet-4-6-20260101") as server:
        yield server


async def run(llm: LLMClient, max_repairs: int = 2) -> LayerRunResult:
    return await llm_layer_run(
        llm, LayerID.HL2, ACTION, 1, tags={"action_id": "A1"}, max_repairs=max_repairs
    )


async def test_the_model_of_the_reply_not_the_one_asked_for(fake: FakeAnthropic) -> None:
    fake.script(ToolUse(CLEAN))
    async with AnthropicLLM(api_key=KEY, base_url=fake.url, model="claude-sonnet-4-6") as llm:
        result = await run(llm)
    assert result.status is LayerStatus.PASS
    assert result.model == "claude-sonnet-4-6-20260101"


async def test_a_repaired_run_records_the_model_of_its_last_reply(fake: FakeAnthropic) -> None:
    fake.script(ToolUse(INVALID, model="claude-first"), ToolUse(CLEAN, model="claude-second"))
    async with AnthropicLLM(api_key=KEY, base_url=fake.url, model="claude-sonnet-4-6") as llm:
        result = await run(llm)
    assert result.repairs == 1
    assert result.model == "claude-second"


async def test_a_run_still_invalid_records_the_model_that_answered(fake: FakeAnthropic) -> None:
    fake.script(ToolUse(INVALID, model="claude-confused"))
    async with AnthropicLLM(api_key=KEY, base_url=fake.url, model="claude-sonnet-4-6") as llm:
        result = await run(llm, max_repairs=1)
    assert result.status is LayerStatus.ERROR
    assert result.model == "claude-confused"
    assert result.usage.calls == 2


async def test_a_failed_call_has_no_model(fake: FakeAnthropic) -> None:
    fake.script(ApiError(400, "invalid_request_error", "no"))
    async with AnthropicLLM(api_key=KEY, base_url=fake.url, model="claude-sonnet-4-6") as llm:
        result = await run(llm)
    assert result.status is LayerStatus.ERROR
    assert result.model == ""


async def test_a_scripted_run_says_so() -> None:
    llm = ScriptedLLM.from_lines([{"match": {}, "json": CLEAN}])
    result = await run(llm)
    assert result.model == "scripted"
