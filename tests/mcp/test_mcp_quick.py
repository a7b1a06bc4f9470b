"""The MCP server in process (``mcp.Client`` over the SDK's in-memory transport): quick checks
with a scripted LLM, fail-closed errors, and the pure helpers."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import anyio
import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError
from mcp.types import INVALID_PARAMS
from mcp_helpers import CLEAN_DIFF, EVAL_DIFF, data, resource_json

from humangr.contracts import LayerID, LayerStatus, ReviewFinding, Severity, Subjects, VetoLevel
from humangr.contracts.types import MAX_DIFF_BYTES
from humangr.engine.bus import MemoryBus
from humangr.engine.config import ReviewConfig
from humangr.engine.llm import LLMClient, ScriptedLLM
from humangr.engine.review import GateSettings, error_run, make_run
from humangr.mcp import HumanLayerMCP, NatsBackend, quick_verdict
from humangr.mcp.backend import redact_url
from humangr.mcp.quick import quick_layer
from humangr.mcp.resources import parse_layer_uri, thresholds_document
from humangr.mcp.schemas import QuickLayer
from humangr.mcp.serve import open_backend

pytestmark = pytest.mark.anyio


@asynccontextmanager
async def client_for(
    llm: LLMClient | None = None, config: ReviewConfig | None = None
) -> AsyncIterator[tuple[Client, HumanLayerMCP]]:
    async with open_backend(config or ReviewConfig(layer_deadline_s=10), llm) as backend:
        app = HumanLayerMCP(backend, llm, "scripted" if llm else "none")
        async with Client(app.server()) as client:
            yield client, app


def findings(*items: tuple[str, str, int]) -> dict[str, Any]:
    return {
        "json": {
            "findings": [
                {"severity": sev, "title": title, "file": "app.py", "line": line}
                for sev, title, line in items
            ]
        }
    }


async def test_test_action_runs_one_llm_run_per_chosen_layer() -> None:
    llm = ScriptedLLM.from_lines(
        [
            {"match": {"layer": "HL4"}, **findings(("medium", "Input not length-checked", 6))},
            {"match": {"layer": "HL2"}, "error": "upstream overloaded"},
            {"match": {}, "json": {"findings": []}},
        ]
    )
    with anyio.fail_after(10):
        async with client_for(llm) as (client, _):
            result = data(
                await client.call_tool(
                    "test_action",
                    {
                        "action_description": "tidy",
                        "code_diff": CLEAN_DIFF,
                        "layers": ["HL2", "HL4"],
                    },
                )
            )
    assert result["verdict"] == "warn"
    assert result["layers"]["HL4"] == {
        "status": "warn",
        "veto_level": "none",
        "findings": 1,
        "llm_runs": 1,
        "error": None,
    }
    assert result["layers"]["HL2"]["status"] == "error"
    assert "upstream overloaded" in result["layers"]["HL2"]["error"]
    assert {(f["layer_id"], f["source"]) for f in result["findings"]} == {("HL4", "llm")}
    assert sorted(r.tags["layer"] for r in llm.requests) == ["HL2", "HL4"]


async def test_test_action_fails_on_a_high_llm_finding_and_merges_local_checks() -> None:
    llm = ScriptedLLM.from_lines(
        [
            {"match": {"layer": "HL4"}, **findings(("high", "Code injection via eval", 6))},
            {"match": {}, "json": {"findings": []}},
        ]
    )
    with anyio.fail_after(10):
        async with client_for(llm) as (client, _):
            result = data(
                await client.call_tool(
                    "test_action",
                    {
                        "action_description": "calc",
                        "code_diff": EVAL_DIFF,
                        "layers": ["HL4", "HL7"],
                    },
                )
            )
    assert result["verdict"] == "fail"
    assert result["layers"]["HL4"]["veto_level"] == "strong", "the critical rule finding"
    assert {f["source"] for f in result["findings"]} == {"rules", "llm"}
    hl7 = next(r for r in llm.requests if r.tags["layer"] == "HL7")
    assert "eval/exec of request input" in "".join(b.text for b in hl7.system)


async def test_validate_without_a_decision_is_an_error_never_an_approval() -> None:
    async with MemoryBus() as bus:
        backend = NatsBackend(bus, Subjects("nobody"), ReviewConfig(), "nats test", timeout=0.2)
        app = HumanLayerMCP(backend, None, "none")
        with anyio.fail_after(10):
            async with Client(app.server()) as client:
                result = await client.call_tool(
                    "validate",
                    {
                        "agent_id": "a",
                        "action_type": "shell",
                        "action_description": "rm -rf /tmp/x",
                    },
                )
                assert result.is_error
                text = " ".join(getattr(c, "text", "") for c in result.content)
                assert "NOT approved" in text
                assert result.structured_content is None
                stats = resource_json(await client.read_resource("human_layer://stats/summary"))
    assert stats["validate_errors"] == 1
    assert stats["decisions_total"] == 0


async def test_an_oversized_diff_is_refused_before_review() -> None:
    with anyio.fail_after(10):
        async with client_for(config=ReviewConfig(max_diff_bytes=64)) as (client, app):
            with pytest.raises(MCPError) as refused:
                await client.call_tool(
                    "validate",
                    {
                        "agent_id": "a",
                        "action_type": "code_diff",
                        "action_description": "big",
                        "code_diff": EVAL_DIFF,
                    },
                )
            assert refused.value.code == INVALID_PARAMS
            assert "$.code_diff" in refused.value.message
            assert "the limit is 64" in refused.value.message
            assert app.stats.summary().decisions_total == 0


@pytest.mark.parametrize(
    ("diff", "size"),
    [
        ("+x\n" * (MAX_DIFF_BYTES // 3 + 1), MAX_DIFF_BYTES // 3 * 3 + 3),
        ("+" + "é" * (MAX_DIFF_BYTES // 2), MAX_DIFF_BYTES + 1),
    ],
    ids=["bytes", "multibyte-within-the-character-limit"],
)
async def test_the_default_limit_is_max_diff_bytes_in_utf8_bytes(diff: str, size: int) -> None:
    assert len(diff.encode()) == size > MAX_DIFF_BYTES
    with anyio.fail_after(20):
        async with client_for() as (client, app):
            for tool, arguments in (
                ("validate", {"agent_id": "a", "action_type": "code_diff"}),
                ("test_action", {}),
            ):
                with pytest.raises(MCPError) as refused:
                    await client.call_tool(
                        tool, {**arguments, "action_description": "big", "code_diff": diff}
                    )
                assert refused.value.code == INVALID_PARAMS
                assert "$.code_diff" in refused.value.message
                limit = re.search(r"(?:the limit is |<= )([\d,]+)", refused.value.message)
                assert limit is not None, refused.value.message
                assert int(limit.group(1).replace(",", "")) == MAX_DIFF_BYTES
            assert app.stats.summary().decisions_total == 0


@pytest.mark.parametrize(
    ("tool", "arguments", "problem"),
    [
        (
            "validate",
            {"agent_id": "a", "action_type": "code_diff", "action_description": "x"},
            "code_diff is empty",
        ),
        (
            "validate",
            {
                "agent_id": "a",
                "action_type": "code_diff",
                "action_description": "x",
                "code_diff": "\n \n",
            },
            "code_diff is empty",
        ),
        (
            "validate",
            {"agent_id": "a", "action_type": "shell", "action_description": " \n "},
            "nothing to review",
        ),
        ("test_action", {"action_description": "x", "code_diff": "\n\n"}, "code_diff is empty"),
        ("test_action", {"action_description": "   "}, "nothing to review"),
    ],
)
async def test_an_action_with_nothing_to_review_is_refused(
    tool: str, arguments: dict[str, Any], problem: str
) -> None:
    with anyio.fail_after(10):
        async with client_for() as (client, app):
            with pytest.raises(MCPError) as refused:
                await client.call_tool(tool, arguments)
            assert refused.value.code == INVALID_PARAMS
            assert problem in refused.value.message
            assert app.stats.summary().decisions_total == 0


@pytest.mark.parametrize(
    ("tool", "arguments", "path"),
    [
        (
            "validate",
            {"agent_id": "a", "action_type": "code_diff", "action_description": "x", "diff": "+"},
            "diff",
        ),
        ("test_action", {"action_description": "x", "layer": ["HL4"]}, "layer"),
        ("get_report", {"report_id": "r", "approve": True}, "approve"),
        ("list_layers", {"all": True}, "all"),
    ],
)
async def test_an_unknown_argument_is_refused_and_named(
    tool: str, arguments: dict[str, Any], path: str
) -> None:
    with anyio.fail_after(10):
        async with client_for() as (client, app):
            with pytest.raises(MCPError) as refused:
                await client.call_tool(tool, arguments)
            assert refused.value.code == INVALID_PARAMS
            assert f"unknown field `{path}`" in refused.value.message
            assert app.stats.summary().decisions_total == 0


def quick(status: LayerStatus, veto: VetoLevel = VetoLevel.NONE) -> QuickLayer:
    return QuickLayer(status=status, veto_level=veto)


def test_quick_verdict_rules() -> None:
    clean = make_run(LayerID.HL2, 1, [])
    assert quick_verdict({LayerID.HL2: quick(LayerStatus.PASS)}, clean.findings) == "pass"
    assert quick_verdict({}, []) == "pass"
    medium = make_run(LayerID.HL5, 1, [_finding("medium")])
    assert quick_verdict({LayerID.HL5: quick(LayerStatus.WARN)}, medium.findings) == "warn"
    high = make_run(LayerID.HL1, 1, [_finding("high")])
    assert high.veto_level is VetoLevel.WEAK
    assert (
        quick_verdict({LayerID.HL1: quick(LayerStatus.FAIL, VetoLevel.WEAK)}, high.findings)
        == "fail"
    )
    assert quick_verdict({LayerID.HL4: quick(LayerStatus.PASS, VetoLevel.MEDIUM)}, []) == "fail"
    assert quick_verdict({LayerID.HL4: quick(LayerStatus.ERROR)}, []) == "warn"


def test_a_failed_llm_run_keeps_its_rule_findings_and_is_not_clean() -> None:
    rules = make_run(LayerID.HL4, 1, [_finding("critical")]).findings
    layer, merged = quick_layer(LayerID.HL4, rules, error_run(LayerID.HL4, 1, "timeout"))
    assert layer.status is LayerStatus.ERROR
    assert layer.veto_level is VetoLevel.STRONG
    assert merged == rules
    assert quick_verdict({LayerID.HL4: layer}, merged) == "fail"


def _finding(severity: str) -> ReviewFinding:
    return ReviewFinding(severity=Severity(severity), title=f"a {severity} problem")


def test_thresholds_follow_the_settings_in_force() -> None:
    config = ReviewConfig(
        gate=GateSettings(rejecting_mediums=3), layers=(LayerID.HL4,), unsafe_policy=True
    )
    doc = thresholds_document(config, "in-process")
    assert "3 or more layers with a medium veto -> rejected" in doc["gate"]["rules"]
    assert doc["review"]["layers"] == ["HL4"]
    assert (
        doc["policy_version"] != thresholds_document(ReviewConfig(), "in-process")["policy_version"]
    )


def test_layer_uris_and_redacted_urls() -> None:
    assert parse_layer_uri("human_layer://layers/hl6") is LayerID.HL6
    assert parse_layer_uri("human_layer://config/thresholds") is None
    with pytest.raises(ValueError, match="unknown layer 'HL0'"):
        parse_layer_uri("human_layer://layers/HL0")
    assert redact_url("nats://user:secret@10.0.0.1:4222") == "nats://***@10.0.0.1:4222"
    assert redact_url("tls://token@[::1]") == "tls://***@[::1]"
    assert redact_url("nats://127.0.0.1:4222") == "nats://127.0.0.1:4222"
