"""The ``ToolCall`` contract: bounded, strict, hashed canonically, old messages still decode."""

from __future__ import annotations

import hashlib
import json
from typing import Any

import pytest

from humangr.contracts import (
    ActionContext,
    ActionSubmitted,
    ToolCall,
    ToolKind,
    action_problem,
    decode,
    encode,
    schema_of,
)
from humangr.engine.errors import ContractError
from humangr.engine.review import action_hash


def action(**call: Any) -> dict[str, Any]:
    return {
        "agent_id": "a1",
        "action_type": "tool_call",
        "action_description": "",
        "tool_call": {"name": "bash", "arguments": {"command": "ls"}, **call},
    }


def test_a_tool_call_action_round_trips() -> None:
    got = decode(json.dumps(action(kind="shell", workspace="/w")), ActionContext)
    assert got.tool_call == ToolCall(
        name="bash", arguments={"command": "ls"}, kind=ToolKind.SHELL, workspace="/w"
    )
    assert decode(encode(got), ActionContext) == got


def test_an_old_action_without_the_field_decodes_and_keeps_its_hash() -> None:
    old = {"agent_id": "a1", "action_type": "code_diff", "action_description": "d"}
    got = decode(json.dumps(old), ActionContext)
    assert got.tool_call is None
    before: dict[str, object] = {  # every field an engine without tool calls hashed
        **old,
        "code_diff": None,
        "affected_files": [],
        "environment": {},
    }
    canonical = json.dumps(before, sort_keys=True, separators=(",", ":")).encode()
    assert action_hash(got) == hashlib.sha256(canonical).hexdigest()


@pytest.mark.parametrize(
    ("change", "where"),
    [
        ({"name": "rm -rf /"}, "$.tool_call.name"),
        ({"name": ""}, "$.tool_call.name"),
        ({"name": "x" * 129}, "$.tool_call.name"),
        ({"arguments": ["ls"]}, "$.tool_call.arguments"),
        ({"arguments": "ls"}, "$.tool_call.arguments"),
        ({"kind": "teleport"}, "$.tool_call.kind"),
        ({"surprise": 1}, "$.tool_call"),
        ({"arguments": {"": 1}}, "$.tool_call.arguments"),
    ],
)
def test_bad_tool_calls_are_refused_naming_the_field(change: dict[str, Any], where: str) -> None:
    data = action()
    data["tool_call"].update(change)
    with pytest.raises(ContractError) as caught:
        decode(json.dumps(data), ActionContext)
    assert caught.value.path.startswith(where)


def test_more_than_256_arguments_are_refused() -> None:
    data = action(arguments={f"a{i}": i for i in range(257)})
    with pytest.raises(ContractError, match="arguments"):
        decode(json.dumps(data), ActionContext)


def test_deep_and_huge_arguments_are_problems_naming_the_argument() -> None:
    deep: Any = 1
    for _ in range(40):
        deep = {"x": deep}
    got = decode(json.dumps(action(arguments={"data": deep})), ActionContext)
    problem = action_problem(got)
    assert problem is not None
    assert "argument `data.x.x.x" in problem
    assert "` of bash nests deeper than 32 levels" in problem
    big = decode(json.dumps(action(arguments={"content": "y" * 1_000_001})), ActionContext)
    problem = action_problem(big)
    assert problem is not None
    assert "the limit is 1,000,000" in problem
    assert action_problem(decode(json.dumps(action()), ActionContext)) is None


def test_the_hash_covers_the_tool_call_canonically() -> None:
    one = decode(json.dumps(action(arguments={"a": 1, "b": {"y": 2, "x": 1}})), ActionContext)
    same = decode(json.dumps(action(arguments={"b": {"x": 1, "y": 2}, "a": 1})), ActionContext)
    other = decode(json.dumps(action(arguments={"a": 1, "b": {"x": 1, "y": 3}})), ActionContext)
    assert action_hash(one) == action_hash(same)
    assert action_hash(one) != action_hash(other)
    plain = decode(json.dumps(action()), ActionContext)
    named = decode(json.dumps(action(kind="shell")), ActionContext)
    assert action_hash(plain) != action_hash(named), "the given kind is reviewed, so it is bound"


def test_the_schema_shows_the_tool_call() -> None:
    schema = schema_of("ActionSubmitted")
    defs = schema["$defs"]
    assert "tool_call" in defs["ActionContext"]["properties"]
    assert set(defs["ToolCall"]["properties"]) >= {"name", "arguments", "kind", "workspace"}
    assert ActionSubmitted.__struct_fields__
