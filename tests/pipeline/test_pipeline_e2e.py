"""The shipped scenario end to end, over MemoryBus and a real NatsBus alike."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from pipeline_run import follow, pipeline_engine, script_lines, scripted, start_of, subjects

from humangr.actors.pipeline.audit import AuditLog
from humangr.actors.pipeline.storage import ProjectStore
from humangr.contracts import AgentName, Limits, Outcome, ResponseStatus, TaskStatus
from humangr.engine.bus import Bus
from humangr.engine.llm import ScriptedLLM

pytestmark = pytest.mark.anyio

SECRET = "AKIAZ7VQ3KDLM5TRX2PB"
R = ResponseStatus


def secret_attempt(task_id: str) -> dict[str, Any]:
    """The scenario's first TSK-2 attempt (hard-coded AWS key), as an answer for ``task_id``."""
    line = next(
        line
        for line in script_lines()
        if line["match"] == {"agent": "dev", "mode": "implement_task", "task_id": "TSK-2"}
    )
    reply = json.loads(json.dumps(line["json"]).replace("TSK-2", task_id))
    return {"match": {**line["match"], "task_id": task_id}, "json": reply}


def all_text(root: Path) -> str:
    return "\n".join(p.read_text(errors="replace") for p in root.rglob("*") if p.is_file())


def requests_of(llm: ScriptedLLM, agent: str, task_id: str | None = None) -> list[str]:
    return [
        "\n".join(m.content for m in r.messages)
        for r in llm.requests
        if r.tags.get("agent") == agent
        and r.tags.get("repair") is None
        and (task_id is None or r.tags.get("task_id") == task_id)
    ]


async def test_the_scripted_scenario_ends_done_and_records_what_happened(
    bus: Bus, tmp_path: Path
) -> None:
    llm = scripted()
    subj = subjects()
    async with pipeline_engine(bus, tmp_path, llm, subj):
        trace = await follow(bus, subj, "demo", start=start_of("demo"), handoffs_expected=14)
    assert trace.final.state == "done", trace.final.message
    assert [t.status for t in trace.final.tasks] == [TaskStatus.DONE, TaskStatus.DONE]
    stages = [s.stage for s in trace.statuses]
    assert stages.count("engineer_docs") == 2, "one CTO REVISION round"

    # task 2, attempt 1: HL4's local checks reject the hard-coded key; nothing of it is written
    rejected = [d for d in trace.decisions if d.outcome is Outcome.REJECTED]
    assert len(rejected) == 1
    assert any(r.startswith("HL4 security: strong veto") for r in rejected[0].blocking_reasons)
    assert [d.outcome for d in trace.decisions].count(Outcome.APPROVED) == 3
    assert SECRET not in all_text(tmp_path)
    assert not (tmp_path / "demo/apps/converter/credentials_inline.py").exists()

    # hand-offs: rejected → dev with the findings; dev → qa with the written paths;
    # qa → dev with the QA report
    by_dev = [h for h in trace.handoffs if h.from_ is AgentName.DEV]
    assert [(h.to, h.decision_outcome) for h in by_dev] == [
        (AgentName.QA, "approved"),
        (AgentName.DEV, "rejected"),
        (AgentName.QA, "approved"),
        (AgentName.QA, "approved"),
    ]
    findings = by_dev[1].findings
    assert any(
        f.layer_id == "HL4" and f.severity == "critical" and "AWS" in f.title for f in findings
    )
    for handoff in (by_dev[0], by_dev[2], by_dev[3]):
        assert handoff.code_refs
        assert all((tmp_path / "demo" / p).is_file() for p in handoff.code_refs)
    assert "apps/converter/test_settings.py" in by_dev[3].code_refs
    qa_fail = next(h for h in trace.handoffs if h.status is R.QA_FAIL)
    assert qa_fail.to is AgentName.DEV
    assert "KeyError" in qa_fail.report

    # the Dev's reworks carried the findings, then the QA report; QA saw the written code
    dev2 = requests_of(llm, "dev", "TSK-2")
    assert len(dev2) == 3
    assert "Hard-coded secret" in dev2[1]
    assert "KeyError" in dev2[2]
    assert "def load_settings" in requests_of(llm, "qa", "TSK-2")[0]

    # the files on disk: status, state, audit
    store = ProjectStore(tmp_path, "demo")
    state = json.loads(store.read("docs/monitor/TASK_STATE.json"))
    assert state["state"] == "done"
    assert [(t["task_id"], t["status"], t["attempt"], t["rework"]) for t in state["tasks"]] == [
        ("TSK-1", "done", 1, 0),
        ("TSK-2", "done", 3, 2),
    ]
    status = store.read("docs/monitor/STATUS.md")
    assert "**State:** done" in status
    assert "**Next owner:** human" in status
    assert "review rejected" in status
    records = AuditLog(store).read()
    assert len(records) == 14
    assert all(r.validator_pass for r in records)
    assert [r.agent for r in records].count(AgentName.DEV) == 4
    assert store.exists("docs/qa/QA_REPORT_TSK-2.md")
    assert "SettingsError" in store.read("apps/converter/settings.py")


async def test_the_rework_limit_ends_blocked_with_escalation_never_done(
    bus: Bus, tmp_path: Path
) -> None:
    lines = script_lines(
        drop=lambda m: m.get("agent") == "dev" and m.get("task_id") == "TSK-1",
        extra=[secret_attempt("TSK-1")],
    )
    llm = scripted(lines)
    subj = subjects()
    async with pipeline_engine(bus, tmp_path, llm, subj):
        trace = await follow(
            bus, subj, "blk", start=start_of("blk", Limits(max_rework=1)), handoffs_expected=9
        )
    final = trace.final
    assert final.state == "blocked"
    assert final.next_owner == "cto"
    assert "rework limit reached" in final.message
    assert [t.status for t in final.tasks] == [TaskStatus.BLOCKED, TaskStatus.NEW]
    assert all(s.state != "done" for s in trace.statuses)
    assert [d.outcome for d in trace.decisions] == [Outcome.REJECTED, Outcome.REJECTED]
    store = ProjectStore(tmp_path, "blk")
    assert store.list("apps") == []
    status = store.read("docs/monitor/STATUS.md")
    assert "**State:** blocked" in status
    assert "**Blocked:** owner cto" in status
    assert json.loads(store.read("docs/monitor/TASK_STATE.json"))["pending"] is None
