"""A whole review through the real anthropic SDK, talking to a local Messages API server."""

from __future__ import annotations

import json

import pytest

from humangr.contracts import ActionContext, LayerID, Outcome, Usage
from humangr.engine.config import ReviewConfig
from humangr.engine.llm import AnthropicLLM
from humangr.engine.runtime import run_engine
from humangr.engine.testing.fake_anthropic import (
    ApiError,
    FakeAnthropic,
    FakeUsage,
    RecordedRequest,
    ToolUse,
)

pytestmark = pytest.mark.anyio

KEY = "sk-ant-test-0123456789"
CLEAN = {"findings": [], "summary": "nothing to report"}
ACTION = ActionContext(
    agent_id="agent-1",
    action_type="code_diff",
    action_description="rename a helper",
    code_diff="--- a/app/x.py\n+++ b/app/x.py\n@@ -1 +1 @@\n-def f(): pass\n+def g(): pass\n",
)


async def test_review_over_the_sdk_retries_uses_tool_json_and_reports_cache_usage() -> None:
    calls = {"n": 0}

    def respond(request: RecordedRequest) -> ToolUse | ApiError:
        calls["n"] += 1
        if calls["n"] == 1:
            return ApiError.rate_limited(retry_after=0)
        if calls["n"] == 2:
            return ApiError.overloaded(retry_after=0)
        usage = FakeUsage(1000, 50, cache_creation_input_tokens=0, cache_read_input_tokens=800)
        return ToolUse(CLEAN, usage=usage)

    config = ReviewConfig(layers=(LayerID.HL2, LayerID.HL4))
    async with FakeAnthropic(api_key=KEY, responder=respond) as fake:
        llm = AnthropicLLM(api_key=KEY, base_url=fake.url, model="claude-test", base_delay=0.001)
        async with llm, run_engine(llm=llm, config=config) as engine:
            report = await engine.submit(ACTION, timeout=30)
        bodies = [r.json() for r in fake.requests]

    assert report.outcome is Outcome.APPROVED
    runs = 2 + 3  # HL2 (medium power): runs 1 and 2 agree; HL4 (strong) always runs three
    assert calls["n"] == runs + 2, "the runs plus the 429 and the 529 that were retried"
    assert report.usage == Usage(
        input_tokens=1000 * runs, output_tokens=50 * runs, cache_read_tokens=800 * runs, calls=runs
    )
    assert all(body["tool_choice"]["type"] == "tool" for body in bodies)
    assert report.layer_results[LayerID.HL2].valid_runs == 2
    assert report.layer_results[LayerID.HL4].valid_runs == 3
    assert report.cost.calls == runs
    assert report.cost.saved_by_adaptive == 1
    shared = {json.dumps(body["system"][:-1]) for body in bodies}
    assert len(shared) == 1, "every call of one review shares one cacheable prefix"
