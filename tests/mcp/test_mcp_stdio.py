"""Acceptance: ``humangr mcp`` over stdio, driven by the ``mcp`` client library (no LLM)."""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest
from mcp.shared.exceptions import MCPError
from mcp_helpers import CLEAN_DIFF, EVAL_DIFF, TIMEOUT, data, mcp_session, resource_json

pytestmark = pytest.mark.anyio

INVALID_PARAMS = -32602


def validate_args(diff: str, agent: str = "claude-code") -> dict[str, object]:
    return {
        "agent_id": agent,
        "action_type": "code_diff",
        "action_description": "Add a calculator endpoint.",
        "code_diff": diff,
        "affected_files": ["app.py"],
    }


async def test_validate_rejects_eval_of_request_input_and_report_and_stats_agree(
    tmp_path: Path,
) -> None:
    with (tmp_path / "server.log").open("w+") as errlog, anyio.fail_after(TIMEOUT):
        async with mcp_session("--llm", "none", errlog=errlog) as session:
            decision = data(await session.call_tool("validate", validate_args(EVAL_DIFF)))
            assert decision["outcome"] in ("rejected", "needs_review")
            assert decision["outcome"] == "rejected", "a strong HL4 veto rejects"
            assert decision["final_veto_level"] == "strong"
            hl4 = decision["layer_results"]["HL4"]
            assert hl4["status"] == "fail"
            assert hl4["veto_level"] == "strong"
            assert any(
                f["file"] == "app.py" and f["line"] == 6 and "eval" in f["title"]
                for f in hl4["merged_findings"]
            ), hl4["merged_findings"]
            assert any("app.py:6" in reason for reason in decision["blocking_reasons"])
            assert len(decision["action_hash"]) == 64

            report = data(
                await session.call_tool("get_report", {"report_id": decision["report_id"]})
            )
            assert report == decision
            by_action = data(
                await session.call_tool("get_report", {"report_id": decision["action_id"]})
            )
            assert by_action["report_id"] == decision["report_id"]

            clean = data(await session.call_tool("validate", validate_args(CLEAN_DIFF, "agent-2")))
            assert clean["outcome"] == "approved"
            assert clean["report_id"] != decision["report_id"]

            with pytest.raises(MCPError) as missing:
                await session.call_tool("get_report", {"report_id": "rpt-does-not-exist"})
            assert missing.value.code == INVALID_PARAMS
            assert "not found" in missing.value.message
            assert "rpt-does-not-exist" in missing.value.message

            stats = resource_json(await session.read_resource("human_layer://stats/summary"))
            assert stats["mode"] == "in-process"
            assert stats["decisions_total"] == 2
            assert stats["decisions_by_outcome"] == {
                "approved": 1,
                "rejected": 1,
                "needs_review": 0,
            }
            assert stats["validate_errors"] == 0


async def test_tools_resources_and_argument_errors(tmp_path: Path) -> None:
    with (tmp_path / "server.log").open("w+") as errlog, anyio.fail_after(TIMEOUT):
        async with mcp_session("--llm", "none", errlog=errlog) as session:
            tools = {tool.name: tool for tool in (await session.list_tools()).tools}
            assert set(tools) == {"validate", "test_action", "get_report", "list_layers"}
            schema = tools["validate"].input_schema
            assert schema["type"] == "object"
            assert set(schema["required"]) == {"agent_id", "action_type", "action_description"}
            assert {"code_diff", "affected_files"} <= set(schema["properties"])
            assert schema["properties"]["action_description"]["maxLength"] == 20_000
            assert tools["get_report"].input_schema["required"] == ["report_id"]

            uris = {str(r.uri) for r in (await session.list_resources()).resources}
            assert {
                "human_layer://layers",
                "human_layer://config/thresholds",
                "human_layer://stats/summary",
                "human_layer://layers/HL4",
            } <= uris
            templates = (await session.list_resource_templates()).resource_templates
            assert [t.uri_template for t in templates] == ["human_layer://layers/{id}"]

            layers = data(await session.call_tool("list_layers", {}))["layers"]
            assert [layer["id"] for layer in layers] == [f"HL{n}" for n in range(1, 8)]
            assert {layer["id"]: layer["veto_power"] for layer in layers}["HL4"] == "strong"
            listed = resource_json(await session.read_resource("human_layer://layers"))
            assert listed["layers"] == layers

            hl4 = resource_json(await session.read_resource("human_layer://layers/HL4"))
            assert hl4["id"] == "HL4"
            assert hl4["veto_power"] == "strong"
            assert "security" in hl4["focus"]

            thresholds = resource_json(
                await session.read_resource("human_layer://config/thresholds")
            )
            assert len(thresholds["policy_version"]) >= 16
            assert thresholds["consensus"]["runs_per_layer"] == 3
            assert thresholds["gate"]["rejecting_mediums"] == 2
            assert "any layer with a strong veto -> rejected" in thresholds["gate"]["rules"]

            with pytest.raises(MCPError) as missing:
                await session.call_tool("validate", {"agent_id": "a", "action_type": "code_diff"})
            assert missing.value.code == INVALID_PARAMS
            assert "action_description" in missing.value.message
            assert "validate" in missing.value.message

            with pytest.raises(MCPError) as invalid:
                await session.call_tool(
                    "validate", {**validate_args(CLEAN_DIFF), "agent_id": "a b"}
                )
            assert "$.agent_id" in invalid.value.message

            with pytest.raises(MCPError) as unknown:
                await session.call_tool("approve_everything", {})
            assert unknown.value.code == INVALID_PARAMS
            assert "unknown tool 'approve_everything'" in unknown.value.message

            with pytest.raises(MCPError) as no_layer:
                await session.read_resource("human_layer://layers/HL9")
            assert "unknown layer 'HL9'" in no_layer.value.message

            stats = resource_json(await session.read_resource("human_layer://stats/summary"))
            assert stats["decisions_total"] == 0, "refused calls are not decisions"


async def test_test_action_gives_quick_verdicts_from_local_checks(tmp_path: Path) -> None:
    with (tmp_path / "server.log").open("w+") as errlog, anyio.fail_after(TIMEOUT):
        async with mcp_session("--llm", "none", errlog=errlog) as session:
            bad = data(
                await session.call_tool(
                    "test_action",
                    {"action_description": "calculator", "code_diff": EVAL_DIFF, "layers": ["HL4"]},
                )
            )
            assert bad["verdict"] == "fail"
            assert list(bad["layers"]) == ["HL4"]
            assert bad["layers"]["HL4"]["llm_runs"] == 0
            assert [(f["layer_id"], f["file"], f["line"]) for f in bad["findings"]] == [
                ("HL4", "app.py", 6)
            ]
            good = data(
                await session.call_tool(
                    "test_action", {"action_description": "rename", "code_diff": CLEAN_DIFF}
                )
            )
            assert good["verdict"] == "pass"
            assert set(good["layers"]) == {f"HL{n}" for n in range(1, 8)}
            assert good["findings"] == []

            with pytest.raises(MCPError) as bad_layer:
                await session.call_tool(
                    "test_action", {"action_description": "x", "layers": ["HL8"]}
                )
            assert "$.layers[0]" in bad_layer.value.message

            stats = resource_json(await session.read_resource("human_layer://stats/summary"))
            assert stats["quick_checks_by_verdict"] == {"pass": 1, "warn": 0, "fail": 1}
            assert stats["decisions_total"] == 0
