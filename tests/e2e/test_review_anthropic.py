"""A whole review through the real anthropic SDK, talking to a local Messages API server."""

from __future__ import annotations

import json

import pytest

from humangr.actors.roles import run_engine
from humangr.contracts import ActionContext, LayerID, Outcome, Usage, VetoLevel
from humangr.engine.config import ReviewConfig
from humangr.engine.llm import AnthropicLLM
from humangr.standins.messages_api import (
    ApiError,
    FakeAnthropic,
    FakeUsage,
    Latency,
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

    config = ReviewConfig(layers=(LayerID.HL2, LayerID.HL4), partial=True)
    async with FakeAnthropic(api_key=KEY, responder=respond) as fake:
        llm = AnthropicLLM(api_key=KEY, base_url=fake.url, model="claude-test")
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


WARM_MODEL = "claude-sonnet-4-6"
BLOCKING = ActionContext(
    agent_id="agent-1",
    action_type="code_diff",
    action_description="poll without sleeping in the event loop",
    code_diff=(
        "--- a/app/worker.py\n+++ b/app/worker.py\n@@ -1,5 +1,5 @@\n import time\n \n \n"
        " async def poll() -> None:\n-    await asyncio.sleep(1)\n+    time.sleep(1)\n"
    ),
)


def layer_of(request: RecordedRequest) -> str:
    text = request.json()["system"][2]["text"]
    assert text.startswith("# Your layer: ")
    return str(text[len("# Your layer: ") :].split(",", 1)[0])


async def test_a_review_warms_the_prompt_cache_once_and_the_other_calls_read_it() -> None:
    async with FakeAnthropic(
        api_key=KEY, default=ToolUse(CLEAN), model=WARM_MODEL, latency=Latency(0.05, 0.2)
    ) as fake:
        llm = AnthropicLLM(api_key=KEY, base_url=fake.url, model=WARM_MODEL)
        async with llm, run_engine(llm=llm, config=ReviewConfig()) as engine:
            report = await engine.submit(ACTION, timeout=60)
        requests = sorted(fake.requests, key=lambda r: r.received_at)

    assert report.outcome is Outcome.APPROVED
    assert report.usage.calls == len(requests)
    first, *rest = requests
    assert first.streamed, "one warm-up call per action"
    assert not any(r.streamed for r in rest)
    assert first.began_at is not None
    assert all(r.received_at >= first.began_at for r in rest)
    fed = report.usage.input_tokens + report.usage.cache_read_tokens
    fed += report.usage.cache_write_tokens
    assert report.usage.cache_read_tokens / fed > 0.7
    assert {layer_of(r) for r in requests} == {lid.value for lid in LayerID}


async def test_rule_findings_reach_their_layer_s_prompt_after_the_shared_prefix() -> None:
    async with FakeAnthropic(api_key=KEY, default=ToolUse(CLEAN), model=WARM_MODEL) as fake:
        llm = AnthropicLLM(api_key=KEY, base_url=fake.url, model=WARM_MODEL)
        async with llm, run_engine(llm=llm, config=ReviewConfig()) as engine:
            await engine.submit(BLOCKING, timeout=60)
        bodies = [(layer_of(r), r.json()) for r in fake.requests]

    hl5 = [body for layer, body in bodies if layer == "HL5"]
    assert hl5
    for body in hl5:
        extra = body["system"][3]
        assert "cache_control" not in extra
        assert "Blocking call time.sleep() inside async code" in extra["text"]
        assert '"file":"app/worker.py","line":5' in extra["text"]
    others = [body for layer, body in bodies if layer != "HL5"]
    assert others
    assert all(len(body["system"]) == 3 for body in others)
    prefixes = {json.dumps(body["system"][:2]) for _, body in bodies}
    assert len(prefixes) == 1, "the shared prefix is the same with and without rule findings"
    assert "Blocking call" not in prefixes.pop()


AWS_KEY = ActionContext(
    agent_id="agent-1",
    action_type="code_diff",
    action_description="configure the deploy credentials",
    code_diff=(
        "--- /dev/null\n+++ b/app/deploy.py\n@@ -0,0 +1,2 @@\n"
        '+AWS_ACCESS_KEY_ID = "AKIAZ7VQ3KDLM5TRX4PB"\n'
        '+AWS_SECRET_ACCESS_KEY = "q8Jt3/Lmx0Vd7Rk2Wn9PbZs4Yc6Hf1Ge5Ua0TiQo"\n'
    ),
)


async def test_what_the_rules_settle_sends_no_request_to_the_api() -> None:
    async with FakeAnthropic(api_key=KEY, default=ToolUse(CLEAN), model=WARM_MODEL) as fake:
        llm = AnthropicLLM(api_key=KEY, base_url=fake.url, model=WARM_MODEL)
        async with llm, run_engine(llm=llm, config=ReviewConfig()) as engine:
            report = await engine.submit(AWS_KEY, timeout=60)
            clean = await engine.submit(ACTION, timeout=60)
        received = list(fake.requests)

    assert report.outcome is Outcome.REJECTED
    assert report.usage.calls == 0
    assert report.cost.calls == 0
    assert report.cost.saved_by_rules == report.cost.calls_planned > 0
    assert any("settled by local checks" in note for note in report.policy_notes)
    assert report.layer_results[LayerID.HL4].veto_level is VetoLevel.STRONG
    assert clean.outcome is Outcome.APPROVED
    assert len(received) == clean.usage.calls > 0, "only the clean action reached the API"


@pytest.mark.parametrize("agree", [True, False])
async def test_adaptive_runs_apply_below_strong_power_only(agree: bool) -> None:
    seen: dict[str, int] = {}

    def respond(request: RecordedRequest) -> ToolUse:
        layer = layer_of(request)
        seen[layer] = seen.get(layer, 0) + 1
        if not agree and layer == "HL1" and seen[layer] == 2:
            finding = {
                "severity": "high",
                "title": "the renamed function breaks every caller of f",
                "file": "app/x.py",
                "line": 1,
            }
            return ToolUse({"findings": [finding], "summary": "callers break"})
        return ToolUse(CLEAN)

    async with FakeAnthropic(api_key=KEY, responder=respond, model=WARM_MODEL) as fake:
        llm = AnthropicLLM(api_key=KEY, base_url=fake.url, model=WARM_MODEL)
        async with llm, run_engine(llm=llm, config=ReviewConfig()) as engine:
            report = await engine.submit(ACTION, timeout=60)
        received = len(fake.requests)

    strong = {"HL4": 3, "HL6": 3, "HL7": 3}
    below = {"HL1": 2, "HL2": 2, "HL3": 2, "HL5": 2}
    if not agree:
        below["HL1"] = 3
    assert seen == {**below, **strong}
    assert received == sum(seen.values()) == report.cost.calls
    assert report.cost.calls_planned == 21
    assert report.cost.saved_by_adaptive == 21 - report.cost.calls
    for lid in LayerID:
        assert report.layer_results[lid].valid_runs == seen[lid.value]
    assert report.cost.estimated_usd > 0
    assert not report.cost.unpriced_models
