"""The Enforcer over AnthropicLLM and the local fake Messages API: transport retries happen
once (in the client, never again in the enforcer), prose beside the tool call is refused."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator

import pytest
from enforcer_helpers import envelope, fake_assets, good

from humangr.contracts import ResponseEnvelope, ResponseStatus
from humangr.engine.enforcer import Enforcer
from humangr.engine.llm import AnthropicLLM, tool_name_for
from humangr.engine.metrics import Metrics
from humangr.standins.messages_api import ApiError, FakeAnthropic, Raw, ToolUse

pytestmark = pytest.mark.anyio

KEY = "sk-ant-test-enforcer"


@pytest.fixture
async def fake() -> AsyncIterator[FakeAnthropic]:
    async with FakeAnthropic(api_key=KEY) as server:
        yield server


def client(fake: FakeAnthropic, metrics: Metrics) -> AnthropicLLM:
    return AnthropicLLM(
        api_key=KEY,
        base_url=fake.url,
        model="claude-test",
        max_retries=2,
        metrics=metrics,
    )


def retries(metrics: Metrics, reason: str) -> float:
    return metrics.registry.get_sample_value("humangr_retries_total", {"reason": reason}) or 0.0


async def test_an_overload_is_retried_by_the_client_and_the_call_passes(
    fake: FakeAnthropic,
) -> None:
    metrics = Metrics()
    fake.script(ApiError.overloaded(retry_after=0), ToolUse(good("qa", "validate_task")))
    async with client(fake, metrics) as llm:
        enforcer = Enforcer(llm, metrics=metrics, assets=fake_assets)
        result = (await enforcer.run(envelope("qa", "validate_task"))).result
    assert result.validator_pass
    assert result.attempts == 1
    assert len(fake.requests) == 2
    assert retries(metrics, "overloaded") == 1
    sent = fake.requests[-1].json()
    assert sent["tool_choice"]["name"] == tool_name_for(ResponseEnvelope)
    assert sent["system"][0]["cache_control"] == {"type": "ephemeral"}


async def test_a_persistent_overload_is_tried_three_times_in_all_then_blocked(
    fake: FakeAnthropic,
) -> None:
    metrics = Metrics()
    fake.script(ApiError.overloaded(retry_after=0))
    async with client(fake, metrics) as llm:
        enforcer = Enforcer(llm, metrics=metrics, assets=fake_assets)
        result = (await enforcer.run(envelope("qa", "validate_task"))).result
    assert not result.validator_pass
    assert result.envelope.status is ResponseStatus.BLOCKED
    assert len(fake.requests) == 3
    assert retries(metrics, "overloaded") == 2
    assert "529" in result.validation_errors[0]


async def test_prose_beside_the_tool_call_is_refused_then_repaired(fake: FakeAnthropic) -> None:
    metrics = Metrics()
    chatty = {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "model": "claude-fake-1",
        "content": [
            {"type": "text", "text": "Sure, here is the envelope."},
            {
                "type": "tool_use",
                "id": "toolu_1",
                "name": tool_name_for(ResponseEnvelope),
                "input": good("qa", "validate_task"),
            },
        ],
        "stop_reason": "tool_use",
        "stop_sequence": None,
        "usage": {"input_tokens": 5, "output_tokens": 5},
    }
    fake.script(Raw(json.dumps(chatty).encode()), ToolUse(good("qa", "validate_task")))
    async with client(fake, metrics) as llm:
        enforcer = Enforcer(llm, metrics=metrics, assets=fake_assets)
        result = (await enforcer.run(envelope("qa", "validate_task"))).result
    assert result.validator_pass
    assert result.repairs == 1
    assert (
        metrics.registry.get_sample_value(
            "humangr_envelope_rejections_total", {"agent": "qa", "gate": "json"}
        )
        == 1
    )
    repair = fake.requests[-1].json()["messages"][-1]["content"]
    assert "Return only the JSON object" in repair
