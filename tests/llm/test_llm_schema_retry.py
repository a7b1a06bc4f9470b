"""Pure parts of LLM access: the tool input schema, decoding, the retry policy."""

from __future__ import annotations

import email.utils
import json
from typing import Any

import msgspec
import pytest

from humangr.contracts import LayerVerdict, ResponseEnvelope
from humangr.engine.llm import LLMReplyInvalid, LLMRequest, Message, RetryPolicy, SystemBlock
from humangr.engine.llm.retry import parse_retry_after, retry_reason, status_reason
from humangr.engine.llm.schema import decode_reply, tool_input_schema, tool_name_for


class Node(msgspec.Struct):
    name: str
    children: list[Node] = []


def refs(node: Any) -> list[str]:
    if isinstance(node, dict):
        own = [node["$ref"]] if "$ref" in node else []
        return own + [r for value in node.values() for r in refs(value)]
    if isinstance(node, list):
        return [r for value in node for r in refs(value)]
    return []


@pytest.mark.parametrize("schema", [LayerVerdict, ResponseEnvelope])
def test_tool_schema_is_a_self_contained_object(schema: type[Any]) -> None:
    inlined = tool_input_schema(schema)
    assert inlined["type"] == "object"
    assert refs(inlined) == []
    assert "$defs" not in inlined


def test_tool_schema_inlines_nested_types() -> None:
    finding = tool_input_schema(LayerVerdict)["properties"]["findings"]["items"]
    assert finding["type"] == "object"
    assert set(finding["properties"]["severity"]["enum"]) == {
        "info",
        "low",
        "medium",
        "high",
        "critical",
    }
    assert set(finding["required"]) == {"severity", "title"}


def test_tool_schema_is_a_fresh_copy() -> None:
    tool_input_schema(LayerVerdict)["properties"].clear()
    assert "findings" in tool_input_schema(LayerVerdict)["properties"]


def test_recursive_types_keep_their_defs() -> None:
    schema = tool_input_schema(Node)
    assert schema["type"] == "object"
    assert set(refs(schema)) == {"#/$defs/Node"}
    assert schema["$defs"]["Node"]["properties"]["name"] == {"type": "string"}


def test_non_object_types_are_refused() -> None:
    with pytest.raises(TypeError, match="not a JSON object type"):
        tool_input_schema(list[int])


def test_tool_name_is_api_safe() -> None:
    assert tool_name_for(LayerVerdict) == "submit_LayerVerdict"
    assert tool_name_for(list[int]).startswith("submit_")
    assert set(tool_name_for(list[int])) <= set(
        "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-"
    )


def test_decode_reply_errors_name_the_path_and_keep_the_raw() -> None:
    raw = json.dumps({"findings": [{"severity": "high", "title": ""}]})
    with pytest.raises(LLMReplyInvalid) as caught:
        decode_reply(raw, LayerVerdict, model="m")
    assert caught.value.raw == raw
    assert caught.value.errors[0].startswith("at $.findings[0].title:")
    assert caught.value.model == "m"


@pytest.mark.parametrize(
    ("status", "reason"),
    [
        (429, "rate_limited"),
        (529, "overloaded"),
        (500, "server_error"),
        (503, "server_error"),
        (408, "timeout"),
        (409, "conflict"),
        (400, None),
        (401, None),
        (404, None),
        (413, None),
    ],
)
def test_retry_reason(status: int, reason: str | None) -> None:
    assert retry_reason(status) == reason


def test_parse_retry_after() -> None:
    assert parse_retry_after({"retry-after": "2"}) == 2.0
    assert parse_retry_after({"retry-after": "0.25"}) == 0.25
    assert parse_retry_after({"retry-after-ms": "150", "retry-after": "9"}) == 0.15
    assert parse_retry_after({"retry-after": "-3"}) == 0.0
    assert parse_retry_after({"retry-after": "soon"}) is None
    assert parse_retry_after({}) is None
    date = email.utils.formatdate(1_000_030, usegmt=True)
    assert parse_retry_after({"retry-after": date}, now=1_000_000) == 30.0


def test_retry_policy_allows_a_retry_after_up_to_its_cap() -> None:
    policy = RetryPolicy(max_retries=3, max_retry_after=10.0)
    assert policy.allows(None)
    assert policy.allows(0.0)
    assert policy.allows(10.0)
    assert not policy.allows(10.5)
    with pytest.raises(ValueError, match="max_retries"):
        RetryPolicy(max_retries=-1)
    with pytest.raises(ValueError, match="max_retry_after"):
        RetryPolicy(max_retry_after=-1.0)


@pytest.mark.parametrize(
    ("status", "hint", "reason"),
    [
        (529, None, "overloaded"),
        (529, "false", None),
        (400, "true", "server_requested"),
        (429, "true", "rate_limited"),
        (409, None, "conflict"),
    ],
)
def test_x_should_retry_overrules_the_status(
    status: int, hint: str | None, reason: str | None
) -> None:
    headers = {} if hint is None else {"x-should-retry": hint}
    assert status_reason(status, headers) == reason


def test_request_validation_and_shared_prefix() -> None:
    blocks = (SystemBlock("a", cache=True), SystemBlock("b", cache=True), SystemBlock("c"))
    request = LLMRequest(system=blocks, messages=(Message("user", "x"),))
    assert request.shared_prefix == blocks[:2]
    assert LLMRequest(system=(SystemBlock("c"),), messages=request.messages).shared_prefix == ()
    with pytest.raises(ValueError, match="at least one message"):
        LLMRequest(system=(), messages=())
    with pytest.raises(ValueError, match="first message"):
        LLMRequest(system=(), messages=(Message("assistant", "x"),))
    with pytest.raises(ValueError, match="at most 4"):
        LLMRequest(system=(SystemBlock("x", cache=True),) * 5, messages=request.messages)
    repaired = request.with_messages(Message("user", "again"), tags={"repair": "1"})
    assert repaired.messages[-1].content == "again"
    assert repaired.tags == {"repair": "1"}
    assert request.tags == {}
