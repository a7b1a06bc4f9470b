"""The MCP server in process (``mcp.Client`` over the SDK's in-memory transport): quick checks
with a scripted LLM, fail-closed errors, and the pure helpers."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import anyio
import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError
from mcp_helpers import CLEAN_DIFF, EVAL_DIFF, data, resource_json

from humangr.contracts import LayerID, LayerStatus, ReviewFinding, Severity, Subjects, VetoLevel
from humangr.engine.bus import MemoryBus
from humangr.engine.config import ReviewConfig
from humangr.engine.llm import LLMClient, ScriptedLLM
from humangr.engine.mcp import HumanLayerMCP, NatsBackend, quick_verdict
from humangr.engine.mcp.backend import redact_url
from humangr.engine.mcp.quick import quick_layer
from humangr.engine.mcp.resources import parse_layer_uri, thresholds_document
from humangr.engine.mcp.schemas import QuickLayer
from humangr.engine.mcp.serve import open_backend
from humangr.engine.review import GateSettings, error_run, make_run

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
            assert "over the limit of 64" in refused.value.message
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
    assert redact_url("nats://user:secret@10.0.0.1:4222") == "nats://10.0.0.1:4222"
    assert redact_url("tls://token@[::1]") == "tls://[::1]"
    assert redact_url("nats://127.0.0.1:4222") == "nats://127.0.0.1:4222"
