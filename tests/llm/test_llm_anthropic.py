"""AnthropicLLM drives the real anthropic SDK against the local fake Messages API."""

from __future__ import annotations

import itertools
import json
import logging
from collections.abc import AsyncIterator

import anyio
import pytest
from prometheus_client import CollectorRegistry

from humangr.contracts import ActionContext, LayerID, LayerVerdict, Severity, Usage
from humangr.engine.errors import ConfigError, LLMError
from humangr.engine.llm import (
    AnthropicLLM,
    LLMReplyInvalid,
    LLMRequest,
    LLMTransportError,
    Message,
    SystemBlock,
    complete_structured,
    render_layer_request,
    tool_input_schema,
    tool_name_for,
)
from humangr.engine.metrics import Metrics
from humangr.standins.messages_api import (
    ApiError,
    FakeAnthropic,
    FakeUsage,
    Raw,
    Slow,
    Text,
    ToolUse,
)
from humangr.standins.nats_server import free_port

KEY = "sk-ant-test-0123456789-secret"
VERDICT = {
    "findings": [
        {"severity": "critical", "title": "Hard-coded AWS key", "file": "app/config.py", "line": 3}
    ],
    "summary": "secret",
}
ACTION = ActionContext(
    agent_id="dev-1",
    action_type="code_change",
    action_description="Add the S3 uploader.",
    code_diff="--- a/app/config.py\n+++ b/app/config.py\n@@ -0,0 +1,1 @@\n+KEY = 'AKIA...'\n",
    affected_files=["app/config.py"],
)


@pytest.fixture
async def fake() -> AsyncIterator[FakeAnthropic]:
    async with FakeAnthropic(api_key=KEY) as server:
        yield server


@pytest.fixture
def metrics() -> Metrics:
    return Metrics(CollectorRegistry())


def sample(metrics: Metrics, name: str, **labels: str) -> float:
    value = metrics.registry.get_sample_value(name, labels)
    return 0.0 if value is None else value


def client(fake: FakeAnthropic, **kwargs: object) -> AnthropicLLM:
    options: dict[str, object] = {
        "api_key": KEY,
        "base_url": fake.url,
        "model": "claude-test",
    }
    options.update(kwargs)
    return AnthropicLLM(**options)  # type: ignore[arg-type]


def gaps(fake: FakeAnthropic) -> list[float]:
    """Seconds between the requests the stand-in received, in order."""
    times = sorted(r.received_at for r in fake.requests)
    return [later - earlier for earlier, later in itertools.pairwise(times)]


def layer_request() -> LLMRequest:
    return render_layer_request(LayerID.HL4, ACTION, tags={"action_id": "A1"})


@pytest.mark.anyio
async def test_tool_call_json_is_decoded_and_usage_recorded(
    fake: FakeAnthropic, metrics: Metrics
) -> None:
    fake.script(
        ToolUse(
            VERDICT,
            usage=FakeUsage(1200, 80, cache_creation_input_tokens=900, cache_read_input_tokens=300),
        )
    )
    async with client(fake, metrics=metrics) as llm:
        reply = await llm.complete(layer_request())

    assert isinstance(reply.data, LayerVerdict)
    assert reply.data.findings[0].severity is Severity.CRITICAL
    assert reply.data.findings[0].line == 3
    assert json.loads(reply.raw) == VERDICT
    assert reply.usage == Usage(
        input_tokens=1200, output_tokens=80, cache_read_tokens=300, cache_write_tokens=900, calls=1
    )
    assert reply.stop_reason == "tool_use"
    assert reply.model == "claude-fake-1"
    assert sample(metrics, "humangr_llm_calls_total", outcome="ok") == 1
    assert sample(metrics, "humangr_llm_tokens_total", kind="cache_read") == 300
    assert sample(metrics, "humangr_llm_tokens_total", kind="cache_write") == 900


@pytest.mark.anyio
async def test_request_layout_forced_tool_and_cache_breakpoint(fake: FakeAnthropic) -> None:
    fake.script(ToolUse(VERDICT))
    request = layer_request()
    async with client(fake) as llm:
        await llm.complete(request)

    (sent,) = fake.requests
    body = sent.json()
    assert sent.headers["authorization"] == f"Bearer {KEY}"
    assert body["model"] == "claude-test"
    name = tool_name_for(LayerVerdict)
    assert body["tool_choice"] == {"type": "tool", "name": name, "disable_parallel_tool_use": True}
    (tool,) = body["tools"]
    assert tool["name"] == name
    assert tool["input_schema"] == tool_input_schema(LayerVerdict)
    assert tool["input_schema"]["type"] == "object"
    assert "$ref" not in json.dumps(tool["input_schema"])
    system = body["system"]
    assert [block["text"] for block in system] == [block.text for block in request.system]
    assert [("cache_control" in block) for block in system] == [True, True, False]
    assert system[1]["cache_control"] == {"type": "ephemeral"}
    assert "+KEY = 'AKIA...'" in system[1]["text"]
    assert body["messages"] == [{"role": "user", "content": request.messages[0].content}]
    assert "temperature" not in body


@pytest.mark.anyio
async def test_plain_text_request_has_no_tools_and_sends_temperature(fake: FakeAnthropic) -> None:
    fake.script(Text("hello"))
    request = LLMRequest(
        system=(SystemBlock("be brief"),),
        messages=(Message("user", "hi"),),
        temperature=0.2,
        max_tokens=50,
    )
    async with client(fake) as llm:
        reply = await llm.complete(request)
    assert reply.text == "hello"
    assert reply.data is None
    body = fake.requests[0].json()
    assert "tools" not in body
    assert "tool_choice" not in body
    assert body["temperature"] == 0.2
    assert body["max_tokens"] == 50


@pytest.mark.anyio
@pytest.mark.parametrize(
    ("error", "expected"),
    [
        (ApiError.rate_limited(retry_after=0.02), 0.02),
        (ApiError.rate_limited(retry_after_ms=15), 0.015),
        (ApiError.overloaded(retry_after=0.01), 0.01),
    ],
)
async def test_retry_after_is_honoured(
    fake: FakeAnthropic, metrics: Metrics, error: ApiError, expected: float
) -> None:
    fake.script(error, ToolUse(VERDICT))
    async with client(fake, metrics=metrics) as llm:
        reply = await llm.complete(layer_request())

    assert isinstance(reply.data, LayerVerdict)
    assert len(fake.requests) == 2
    # The SDK waited what the server asked, not its own backoff (0.375 s at least).
    assert expected * 0.9 <= gaps(fake)[0] < 0.3
    reason = "rate_limited" if error.status == 429 else "overloaded"
    assert sample(metrics, "humangr_retries_total", reason=reason) == 1


@pytest.mark.anyio
async def test_overloaded_without_retry_after_backs_off_then_succeeds(
    fake: FakeAnthropic, metrics: Metrics
) -> None:
    fake.script(ApiError.overloaded(), ApiError.overloaded(), ToolUse(VERDICT))
    async with client(fake, metrics=metrics) as llm:
        await llm.complete(layer_request())
    assert len(fake.requests) == 3
    first, second = gaps(fake)
    # The SDK's backoff: 0.5 s then 1 s, each shortened by up to a quarter.
    assert 0.35 <= first < 0.75
    assert 0.7 <= second < 1.5
    assert sample(metrics, "humangr_retries_total", reason="overloaded") == 2


@pytest.mark.anyio
@pytest.mark.parametrize(
    ("error", "asked"),
    [
        (ApiError.rate_limited(retry_after=3600), "3600s"),
        (ApiError.rate_limited(retry_after=float("inf")), "infs"),
        (ApiError.rate_limited(retry_after_ms=9e9), "9e+06s"),
    ],
)
async def test_a_retry_after_beyond_the_cap_is_refused_at_once(
    fake: FakeAnthropic, metrics: Metrics, error: ApiError, asked: str
) -> None:
    # A server (or a proxy in front of it) asking for an hour, or for ever, must not hold a
    # decision up: the SDK alone would sleep up to ~50 days.
    fake.script(error, ToolUse(VERDICT))
    async with client(fake, metrics=metrics, max_retry_after=5.0) as llm:
        with anyio.fail_after(3), pytest.raises(LLMTransportError) as caught:
            await llm.complete(layer_request())
    assert len(fake.requests) == 1
    assert caught.value.status == 429
    assert caught.value.reason == "rate_limited"
    assert caught.value.attempts == 1
    assert f"asked to wait {asked}" in str(caught.value)
    assert "max_retry_after" in str(caught.value)
    assert sample(metrics, "humangr_retries_total", reason="rate_limited") == 0
    assert sample(metrics, "humangr_llm_calls_total", outcome="error") == 1


@pytest.mark.anyio
async def test_a_retry_after_within_the_cap_on_the_last_attempt_is_the_plain_error(
    fake: FakeAnthropic,
) -> None:
    fake.script(ApiError.rate_limited(retry_after=3600))
    async with client(fake, max_retries=0, max_retry_after=5.0) as llm:
        with pytest.raises(LLMTransportError) as caught:
            await llm.complete(layer_request())
    assert len(fake.requests) == 1
    assert "rate limited" in str(caught.value)
    assert "max_retry_after" not in str(caught.value)


@pytest.mark.anyio
async def test_the_sdk_retries_and_says_which_retry_each_request_is(
    fake: FakeAnthropic, metrics: Metrics
) -> None:
    fake.script(ApiError.server_error(), ApiError.overloaded(retry_after=0.01), ToolUse(VERDICT))
    async with client(fake, metrics=metrics) as llm:
        await llm.complete(layer_request())
        await llm.complete(layer_request())
    sent = sorted(fake.requests, key=lambda r: r.received_at)
    assert sample(metrics, "humangr_retries_total", reason="server_error") == 1
    assert sample(metrics, "humangr_retries_total", reason="overloaded") == 1
    assert [r.headers.get("x-stainless-retry-count") for r in sent] == ["0", "1", "2", "0"]


@pytest.mark.anyio
async def test_the_server_saying_not_to_retry_is_obeyed(
    fake: FakeAnthropic, metrics: Metrics
) -> None:
    fake.script(
        ApiError(529, "overloaded_error", "Overloaded", {"x-should-retry": "false"}),
        ToolUse(VERDICT),
    )
    async with client(fake, metrics=metrics) as llm:
        with pytest.raises(LLMTransportError) as caught:
            await llm.complete(layer_request())
    assert len(fake.requests) == 1
    assert not caught.value.retryable
    assert sample(metrics, "humangr_retries_total", reason="overloaded") == 0


@pytest.mark.anyio
async def test_cancellation_while_waiting_to_retry_is_not_swallowed(
    fake: FakeAnthropic, metrics: Metrics
) -> None:
    fake.script(ApiError.rate_limited(retry_after=30), ToolUse(VERDICT))
    async with client(fake, metrics=metrics) as llm:
        with anyio.move_on_after(0.3) as scope:
            await llm.complete(layer_request())
            pytest.fail("the call outlived its cancellation")
    assert scope.cancelled_caught
    assert len(fake.requests) == 1
    assert sample(metrics, "humangr_llm_calls_total", outcome="cancelled") == 1
    assert sample(metrics, "humangr_retries_total", reason="rate_limited") == 0


@pytest.mark.anyio
async def test_server_error_then_success(fake: FakeAnthropic, metrics: Metrics) -> None:
    fake.script(ApiError.server_error(), ToolUse(VERDICT))
    async with client(fake, metrics=metrics) as llm:
        reply = await llm.complete(layer_request())
    assert reply.data is not None
    assert len(fake.requests) == 2
    assert sample(metrics, "humangr_retries_total", reason="server_error") == 1


@pytest.mark.anyio
async def test_rate_limit_gives_up_after_max_retries(fake: FakeAnthropic, metrics: Metrics) -> None:
    fake.script(ApiError.rate_limited(retry_after=0.001))
    async with client(fake, metrics=metrics, max_retries=2) as llm:
        with pytest.raises(LLMTransportError) as caught:
            await llm.complete(layer_request())
    assert len(fake.requests) == 3
    assert caught.value.status == 429
    assert caught.value.reason == "rate_limited"
    assert caught.value.attempts == 3
    assert caught.value.retryable
    assert "gave up after 3 attempts" in str(caught.value)
    assert sample(metrics, "humangr_llm_calls_total", outcome="error") == 1


@pytest.mark.anyio
async def test_timeout_is_an_error_after_retries(fake: FakeAnthropic) -> None:
    fake.script(Slow(30, ToolUse(VERDICT)))
    async with client(fake, timeout=0.2, max_retries=1) as llm:
        with pytest.raises(LLMTransportError) as caught:
            await llm.complete(layer_request())
    assert caught.value.reason == "timeout"
    assert caught.value.attempts == 2
    assert len(fake.requests) == 2


@pytest.mark.anyio
async def test_bad_request_is_not_retried(fake: FakeAnthropic) -> None:
    fake.script(ApiError(400, "invalid_request_error", "prompt is too long"))
    async with client(fake) as llm:
        with pytest.raises(LLMTransportError) as caught:
            await llm.complete(layer_request())
    assert len(fake.requests) == 1
    assert caught.value.status == 400
    assert not caught.value.retryable
    assert "prompt is too long" in str(caught.value)


@pytest.mark.anyio
@pytest.mark.parametrize(
    "body", [b'{"id": "msg_1", "type": "mess', b"<html>bad gateway</html>", b'{"hello": 1}']
)
async def test_malformed_body_is_an_llm_error(fake: FakeAnthropic, body: bytes) -> None:
    fake.script(Raw(body))
    async with client(fake) as llm:
        with pytest.raises(LLMTransportError) as caught:
            await llm.complete(layer_request())
    assert caught.value.reason == "malformed"
    assert len(fake.requests) == 1


@pytest.mark.anyio
async def test_invalid_tool_input_raises_with_raw_and_usage(fake: FakeAnthropic) -> None:
    bad = {"findings": [{"severity": "catastrophic", "title": "x"}]}
    fake.script(ToolUse(bad, usage=FakeUsage(40, 7)))
    async with client(fake) as llm:
        with pytest.raises(LLMReplyInvalid) as caught:
            await llm.complete(layer_request())
    assert json.loads(caught.value.raw) == bad
    assert "$.findings[0].severity" in str(caught.value)
    assert caught.value.usage.input_tokens == 40


@pytest.mark.anyio
async def test_reply_without_the_tool_call_is_invalid(fake: FakeAnthropic) -> None:
    fake.script(Text("Looks fine to me!", stop_reason="end_turn"))
    async with client(fake) as llm:
        with pytest.raises(LLMReplyInvalid) as caught:
            await llm.complete(layer_request())
    assert caught.value.raw == "Looks fine to me!"
    assert "did not call the tool" in str(caught.value)


@pytest.mark.anyio
async def test_structured_repair_over_the_real_sdk(fake: FakeAnthropic) -> None:
    fake.script(ToolUse({"findings": "none"}), ToolUse(VERDICT))
    async with client(fake) as llm:
        outcome = await complete_structured(llm, layer_request())
    assert outcome.ok
    assert outcome.repairs == 1
    assert outcome.usage.calls == 2
    repair = fake.requests[1].json()["messages"][-1]["content"]
    assert "Return only the JSON object" in repair


@pytest.mark.anyio
async def test_cancellation_propagates(fake: FakeAnthropic, metrics: Metrics) -> None:
    fake.script(Slow(30, ToolUse(VERDICT)))
    async with client(fake, metrics=metrics) as llm:
        with anyio.move_on_after(0.1) as scope:
            await llm.complete(layer_request())
    assert scope.cancelled_caught
    assert sample(metrics, "humangr_llm_calls_total", outcome="cancelled") == 1


@pytest.mark.anyio
@pytest.mark.parametrize("status", [400, 401])
async def test_api_key_never_appears_in_errors_or_logs(
    fake: FakeAnthropic, caplog: pytest.LogCaptureFixture, status: int
) -> None:
    fake.script(ApiError(status, "invalid_request_error", f"bad header Bearer {KEY}"))
    caplog.set_level(logging.DEBUG)
    async with client(fake) as llm:
        assert KEY not in repr(llm)
        with pytest.raises(LLMError) as caught:
            await llm.complete(layer_request())
    assert "[redacted]" in str(caught.value)
    assert KEY not in str(caught.value)
    assert caught.value.__cause__ is None
    assert KEY not in caplog.text


@pytest.mark.anyio
async def test_wrong_key_is_refused_with_advice(fake: FakeAnthropic) -> None:
    async with client(fake, api_key="sk-wrong") as llm:
        with pytest.raises(LLMTransportError) as caught:
            await llm.complete(layer_request())
    assert caught.value.status == 401
    assert "ANTHROPIC_API_KEY" in str(caught.value)
    assert "sk-wrong" not in str(caught.value)


def test_missing_api_key_is_a_config_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    with pytest.raises(ConfigError, match="ANTHROPIC_API_KEY"):
        AnthropicLLM()


@pytest.mark.anyio
async def test_key_and_model_come_from_the_environment(
    fake: FakeAnthropic, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    monkeypatch.setenv("HUMANGR_MODEL", "claude-from-env")
    fake.script(ToolUse(VERDICT))
    async with AnthropicLLM(base_url=fake.url) as llm:
        await llm.complete(layer_request())
    assert fake.requests[0].json()["model"] == "claude-from-env"


@pytest.mark.anyio
async def test_url_credentials_never_appear_in_errors_or_repr(
    caplog: pytest.LogCaptureFixture,
) -> None:
    secret = "Pa55-w0rd-never-shown"
    caplog.set_level(logging.INFO, logger="humangr.llm")
    url = f"http://user:{secret}@127.0.0.1:{free_port()}"
    llm = AnthropicLLM(api_key=KEY, base_url=url, model="claude-test")
    async with llm:
        assert secret not in repr(llm)
        with anyio.fail_after(30), pytest.raises(LLMTransportError) as caught:
            await llm.complete(layer_request())
    assert caught.value.reason == "connection"
    assert caught.value.attempts == 3
    assert "cannot reach the Anthropic API at http://***@127.0.0.1" in str(caught.value)
    assert secret not in str(caught.value)
    assert secret not in caplog.text
