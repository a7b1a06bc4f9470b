"""Cache warming through the real SDK against the stand-in server, whose cache entries are
readable only once the response that wrote them has begun."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator

import anyio
import pytest

from humangr.contracts import ActionContext, LayerID
from humangr.engine.llm import (
    AnthropicLLM,
    LLMReply,
    LLMReplyInvalid,
    LLMRequest,
    LLMTransportError,
    Message,
    SystemBlock,
    render_layer_request,
)
from humangr.standins.messages_api import (
    ApiError,
    FakeAnthropic,
    FakeUsage,
    Hangup,
    Interrupted,
    Latency,
    Raw,
    RecordedRequest,
    Reply,
    Slow,
    Text,
    ToolUse,
)

pytestmark = pytest.mark.anyio

KEY = "sk-ant-test-warm"
MODEL = "claude-sonnet-4-6"
CLEAN = {"findings": [], "summary": "fine"}
VERDICT = {
    "findings": [{"severity": "high", "title": "Unchecked input", "file": "a.py", "line": 2}],
    "summary": "one problem",
}
ACTION = ActionContext(
    agent_id="dev-1",
    action_type="code_diff",
    action_description="Rename a helper.",
    code_diff="--- a/app/x.py\n+++ b/app/x.py\n@@ -1 +1 @@\n-def f(): pass\n+def g(): pass\n",
)
LAYERS = [LayerID.HL1, LayerID.HL2, LayerID.HL3, LayerID.HL4, LayerID.HL5, LayerID.HL6]


@pytest.fixture
async def fake() -> AsyncIterator[FakeAnthropic]:
    async with FakeAnthropic(
        api_key=KEY, default=ToolUse(CLEAN), model=MODEL, latency=Latency(0.15, 0.3)
    ) as server:
        yield server


def client(fake: FakeAnthropic, **options: object) -> AnthropicLLM:
    settings: dict[str, object] = {
        "api_key": KEY,
        "base_url": fake.url,
        "model": MODEL,
    }
    settings.update(options)
    return AnthropicLLM(**settings)  # type: ignore[arg-type]


def review_requests(action: ActionContext = ACTION) -> list[LLMRequest]:
    """The 18 calls HL1–HL6 send at once for one action."""
    return [
        render_layer_request(layer, action, tags={"run": str(run)})
        for layer in LAYERS
        for run in (1, 2, 3)
    ]


async def complete_all(llm: AnthropicLLM, requests: list[LLMRequest]) -> list[LLMReply]:
    replies: list[LLMReply] = []

    async def one(request: LLMRequest) -> None:
        replies.append(await llm.complete(request))

    with anyio.fail_after(20):
        async with anyio.create_task_group() as tg:
            for request in requests:
                tg.start_soon(one, request)
    return replies


def began(request: RecordedRequest) -> float:
    assert request.began_at is not None
    return request.began_at


async def test_one_call_goes_first_and_the_rest_read_its_cache_entry(fake: FakeAnthropic) -> None:
    fake.latency = Latency(0.1, 1.5)
    async with client(fake) as llm:
        replies = await complete_all(llm, review_requests())

    first, *rest = sorted(fake.requests, key=lambda r: r.received_at)
    assert len(rest) == 17
    assert first.streamed
    assert not any(r.streamed for r in rest)
    assert all(r.received_at >= began(first) for r in rest), "sent after the first began"
    assert first.ended_at is not None
    assert all(r.received_at < first.ended_at for r in rest), "released at its start, not end"
    assert first.usage is not None
    written = first.usage["cache_creation_input_tokens"]
    assert written > 1024
    assert first.usage["cache_read_input_tokens"] == 0
    for request in rest:
        assert request.usage is not None
        assert request.usage["cache_read_input_tokens"] == written
        assert request.usage["cache_creation_input_tokens"] == 0
    read = sum(reply.usage.cache_read_tokens for reply in replies)
    fed = sum(
        r.usage.input_tokens + r.usage.cache_read_tokens + r.usage.cache_write_tokens
        for r in replies
    )
    assert read / fed > 0.7
    assert all(reply.data is not None and reply.model == MODEL for reply in replies)
    assert llm.warmer is not None
    assert (llm.warmer.led, llm.warmer.held) == (1, 17)


async def test_without_warming_every_parallel_call_writes(fake: FakeAnthropic) -> None:
    """Nothing is held back: the calls go out together and each writes the prefix. (A call
    a loaded machine sends only after a reply began may read it: the cache is the server's.)"""
    async with client(fake, cache_warming=False) as llm:
        replies = await complete_all(llm, review_requests())
    assert llm.warmer is None
    assert len(replies) == len(fake.requests) == 18
    first_reply = min(began(r) for r in fake.requests)
    together = [r for r in fake.requests if r.received_at <= first_reply]
    assert len(together) >= len(fake.requests) // 2
    assert all(r.usage and r.usage["cache_read_input_tokens"] == 0 for r in together)
    assert all(r.usage and r.usage["cache_creation_input_tokens"] > 1024 for r in together)
    assert not any(r.streamed for r in fake.requests)


async def test_without_streaming_the_others_go_after_the_warm_up_delay(
    fake: FakeAnthropic,
) -> None:
    async with client(fake, stream=False, warmup_delay_s=1.0) as llm:
        await complete_all(llm, review_requests()[:6])
    first, *rest = sorted(fake.requests, key=lambda r: r.received_at)
    assert not any(r.streamed for r in fake.requests)
    assert all(r.received_at >= began(first) for r in rest), "its whole reply came before 1 s"
    assert all(r.usage and r.usage["cache_read_input_tokens"] > 1024 for r in rest)

    fake.requests.clear()
    action = ActionContext(
        agent_id="dev-1", action_type="code_diff", action_description="Another change."
    )
    async with client(fake, stream=False, warmup_delay_s=0.05) as llm:
        await complete_all(llm, review_requests(action)[:6])
    first, *rest = sorted(fake.requests, key=lambda r: r.received_at)
    assert all(first.received_at + 0.04 <= r.received_at < began(first) for r in rest)
    assert all(r.usage and r.usage["cache_creation_input_tokens"] > 0 for r in rest), (
        "released before the first reply began: the stand-in counts misses, as the API would"
    )


@pytest.mark.parametrize(
    "failure",
    [ApiError(400, "invalid_request_error", "bad"), ApiError.server_error(), Hangup()],
    ids=["http-400", "http-500", "connection-closed"],
)
async def test_a_failing_first_call_releases_the_others_at_once(
    fake: FakeAnthropic, failure: Reply
) -> None:
    calls = {"n": 0}

    def respond(request: RecordedRequest) -> Reply:
        calls["n"] += 1
        return Slow(0.3, failure) if calls["n"] == 1 else ToolUse(CLEAN)

    fake.responder, fake.default = respond, None
    outcomes: list[str] = []

    async def one(request: LLMRequest) -> None:
        try:
            await llm.complete(request)
            outcomes.append("ok")
        except LLMTransportError:
            outcomes.append("failed")

    async with client(fake, max_retries=0, warmup_max_wait_s=60) as llm:
        with anyio.fail_after(5):
            async with anyio.create_task_group() as tg:
                for request in review_requests()[:4]:
                    tg.start_soon(one, request)
    first, *rest = sorted(fake.requests, key=lambda r: r.received_at)
    assert sorted(outcomes) == ["failed", "ok", "ok", "ok"]
    assert all(0.25 < r.received_at - first.received_at < 2 for r in rest)
    assert all(r.usage and r.usage["cache_read_input_tokens"] == 0 for r in rest)


async def test_a_retried_first_call_releases_the_others_at_its_failure(
    fake: FakeAnthropic,
) -> None:
    fake.script(ApiError.overloaded(retry_after=0.5), ToolUse(CLEAN))
    async with client(fake, warmup_max_wait_s=60) as llm:
        replies = await complete_all(llm, review_requests()[:3])
    assert len(replies) == 3
    first, _second, third, retry = sorted(r.received_at for r in fake.requests)
    assert third - first < 0.4, "the others are not held while the first backs off"
    assert retry - first >= 0.5, "the first call's retry honours retry-after"


async def test_a_cancelled_first_call_releases_the_others(fake: FakeAnthropic) -> None:
    calls = {"n": 0}
    first_sent = anyio.Event()

    def respond(request: RecordedRequest) -> Reply:
        calls["n"] += 1
        first_sent.set()
        return Slow(30, ToolUse(CLEAN)) if calls["n"] == 1 else ToolUse(CLEAN)

    fake.responder, fake.default = respond, None
    first, second, third = review_requests()[:3]
    done: list[LLMReply] = []
    async with client(fake, warmup_max_wait_s=60) as llm:
        with anyio.fail_after(5):
            async with anyio.create_task_group() as tg:
                leader = anyio.CancelScope()

                async def lead() -> None:
                    with leader:
                        await llm.complete(first)

                async def follow(request: LLMRequest) -> None:
                    done.append(await llm.complete(request))

                tg.start_soon(lead)
                await first_sent.wait()
                tg.start_soon(follow, second)
                tg.start_soon(follow, third)
                await anyio.sleep(0.2)
                assert fake.received == 1, "held while the first call is in flight"
                leader.cancel()
    assert len(done) == 2


async def test_small_prompts_go_out_together(fake: FakeAnthropic) -> None:
    small = [
        LLMRequest(
            system=(SystemBlock("Be brief. " * 20, cache=True),),
            messages=(Message("user", f"question {n}"),),
        )
        for n in range(6)
    ]
    fake.default = Text("answer")
    async with client(fake) as llm:
        await complete_all(llm, small)
        assert llm.warmer is not None
        assert llm.warmer.led == 0
    times = sorted(r.received_at for r in fake.requests)
    assert times[-1] - times[0] < 0.1, "not held back"
    assert not any(r.streamed for r in fake.requests)


async def test_a_model_with_a_higher_minimum_is_not_held_back(fake: FakeAnthropic) -> None:
    async with client(fake, model="claude-opus-4-5") as llm:
        await complete_all(llm, review_requests()[:6])
    times = sorted(r.received_at for r in fake.requests)
    assert times[-1] - times[0] < 0.1


@pytest.mark.parametrize(
    "reply",
    [
        ToolUse(VERDICT, usage=FakeUsage(1500, 40, 1300, 0)),
        ToolUse(VERDICT),
        ToolUse({"findings": [{"severity": "catastrophic", "title": "x"}]}),
        ToolUse(VERDICT, stop_reason="max_tokens"),
    ],
    ids=["scripted-usage", "counted-usage", "invalid", "max-tokens"],
)
async def test_streamed_and_plain_replies_are_the_same(reply: ToolUse) -> None:
    results: list[object] = []
    for streamed in (True, False):
        async with FakeAnthropic(api_key=KEY, default=reply, model=MODEL) as server:
            async with client(server, cache_warming=streamed) as llm:
                try:
                    results.append(await llm.complete(render_layer_request(LayerID.HL4, ACTION)))
                except LLMReplyInvalid as exc:
                    results.append((exc.raw, exc.errors, exc.usage, exc.model))
            assert server.requests[0].streamed is streamed
    streamed_result, plain_result = results
    assert streamed_result == plain_result


async def test_a_text_reply_is_the_same_streamed_or_not() -> None:
    request = LLMRequest(
        system=(SystemBlock("x" * 8000, cache=True),), messages=(Message("user", "hi"),)
    )
    replies = []
    for warming in (True, False):
        async with FakeAnthropic(api_key=KEY, default=Text("hello there"), model=MODEL) as s:
            async with client(s, cache_warming=warming) as llm:
                replies.append(await llm.complete(request))
            assert s.requests[0].streamed is warming
    assert replies[0] == replies[1]
    assert replies[0].text == "hello there"


async def test_a_stream_broken_by_overload_is_retried_and_its_entry_stays_readable(
    fake: FakeAnthropic,
) -> None:
    fake.script(Interrupted(ApiError.overloaded()), ToolUse(CLEAN))
    async with client(fake) as llm:
        replies = await complete_all(llm, review_requests()[:3])
    assert len(replies) == 3
    assert len(fake.requests) == 4  # the broken stream was tried again, once
    first, *rest = sorted(fake.requests, key=lambda r: r.received_at)
    assert first.streamed
    assert all(r.received_at >= began(first) for r in rest)
    assert sum(1 for r in rest if r.usage and r.usage["cache_read_input_tokens"] > 0) >= 2


@pytest.mark.parametrize(
    "body",
    [
        b'{"type": "message", "content": []}',
        b"event: message_start\ndata: {not json}\n\n",
        b'event: ping\ndata: {"type": "ping"}\n\n',
    ],
    ids=["json-instead-of-events", "bad-event-data", "no-message"],
)
async def test_a_malformed_stream_is_an_error_and_releases_the_others(
    fake: FakeAnthropic, body: bytes
) -> None:
    fake.script(Raw(body, content_type="text/event-stream"), ToolUse(CLEAN))
    outcomes: list[str] = []

    async def one(request: LLMRequest) -> None:
        try:
            await llm.complete(request)
            outcomes.append("ok")
        except LLMTransportError as exc:
            outcomes.append(exc.reason)

    async with client(fake, warmup_max_wait_s=60) as llm:
        with anyio.fail_after(5):
            async with anyio.create_task_group() as tg:
                for request in review_requests()[:3]:
                    tg.start_soon(one, request)
    assert sorted(outcomes) == ["malformed", "ok", "ok"]


async def test_the_request_body_is_the_same_streamed_or_not(fake: FakeAnthropic) -> None:
    async with client(fake) as llm:
        await complete_all(llm, review_requests()[:2])
    bodies = [r.json() for r in sorted(fake.requests, key=lambda r: r.received_at)]
    assert bodies[0].pop("stream") is True
    assert "stream" not in bodies[1]
    assert json.dumps(bodies[0]["tools"]) == json.dumps(bodies[1]["tools"])
    assert bodies[0]["tool_choice"] == bodies[1]["tool_choice"]
