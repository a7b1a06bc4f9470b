"""The stand-in Messages API server, driven by the real ``anthropic`` SDK: streaming, latency,
token counts and a prompt cache whose entries are readable only once their writer began."""

from __future__ import annotations

import json
import time
from collections.abc import AsyncIterator
from typing import Any

import anthropic
import anyio
import pytest

from humangr.standins.messages_api import (
    FakeAnthropic,
    Latency,
    RecordedRequest,
    Text,
    ToolUse,
)
from humangr.standins.messages_cache import (
    MESSAGE_TOKENS,
    TOOL_PROMPT_TOKENS,
    PromptCache,
    count_tokens,
)

pytestmark = pytest.mark.anyio

KEY = "sk-ant-fake-cache"
MODEL = "claude-sonnet-4-6"
PREFIX = "Reviewer protocol. " * 400
TOOL = {
    "name": "submit",
    "description": "Submit the verdict.",
    "input_schema": {"type": "object", "properties": {"ok": {"type": "boolean"}}},
}


def body(question: str = "q", prefix: str = PREFIX, **extra: Any) -> dict[str, Any]:
    return {
        "model": MODEL,
        "max_tokens": 100,
        "system": [{"type": "text", "text": prefix, "cache_control": {"type": "ephemeral"}}],
        "messages": [{"role": "user", "content": question}],
        **extra,
    }


@pytest.fixture
async def fake() -> AsyncIterator[FakeAnthropic]:
    async with FakeAnthropic(api_key=KEY, default=Text("ok"), model=MODEL) as server:
        yield server


def sdk(fake: FakeAnthropic) -> anthropic.AsyncAnthropic:
    return anthropic.AsyncAnthropic(api_key=KEY, base_url=fake.url, max_retries=0)


async def stream_text(client: anthropic.AsyncAnthropic, params: dict[str, Any]) -> Any:
    async with client.messages.stream(**params) as stream:
        return await stream.get_final_message()


async def create(client: anthropic.AsyncAnthropic, params: dict[str, Any]) -> Any:
    return await client.messages.create(**params)


def usage(request: RecordedRequest) -> dict[str, int]:
    assert request.usage is not None
    return request.usage


async def test_an_entry_is_readable_only_after_its_streamed_writer_began(
    fake: FakeAnthropic,
) -> None:
    fake.latency = Latency(0.3, 0.6)
    async with sdk(fake) as client, anyio.create_task_group() as tg:
        tg.start_soon(stream_text, client, body("first"))
        await anyio.sleep(0.1)
        tg.start_soon(create, client, body("before the first began"))
        await anyio.sleep(0.4)
        tg.start_soon(create, client, body("after"))
    first, early, late = sorted(fake.requests, key=lambda r: r.received_at)
    assert first.streamed
    prefix = usage(first)["cache_creation_input_tokens"]
    assert prefix == count_tokens(PREFIX)
    assert usage(early)["cache_creation_input_tokens"] == prefix, "a miss pays a write"
    assert usage(early)["cache_read_input_tokens"] == 0
    assert usage(late)["cache_read_input_tokens"] == prefix
    assert usage(late)["cache_creation_input_tokens"] == 0
    assert usage(late)["input_tokens"] == count_tokens("after") + MESSAGE_TOKENS


async def test_an_entry_is_readable_after_the_head_of_a_whole_reply(fake: FakeAnthropic) -> None:
    fake.latency = Latency(0.1, 0.4)
    async with sdk(fake) as client, anyio.create_task_group() as tg:
        tg.start_soon(create, client, body("first"))
        await anyio.sleep(0.2)
        tg.start_soon(create, client, body("while the first is being written"))
        await anyio.sleep(0.35)
        tg.start_soon(create, client, body("after its head"))
    first, early, late = sorted(fake.requests, key=lambda r: r.received_at)
    assert first.began_at is not None
    assert first.began_at - first.received_at >= 0.4
    assert usage(early)["cache_read_input_tokens"] == 0, "no head before total_s"
    assert usage(late)["cache_read_input_tokens"] == count_tokens(PREFIX)


async def test_streamed_and_whole_messages_are_the_same(fake: FakeAnthropic) -> None:
    verdict = {"ok": True, "notes": ["a", "b" * 300], "nested": {"x": [1, 2.5, None]}}
    params = body(tools=[TOOL], tool_choice={"type": "tool", "name": "submit"})
    fake.default = ToolUse(verdict)
    async with sdk(fake) as client:
        whole = await client.messages.create(**params)
        streamed = await stream_text(client, params)
    assert streamed.content[0].input == whole.content[0].input == verdict
    assert streamed.content[0].name == "submit"
    assert (streamed.stop_reason, streamed.model) == (whole.stop_reason, whole.model)
    assert streamed.usage.output_tokens == whole.usage.output_tokens
    fake.default = Text("multi\nline ```text``` é")
    async with sdk(fake) as client:
        streamed_text = await stream_text(client, body())
    assert streamed_text.content[0].text == "multi\nline ```text``` é"


async def test_a_stream_begins_after_first_byte_and_ends_at_total(fake: FakeAnthropic) -> None:
    fake.latency = Latency(0.2, 0.5)
    async with sdk(fake) as client:
        started = time.monotonic()
        async with client.messages.stream(**body()) as stream:
            first_event = None
            async for event in stream:
                if first_event is None:
                    first_event = time.monotonic() - started
                    assert event.type == "message_start"
        total = time.monotonic() - started
        whole_started = time.monotonic()
        await client.messages.create(**body("whole"))
        whole = time.monotonic() - whole_started
    assert first_event is not None
    assert 0.2 <= first_event < total
    assert total >= 0.5
    assert whole >= 0.5


async def test_tokens_are_counted_with_the_api_overheads(fake: FakeAnthropic) -> None:
    fake.default = ToolUse({"ok": True})
    params = body(
        "why?",
        prefix="short",
        tools=[TOOL],
        tool_choice={"type": "tool", "name": "submit"},
    )
    async with sdk(fake) as client:
        reply = await client.messages.create(**params)
    tool_tokens = count_tokens(json.dumps(TOOL, sort_keys=True))
    expected = TOOL_PROMPT_TOKENS + tool_tokens + count_tokens("short")
    expected += count_tokens("why?") + MESSAGE_TOKENS
    assert reply.usage.input_tokens == expected, "below the minimum: nothing cached"
    assert reply.usage.cache_creation_input_tokens == 0
    assert reply.usage.output_tokens == count_tokens(json.dumps({"ok": True})) + 3
    assert count_tokens("x" * 7000) == 2000
    assert count_tokens("") == 0


async def test_a_model_with_a_higher_minimum_caches_nothing_short(fake: FakeAnthropic) -> None:
    async with sdk(fake) as client:
        await client.messages.create(**{**body(), "model": "claude-opus-4-5"})
        await client.messages.create(**{**body("again"), "model": "claude-opus-4-5"})
    assert all(usage(r)["cache_read_input_tokens"] == 0 for r in fake.requests)
    assert all(usage(r)["cache_creation_input_tokens"] == 0 for r in fake.requests)


async def test_two_breakpoints_read_the_shared_part_and_write_the_rest(
    fake: FakeAnthropic,
) -> None:
    def two(action: str) -> dict[str, Any]:
        return {
            **body(),
            "system": [
                {"type": "text", "text": PREFIX, "cache_control": {"type": "ephemeral"}},
                {"type": "text", "text": action, "cache_control": {"type": "ephemeral"}},
            ],
        }

    async with sdk(fake) as client:
        await client.messages.create(**two("action one " * 300))
        await client.messages.create(**two("action two " * 300))
    first, second = fake.requests
    assert usage(second)["cache_read_input_tokens"] == count_tokens(PREFIX)
    assert usage(second)["cache_creation_input_tokens"] == count_tokens("action two " * 300)
    assert usage(first)["cache_creation_input_tokens"] == count_tokens(PREFIX) + count_tokens(
        "action one " * 300
    )


def test_entries_expire_after_their_ttl_and_memory_is_bounded() -> None:
    now = [0.0]
    cache = PromptCache(ttl_s=300, max_entries=3, clock=lambda: now[0])
    cache.began(cache.plan(body()))
    now[0] = 299
    assert cache.plan(body("late but in time")).read == count_tokens(PREFIX)
    now[0] = 299 + 299
    assert cache.plan(body("each read refreshes the entry")).read > 0
    now[0] += 301
    assert cache.plan(body("too late")).read == 0
    for n in range(10):
        cache.began(cache.plan(body(prefix=f"{n} " + PREFIX)))
    assert len(cache) == 3


@pytest.mark.parametrize(
    ("change", "problem"),
    [
        ({"surprise": 1}, "surprise: Extra inputs are not permitted"),
        ({"stream": "yes"}, "stream: Input should be a valid boolean"),
        ({"system": 5}, "system: Input should be a string or a list of text blocks"),
        ({"system": [{"type": "text"}]}, "system: Input should be"),
        ({"messages": [{"role": "robot", "content": "x"}]}, "messages.0.role"),
        ({"messages": ["x"]}, "messages.0.role"),
        ({"messages": [{"role": "user", "content": 3}]}, "messages.0.content"),
        ({"tools": [1]}, "tools: Input should be a list of tool objects"),
        ({"tool_choice": "submit"}, "tool_choice: Input should be an object"),
    ],
)
async def test_malformed_requests_get_the_api_s_400_and_the_server_survives(
    fake: FakeAnthropic, change: dict[str, Any], problem: str
) -> None:
    async with sdk(fake) as client:
        with pytest.raises(anthropic.BadRequestError, match=problem):
            await client.post("/v1/messages", body={**body(), **change}, cast_to=object)
        reply = await client.messages.create(**body())
    assert reply.content[0].text == "ok"


async def test_odd_text_is_counted_without_harm(fake: FakeAnthropic) -> None:
    odd = "\x00 nul, \u202e right-to-left, e\u0301, \U0001f600, ```` fences ````\n" * 300
    async with sdk(fake) as client:
        reply = await client.messages.create(**body(prefix=odd))
        again = await client.messages.create(**body(prefix=odd))
    assert reply.usage.cache_creation_input_tokens == count_tokens(odd)
    assert again.usage.cache_read_input_tokens == count_tokens(odd)


async def raw_post(fake: FakeAnthropic, payload: bytes) -> bytes:
    port = int(fake.url.rsplit(":", 1)[1])
    async with await anyio.connect_tcp("127.0.0.1", port) as stream:
        head = (
            f"POST /v1/messages HTTP/1.1\r\nhost: x\r\nx-api-key: {KEY}\r\n"
            f"anthropic-version: 2023-06-01\r\ncontent-length: {len(payload)}\r\n"
            "connection: close\r\n\r\n"
        )
        await stream.send(head.encode() + payload)
        received = b""
        with anyio.fail_after(5):
            try:
                while True:
                    received += await stream.receive()
            except anyio.EndOfStream:
                pass
    return received


@pytest.mark.parametrize(
    ("payload", "status"),
    [
        (json.dumps(body(prefix="\ud800 lone surrogate " * 400)).encode(), b" 200 "),
        (b'{"model": "\xff\xfe", "max_tokens": 1}', b" 400 "),
        (json.dumps(body(prefix="x" * 9000)).encode()[:-3], b" 400 "),
        (json.dumps([body()]).encode(), b" 400 "),
    ],
    ids=["lone-surrogate-escape", "not-utf8", "truncated", "not-an-object"],
)
async def test_bad_bytes_get_an_answer_and_the_server_survives(
    fake: FakeAnthropic, payload: bytes, status: bytes
) -> None:
    answer = await raw_post(fake, payload)
    assert answer.startswith(b"HTTP/1.1" + status)
    async with sdk(fake) as client:
        reply = await client.messages.create(**body())
    assert reply.content[0].text == "ok"


def test_a_latency_must_be_ordered() -> None:
    with pytest.raises(ValueError, match="first_byte_s <= total_s"):
        Latency(0.5, 0.2)
    with pytest.raises(ValueError, match="0 <= first_byte_s"):
        Latency(-1, 0)
