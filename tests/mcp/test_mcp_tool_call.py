"""MCP ``validate`` and ``test_action`` with a tool call, through the official ``mcp`` client:
the input schema offers ``tool_call``, a call alone (no diff) is reviewed argument by argument,
the text names the argument, a hostile argument comes back escaped and bounded, and a bad call
is refused naming its problem, never reviewed as something else."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client, types
from mcp.shared.exceptions import MCPError
from mcp.types import INVALID_PARAMS
from mcp_helpers import TIMEOUT, data, mcp_session
from tool_call_samples import PICKLE_VIEW

from humangr.engine.config import ReviewConfig
from humangr.mcp import HumanLayerMCP
from humangr.mcp.serve import open_backend

pytestmark = pytest.mark.anyio

WRITE = {"name": "write_file", "arguments": {"path": "app/views.py", "content": PICKLE_VIEW}}
HOSTILE = "<script>alert(1)</script>\x1b[2J\x1b]0;pwned\x07 abc\u202edcba \u2066x\u2069"
_RAW = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u200b-\u200f\u2028-\u202e\u2066-\u2069]")


@asynccontextmanager
async def client_for(config: ReviewConfig | None = None) -> AsyncIterator[tuple[Client, Any]]:
    async with open_backend(config or ReviewConfig(layer_deadline_s=10), None) as backend:
        app = HumanLayerMCP(backend, None, "none")
        async with Client(app.server()) as client:
            yield client, app


def validate(tool_call: Any) -> dict[str, Any]:
    base = {"agent_id": "agent-1", "action_type": "tool_call", "action_description": "do it"}
    return {**base, "tool_call": tool_call}


def quick_args(tool_call: Any) -> dict[str, Any]:
    return {"action_description": "do it", "tool_call": tool_call}


def summary(result: types.CallToolResult) -> str:
    first = result.content[0]
    assert isinstance(first, types.TextContent)
    return first.text


def deep(levels: int) -> Any:
    value: Any = "x"
    for _ in range(levels):
        value = {"k": value}
    return value


async def test_the_input_schema_offers_an_optional_tool_call() -> None:
    async with client_for() as (client, _):
        tools = {tool.name: tool for tool in (await client.list_tools()).tools}
    for name in ("validate", "test_action"):
        schema = tools[name].input_schema
        assert "tool_call" not in schema.get("required", [])
        call = schema["properties"]["tool_call"]
        (obj,) = [s for s in call["anyOf"] if s.get("type") == "object"]
        assert set(obj["properties"]) == {"name", "arguments", "kind", "workspace"}
        assert obj["required"] == ["name"]
        assert obj["properties"]["arguments"]["type"] == "object"
        assert obj["properties"]["name"]["pattern"].startswith("^[A-Za-z0-9_]")
        kinds = obj["properties"]["kind"]["anyOf"][0]["enum"]
        assert {"shell", "file_write", "http", "sql", "other"} <= set(kinds)


async def test_validate_reviews_a_tool_call_alone_and_names_the_argument() -> None:
    with anyio.fail_after(20):
        async with client_for() as (client, app):
            result = await client.call_tool("validate", validate(WRITE))
            report = data(result)
            text = summary(result)
            assert app.stats.summary().decisions_total == 1
    assert report["outcome"] == "rejected"
    (bad,) = report["layer_results"]["HL4"]["merged_findings"]
    assert (bad["argument"], bad["tool"], bad["file"], bad["line"]) == (
        "content",
        "write_file",
        "app/views.py",
        6,
    )
    assert "tool call write_file (kind file_write, from the tool's name write_file)" in text
    assert "content: written as app/views.py" in text
    assert "argument `content` of write_file: Deserialization of request input" in text


async def test_a_secret_in_a_nested_argument_is_named_by_its_path() -> None:
    call = {
        "name": "http_request",
        "kind": "http",
        "workspace": "/repo",
        "arguments": {
            "url": "https://example.com/hook",
            "headers": {"Authorization": "token ghp_a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"},
        },
    }
    with anyio.fail_after(20):
        async with client_for() as (client, _):
            result = await client.call_tool("validate", validate(call))
            quick = data(await client.call_tool("test_action", quick_args(call)))
    assert data(result)["outcome"] == "rejected"
    assert "argument `headers.Authorization` of http_request: sends a GitHub token" in summary(
        result
    )
    assert "tool call http_request (kind http, as the call gives it)" in summary(result)
    assert quick["verdict"] == "fail"
    assert quick["findings"][0]["argument"] == "headers.Authorization"


async def test_a_hostile_argument_comes_back_escaped_and_bounded() -> None:
    call = {
        "name": "bash",
        "arguments": {
            "command": HOSTILE,
            "huge": "A" * 600_000,
            "many": {f"k{n}": HOSTILE for n in range(3_000)},
        },
    }
    with anyio.fail_after(30):
        async with client_for() as (client, _):
            result = await client.call_tool("validate", validate(call))
    text = summary(result)
    assert not _RAW.findall(text.replace("\n", ""))
    assert "\\x1b[2J" in text
    assert "\\u202e" in text
    assert len(text) < 10_000


@pytest.mark.parametrize(
    ("tool_call", "path", "problem"),
    [
        ({"name": "rm -rf /", "arguments": {}}, "$.tool_call.name", "matching regex"),
        ({"name": "bash", "arguments": ["ls"]}, "$.tool_call.arguments", "Expected `object`"),
        ({"name": "bash", "arguments": "ls"}, "$.tool_call.arguments", "Expected `object`"),
        ({"name": "bash", "arguments": {"c": deep(33)}}, "$.tool_call.arguments", "deeper than 32"),
        (
            {"name": "bash", "arguments": {"c": "x" * 1_000_001}},
            "$.tool_call.arguments",
            "the limit is 1,000,000",
        ),
        ({"name": "bash", "kind": "rocket"}, "$.tool_call.kind", "Invalid enum value"),
        ({"name": "bash", "truncated": ["c"]}, "$.tool_call", "unknown field `truncated`"),
        ({"arguments": {"c": "ls"}}, "$.tool_call", "missing required field `name`"),
    ],
    ids=["name", "array", "string", "depth", "size", "kind", "truncated", "no-name"],
)
async def test_a_bad_tool_call_is_refused_naming_the_problem(
    tool_call: Any, path: str, problem: str
) -> None:
    with anyio.fail_after(20):
        async with client_for() as (client, app):
            for tool, arguments in (
                ("validate", validate(tool_call)),
                ("test_action", quick_args(tool_call)),
            ):
                with pytest.raises(MCPError) as refused:
                    await client.call_tool(tool, arguments)
                message = refused.value.message
                assert refused.value.code == INVALID_PARAMS
                assert path in message, message
                assert problem in message, message
                assert len(message) < 2_000
            assert app.stats.summary().decisions_total == 0


async def test_a_tool_call_over_the_configured_limit_is_refused() -> None:
    call = {"name": "bash", "arguments": {"command": "echo " + "x" * 200}}
    with anyio.fail_after(20):
        async with client_for(ReviewConfig(max_diff_bytes=64)) as (client, _):
            with pytest.raises(MCPError) as refused:
                await client.call_tool("validate", validate(call))
    assert "$.tool_call.arguments" in refused.value.message
    assert "the limit is 64" in refused.value.message


async def test_validate_over_stdio_takes_a_tool_call(tmp_path: Path) -> None:
    with (tmp_path / "server.log").open("w+") as errlog, anyio.fail_after(TIMEOUT):
        async with mcp_session("--llm", "none", errlog=errlog) as session:
            result = await session.call_tool("validate", validate(WRITE))
    assert data(result)["outcome"] == "rejected"
    assert "argument `content` of write_file" in summary(result)
