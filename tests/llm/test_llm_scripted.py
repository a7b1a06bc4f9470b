"""ScriptedLLM: matching, ordering, replies, cancellation accounting and script errors."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import anyio
import pytest

from humangr.contracts import LayerVerdict, Usage
from humangr.engine.errors import ConfigError
from humangr.engine.llm import (
    LLMClient,
    LLMReplyInvalid,
    LLMRequest,
    LLMTransportError,
    Message,
    NoScriptMatch,
    ScriptedLLM,
    ScriptError,
)


def request(schema: type[Any] | None = None, **tags: str) -> LLMRequest:
    return LLMRequest(system=(), messages=(Message("user", "review"),), schema=schema, tags=tags)


def says(text: str) -> dict[str, Any]:
    return {"findings": [], "summary": text}


async def summary(llm: ScriptedLLM, **tags: str) -> str:
    reply = await llm.complete(request(LayerVerdict, **tags))
    assert isinstance(reply.data, LayerVerdict)
    return reply.data.summary


def test_is_an_llm_client() -> None:
    assert isinstance(ScriptedLLM([]), LLMClient)


@pytest.mark.anyio
async def test_most_specific_match_wins() -> None:
    llm = ScriptedLLM.from_lines(
        [
            {"match": {}, "json": says("catch-all")},
            {"match": {"layer": "HL4", "run": "2"}, "json": says("HL4 run 2")},
            {"match": {"layer": "HL4"}, "json": says("HL4")},
        ]
    )
    assert await summary(llm, layer="HL4", run="2", action_id="A") == "HL4 run 2"
    assert await summary(llm, layer="HL4", run="1") == "HL4"
    assert await summary(llm, layer="HL1", run="2") == "catch-all"


@pytest.mark.anyio
async def test_tie_between_equally_specific_matches_goes_to_the_first_line() -> None:
    llm = ScriptedLLM.from_lines(
        [
            {"match": {"agent": "dev"}, "json": says("agent")},
            {"match": {"mode": "implement_task"}, "json": says("mode")},
        ]
    )
    assert await summary(llm, agent="dev", mode="implement_task") == "agent"
    assert await summary(llm, agent="qa", mode="implement_task") == "mode"


@pytest.mark.anyio
async def test_same_match_replies_in_order_and_the_last_repeats() -> None:
    llm = ScriptedLLM.from_lines(
        [
            {"match": {"layer": "HL2"}, "json": says("first")},
            {"match": {"layer": "HL3"}, "json": says("other")},
            {"match": {"layer": "HL2"}, "json": says("second")},
            {"match": {"layer": "HL2"}, "json": says("last")},
        ]
    )
    got = [await summary(llm, layer="HL2") for _ in range(5)]
    assert got == ["first", "second", "last", "last", "last"]
    assert await summary(llm, layer="HL3") == "other"


@pytest.mark.anyio
async def test_added_lines_continue_the_sequence() -> None:
    llm = ScriptedLLM.from_lines([{"match": {}, "json": says("base")}])
    assert await summary(llm, layer="HL5") == "base"
    llm.add_lines(
        [
            {"match": {}, "json": says("next")},
            {"match": {"layer": "HL5"}, "json": says("5")},
        ]
    )
    assert await summary(llm, layer="HL1") == "next"
    assert await summary(llm, layer="HL1") == "next"
    assert await summary(llm, layer="HL5") == "5"
    with pytest.raises(ScriptError, match="<added>:1: "):
        llm.add_lines([{"match": {}}])


@pytest.mark.anyio
async def test_numbers_in_match_compare_as_strings() -> None:
    llm = ScriptedLLM.from_lines([{"match": {"run": 2}, "json": says("two")}])
    assert await summary(llm, run="2") == "two"


@pytest.mark.anyio
async def test_no_matching_line_is_a_clear_error() -> None:
    llm = ScriptedLLM.from_lines([{"match": {"layer": "HL4"}, "json": says("x")}])
    with pytest.raises(NoScriptMatch, match="HL1") as caught:
        await llm.complete(request(LayerVerdict, layer="HL1"))
    assert caught.value.tags == {"layer": "HL1"}
    assert llm.completed == 1


@pytest.mark.anyio
async def test_json_reply_is_decoded_against_the_schema() -> None:
    llm = ScriptedLLM.from_lines(
        [
            {
                "match": {},
                "json": {"findings": [{"severity": "high", "title": "t", "line": 4}]},
                "usage": {"input_tokens": 10, "cache_read_tokens": 7},
            }
        ]
    )
    reply = await llm.complete(request(LayerVerdict))
    assert isinstance(reply.data, LayerVerdict)
    assert reply.data.findings[0].line == 4
    assert reply.model == "scripted"
    assert reply.usage == Usage(input_tokens=10, cache_read_tokens=7, calls=1)


@pytest.mark.anyio
async def test_invalid_scripted_json_raises_like_a_bad_tool_input() -> None:
    llm = ScriptedLLM.from_lines([{"match": {}, "json": {"findings": "none"}}])
    with pytest.raises(LLMReplyInvalid) as caught:
        await llm.complete(request(LayerVerdict))
    assert caught.value.raw == '{"findings":"none"}'
    assert "$.findings" in str(caught.value)


@pytest.mark.anyio
async def test_text_reply_is_decoded_when_a_schema_is_requested() -> None:
    llm = ScriptedLLM.from_lines(
        [
            {"match": {"run": "1"}, "text": '{"findings": [], "summary": "from text"}'},
            {"match": {"run": "2"}, "text": "Sure! Here is my review: all good."},
        ]
    )
    assert await summary(llm, run="1") == "from text"
    with pytest.raises(LLMReplyInvalid) as caught:
        await llm.complete(request(LayerVerdict, run="2"))
    assert caught.value.raw == "Sure! Here is my review: all good."
    assert "not valid JSON" in str(caught.value)


@pytest.mark.anyio
async def test_plain_request_gets_the_text_as_is() -> None:
    llm = ScriptedLLM.from_lines([{"match": {}, "text": "hello there"}])
    reply = await llm.complete(request())
    assert (reply.text, reply.data, reply.raw) == ("hello there", None, "hello there")


@pytest.mark.anyio
async def test_error_line_is_a_transport_error() -> None:
    llm = ScriptedLLM.from_lines([{"match": {}, "error": "upstream exploded"}])
    with pytest.raises(LLMTransportError, match="upstream exploded"):
        await llm.complete(request(LayerVerdict))


@pytest.mark.anyio
async def test_cancelled_delay_is_counted_and_propagates() -> None:
    llm = ScriptedLLM.from_lines(
        [
            {"match": {"layer": "HL1"}, "json": says("slow"), "delay_ms": 60_000},
            {"match": {"layer": "HL4"}, "json": says("fast")},
        ]
    )
    async with anyio.create_task_group() as tg:
        for _ in range(3):
            tg.start_soon(llm.complete, request(LayerVerdict, layer="HL1"))
        await anyio.wait_all_tasks_blocked()
        assert await summary(llm, layer="HL4") == "fast"
        tg.cancel_scope.cancel()
    assert (llm.calls, llm.completed, llm.cancelled) == (4, 1, 3)


@pytest.mark.anyio
async def test_short_delay_completes() -> None:
    llm = ScriptedLLM.from_lines([{"match": {}, "json": says("ok"), "delay_ms": 1}])
    assert await summary(llm) == "ok"
    assert (llm.calls, llm.completed, llm.cancelled) == (1, 1, 0)
    assert llm.requests[-1].tags == {}


BAD_LINES = [
    ('{"match": {}, "json": {}', "not valid JSON"),
    ('["match"]', "must be a JSON object"),
    ('{"json": {}}', '"match" is required'),
    ('{"match": {"layr": "HL4"}, "json": {}}', "cannot match on ['layr']"),
    ('{"match": {"layer": ["HL4"]}, "json": {}}', '"match.layer" must be a string'),
    ('{"match": {}}', "exactly one reply"),
    ('{"match": {}, "json": {}, "text": "x"}', "exactly one reply"),
    ('{"match": {}, "text": 3}', '"text" must be a string'),
    ('{"match": {}, "json": {}, "delay_ms": -1}', '"delay_ms" must be a number >= 0'),
    ('{"match": {}, "json": {}, "usage": {"tokens": 1}}', '"usage" must be an object'),
    ('{"match": {}, "json": {}, "reply": 1}', "unknown key(s) ['reply']"),
]


@pytest.mark.parametrize(("line", "problem"), BAD_LINES)
def test_script_errors_name_the_line(line: str, problem: str) -> None:
    text = '# a comment\n{"match": {}, "json": {}}\n\n' + line + "\n"
    with pytest.raises(ScriptError) as caught:
        ScriptedLLM.from_text(text, source="demo.jsonl")
    assert caught.value.line == 4
    assert str(caught.value).startswith("demo.jsonl:4: ")
    assert problem in str(caught.value)
    assert isinstance(caught.value, ConfigError)


def test_empty_script_is_refused() -> None:
    with pytest.raises(ScriptError, match="no reply lines"):
        ScriptedLLM.from_text("# only a comment\n\n", source="empty.jsonl")


def test_from_lines_numbers_lines_from_one() -> None:
    with pytest.raises(ScriptError, match=r"<script>:2: "):
        ScriptedLLM.from_lines([{"match": {}, "json": {}}, {"match": {}}])


@pytest.mark.anyio
async def test_from_file(tmp_path: Path) -> None:
    script = tmp_path / "llm.jsonl"
    script.write_text('{"match": {"layer": "HL6"}, "json": {"findings": [], "summary": "pii"}}\n')
    llm = ScriptedLLM.from_file(script)
    assert await summary(llm, layer="HL6") == "pii"
    script.write_text('{"match": {}, "jsn": {}}\n')
    with pytest.raises(ScriptError, match="^" + re.escape(f"{script}:1: unknown key")):
        ScriptedLLM.from_file(script)
    with pytest.raises(ScriptError, match="cannot read the script"):
        ScriptedLLM.from_file(tmp_path / "missing.jsonl")
