"""The pipeline Supervisor alone (agents, no review layers): the Dev's change is reviewed
before anything is written, and refused paths go back to the agent."""

from __future__ import annotations

import os
from pathlib import Path

import msgspec
import pytest
from pipeline_run import POLICY, script_lines, scripted, subjects, worker_actors

from humangr.actors.pipeline.storage import ProjectStore
from humangr.contracts import (
    ActionSubmitted,
    AgentName,
    ConsensusResult,
    Finding,
    Handoff,
    HumanLayerReport,
    LayerID,
    LayerStatus,
    Outcome,
    ResponseStatus,
    Severity,
    VetoLevel,
    WorkOrder,
    decode,
    encode,
)
from humangr.engine.actor import ActorSystem
from humangr.engine.bus import Bus, Subscription

pytestmark = pytest.mark.anyio

DEV_TSK2 = {"agent": "dev", "mode": "implement_task", "task_id": "TSK-2"}


def dev_order(n: int, project: str = "sup") -> WorkOrder:
    return WorkOrder(
        order_id=f"wo-test-{n:04d}",
        project_id=project,
        agent=AgentName.DEV,
        mode="implement_task",
        task_id="TSK-2",
        task="Implement TSK-2.",
        inputs={"task_spec": "Settings from the environment."},
        attempt=n,
    )


def decision(
    submitted: ActionSubmitted,
    outcome: Outcome,
    *,
    digest: str | None = None,
    findings: list[Finding] | None = None,
) -> HumanLayerReport:
    layer = ConsensusResult(
        status=LayerStatus.FAIL if findings else LayerStatus.PASS,
        veto_level=VetoLevel.STRONG if findings else VetoLevel.NONE,
        merged_findings=findings or [],
    )
    return HumanLayerReport(
        report_id=f"rpt-{submitted.action_id}",
        action_id=submitted.action_id,
        agent_id=submitted.action.agent_id,
        action_hash=digest or submitted.action_hash or "",
        policy_version="test",
        outcome=outcome,
        final_veto_level=VetoLevel.STRONG if findings else VetoLevel.NONE,
        layer_results={LayerID.HL4: layer},
        blocking_reasons=["HL4 security: strong veto — Hard-coded key"] if findings else [],
    )


def written(store: ProjectStore) -> list[str]:
    """The project's files other than the Monitor's and the audit trail."""
    return [p for p in store.list() if not p.startswith("docs/monitor/")]


async def next_of(sub: Subscription, kind: type[object]) -> object:
    return decode((await sub.__anext__()).data, kind)


async def test_the_dev_change_is_reviewed_before_anything_is_written(
    bus: Bus, tmp_path: Path
) -> None:
    subj = subjects()
    store = ProjectStore(tmp_path, "sup")
    system = ActorSystem(bus, subjects=subj, policy=POLICY)
    system.add(*worker_actors(tmp_path, scripted()))
    async with (
        system.running(),
        bus.subscribe(subj.agent_submits) as submits,
        bus.subscribe(subj.handoff("sup")) as handoffs,
    ):
        await bus.publish(subj.work_order, encode(dev_order(1)))
        first = await next_of(submits, ActionSubmitted)
        assert isinstance(first, ActionSubmitted)
        assert first.action.agent_id == "dev-sup"
        assert "+AWS_ACCESS_KEY_ID" in (first.action.code_diff or "")
        assert "new file mode" in (first.action.code_diff or "")
        assert sorted(first.action.affected_files) == [
            "apps/converter/credentials_inline.py",
            "apps/converter/settings.py",
            "docs/dev/dev_implementation_TSK-2.md",
        ]
        assert written(store) == [], "nothing may be written before the decision"

        forged = decision(first, Outcome.APPROVED, digest="0" * 64)
        await bus.publish(subj.decision("dev-sup"), encode(forged))
        finding = Finding(
            id="f1",
            layer_id=LayerID.HL4,
            severity=Severity.CRITICAL,
            title="Hard-coded secret: AWS credential",
            file="apps/converter/settings.py",
            line=4,
        )
        await bus.publish(
            subj.decision("dev-sup"), encode(decision(first, Outcome.REJECTED, findings=[finding]))
        )
        rejected = await next_of(handoffs, Handoff)
        assert isinstance(rejected, Handoff)
        assert (rejected.from_, rejected.to, rejected.decision_outcome) == (
            AgentName.DEV,
            AgentName.DEV,
            "rejected",
        )
        assert rejected.findings == [finding]
        assert "strong veto" in rejected.reason
        assert rejected.code_refs == []
        assert written(store) == [], "a rejected attempt (or a forged approval) writes nothing"

        await bus.publish(subj.work_order, encode(dev_order(2)))
        second = await next_of(submits, ActionSubmitted)
        assert isinstance(second, ActionSubmitted)
        assert written(store) == []
        await bus.publish(subj.decision("dev-sup"), encode(decision(second, Outcome.APPROVED)))
        approved = await next_of(handoffs, Handoff)
    assert isinstance(approved, Handoff)
    assert (approved.to, approved.decision_outcome) == (AgentName.QA, "approved")
    assert (
        sorted(approved.code_refs)
        == written(store)
        == [
            "apps/converter/settings.py",
            "docs/dev/dev_implementation_TSK-2.md",
        ]
    )
    assert "os.environ" in store.read("apps/converter/settings.py")


async def test_a_path_the_store_refuses_goes_back_to_the_agent_then_blocks(
    bus: Bus, tmp_path: Path
) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (tmp_path / "sym").mkdir()
    os.symlink(outside, tmp_path / "sym" / "apps")
    llm = scripted([line for line in script_lines() if line["match"] == DEV_TSK2])
    subj = subjects()
    system = ActorSystem(bus, subjects=subj, policy=POLICY)
    system.add(*worker_actors(tmp_path, llm))
    async with (
        system.running(),
        bus.subscribe(subj.agent_submits) as submits,
        bus.subscribe(subj.handoff("sym")) as handoffs,
    ):
        await bus.publish(subj.work_order, encode(dev_order(1, "sym")))
        blocked = await next_of(handoffs, Handoff)
        assert submits.pending == 0
    assert isinstance(blocked, Handoff)
    assert blocked.status is ResponseStatus.BLOCKED
    assert "apps is a symlink" in blocked.reason
    sent = [r for r in llm.requests if r.tags.get("agent") == "dev"]
    assert len(sent) == 3, "the first request and two re-requests with the error"
    assert "write_error" not in sent[0].messages[0].content
    assert all("apps is a symlink" in r.messages[0].content for r in sent[1:])
    assert list(outside.iterdir()) == []


async def test_agent_artifacts_under_docs_monitor_are_refused(bus: Bus, tmp_path: Path) -> None:
    line = next(line for line in script_lines() if line["match"].get("agent") == "cto")
    forged = {
        "path": "docs/monitor/TASK_STATE.json",
        "content": "{}",
        "format": "json",
        "purpose": "forge the state",
    }
    line["json"]["artifacts"].append(forged)
    llm = scripted([line])
    subj = subjects()
    system = ActorSystem(bus, subjects=subj, policy=POLICY)
    system.add(*worker_actors(tmp_path, llm))
    order = WorkOrder(
        order_id="wo-test-0001",
        project_id="mon",
        agent=AgentName.CTO,
        mode="spec_intake_and_normalize",
        inputs={"spec_raw": "A converter."},
    )
    async with system.running(), bus.subscribe(subj.handoff("mon")) as handoffs:
        await bus.publish(subj.work_order, encode(order))
        blocked = await next_of(handoffs, Handoff)
    assert isinstance(blocked, Handoff)
    assert blocked.status is ResponseStatus.BLOCKED
    assert "written by the Monitor only" in blocked.reason
    assert written(ProjectStore(tmp_path, "mon")) == []


async def test_needs_review_waits_for_the_final_decision_before_writing(
    bus: Bus, tmp_path: Path
) -> None:
    llm = scripted([line for line in script_lines() if line["match"] == DEV_TSK2])
    subj = subjects()
    store = ProjectStore(tmp_path, "hum")
    system = ActorSystem(bus, subjects=subj, policy=POLICY)
    system.add(*worker_actors(tmp_path, llm))
    async with (
        system.running(),
        bus.subscribe(subj.agent_submits) as submits,
        bus.subscribe(subj.handoff("hum")) as handoffs,
    ):
        await bus.publish(subj.work_order, encode(dev_order(1, "hum")))
        submitted = await next_of(submits, ActionSubmitted)
        assert isinstance(submitted, ActionSubmitted)
        pending = msgspec.structs.replace(
            decision(submitted, Outcome.APPROVED),
            outcome=Outcome.NEEDS_REVIEW,
            blocking_reasons=["HL2 functionality: layer error"],
        )
        await bus.publish(subj.decision("dev-hum"), encode(pending))
        waiting = await next_of(handoffs, Handoff)
        assert isinstance(waiting, Handoff)
        assert (waiting.decision_outcome, waiting.to) == ("needs_review", AgentName.MONITOR)
        assert written(store) == []
        resolved = msgspec.structs.replace(
            pending, outcome=Outcome.APPROVED, resolved_by="reviewer-1"
        )
        await bus.publish(subj.decision("dev-hum"), encode(resolved))
        final = await next_of(handoffs, Handoff)
    assert isinstance(final, Handoff)
    assert (final.decision_outcome, final.to) == ("approved", AgentName.QA)
    assert sorted(final.code_refs) == written(store)
    assert "apps/converter/credentials_inline.py" in final.code_refs
