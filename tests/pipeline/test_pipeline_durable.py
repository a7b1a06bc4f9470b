"""The pipeline Supervisor restarted at each point of an order (its records in a state store
that outlives it): nothing is lost, nothing runs or is written twice, a decision taken while it
was down is acted on, and an order the project no longer waits for writes nothing."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, TypeVar

import anyio
import msgspec
import pytest
from pipeline_run import POLICY, SPEC, script_lines, scripted, subjects

from humangr.actors.pipeline.agent import agent_actors
from humangr.actors.pipeline.ledger import WorkLedger
from humangr.actors.pipeline.storage import ProjectStore
from humangr.actors.pipeline.supervisor import PipelineSupervisor
from humangr.actors.roles import run_engine
from humangr.contracts import (
    ActionSubmitted,
    AgentName,
    AgentResult,
    DeadLetter,
    Handoff,
    HumanLayerReport,
    MessageEnvelope,
    Outcome,
    ReportReply,
    ResponseEnvelope,
    ResponseStatus,
    Subjects,
    VetoLevel,
    WorkOrder,
    decode,
    encode,
)
from humangr.engine.actor import ActorSystem
from humangr.engine.bus import Bus, Subscription
from humangr.engine.enforcer import BreakerStore
from humangr.engine.llm import ScriptedLLM
from humangr.engine.pipeline import ProjectState, encode_state
from humangr.engine.state import MemoryStateStore, StateStore

pytestmark = pytest.mark.anyio
T = TypeVar("T")
PROJECT = "dur"
SPEC_PATH = "docs/spec/PRODUCT_SPEC.md"
DEV_TSK1 = {"agent": "dev", "mode": "implement_task", "task_id": "TSK-1"}


def spec_order() -> WorkOrder:
    return WorkOrder(
        order_id="wo-dur-0001",
        project_id=PROJECT,
        agent=AgentName.CTO,
        mode="spec_intake_and_normalize",
        task="Normalize the spec.",
        inputs={"spec_raw": SPEC.read_text()},
    )


def dev_order() -> WorkOrder:
    return WorkOrder(
        order_id="wo-dur-0002",
        project_id=PROJECT,
        agent=AgentName.DEV,
        mode="implement_task",
        task_id="TSK-1",
        task="Implement TSK-1.",
        inputs={"task_spec": "Convert Celsius to Fahrenheit and back."},
    )


def golden(match: dict[str, str]) -> dict[str, Any]:
    data: dict[str, Any] = next(line for line in script_lines() if line["match"] == match)["json"]
    return data


def layer_lines(delay_ms: int = 0) -> list[Any]:
    return [{**line, "delay_ms": delay_ms} for line in script_lines() if "layer" in line["match"]]


async def next_of(sub: Subscription, kind: type[T], timeout: float = 10) -> T:
    with anyio.fail_after(timeout):
        return decode((await sub.__anext__()).data, kind)


async def nothing_more(sub: Subscription, wait: float = 0.5) -> bool:
    await anyio.sleep(wait)
    return sub.pending == 0


@asynccontextmanager
async def supervisor(
    bus: Bus, subj: Subjects, root: Path, store: StateStore, llm: ScriptedLLM | None = None
) -> AsyncIterator[None]:
    """One life of the pipeline Supervisor (and, with ``llm``, the agents) on ``store``."""
    system = ActorSystem(bus, subjects=subj, policy=POLICY)
    agents = agent_actors(llm, breakers=BreakerStore()) if llm is not None else []
    system.add(
        *agents,
        PipelineSupervisor(root, state=store, recover_interval=0.2, report_timeout=1.0),
    )
    async with system.running():
        yield


def written(root: Path) -> list[str]:
    """The project's files other than the Monitor's and the audit trail."""
    return [p for p in ProjectStore(root, PROJECT).list() if not p.startswith("docs/monitor/")]


def calls(llm: ScriptedLLM, agent: str) -> int:
    return sum(1 for r in llm.requests if r.tags.get("agent") == agent)


def result_for(request: MessageEnvelope, reply: dict[str, Any]) -> AgentResult:
    return AgentResult(
        request_id=request.request_id,
        project_id=request.project_id,
        agent=request.agent,
        mode=request.mode,
        task_id=request.task_id,
        envelope=msgspec.convert(reply, ResponseEnvelope),
        validator_pass=True,
    )


def decided(
    submitted: ActionSubmitted, outcome: Outcome, by: str | None = None
) -> HumanLayerReport:
    return HumanLayerReport(
        report_id=f"rpt-{submitted.action_id}",
        action_id=submitted.action_id,
        agent_id=submitted.action.agent_id,
        action_hash=submitted.action_hash or "",
        policy_version="test",
        outcome=outcome,
        final_veto_level=VetoLevel.MEDIUM if outcome is Outcome.NEEDS_REVIEW else VetoLevel.NONE,
        blocking_reasons=["HL2 functionality: medium veto"]
        if by or outcome is not Outcome.APPROVED
        else [],
        resolved_by=by,
    )


async def test_an_order_issued_again_is_answered_with_its_hand_off_not_run_again(
    bus: Bus, tmp_path: Path
) -> None:
    llm, store, subj = scripted(), MemoryStateStore(), subjects()
    files = ProjectStore(tmp_path, PROJECT)
    async with (
        bus.subscribe(subj.handoff(PROJECT)) as handoffs,
        bus.subscribe(subj.dlq) as letters,
    ):
        async with supervisor(bus, subj, tmp_path, store, llm):
            await bus.publish(subj.work_order, encode(spec_order()))
            first = await next_of(handoffs, Handoff)
            written = os.stat(files.dir / SPEC_PATH).st_ino
            await bus.publish(subj.work_order, encode(spec_order()))
            assert await next_of(handoffs, Handoff) == first
            other = msgspec.structs.replace(spec_order(), task="Something else entirely.")
            await bus.publish(subj.work_order, encode(other))
            letter = await next_of(letters, DeadLetter)
        async with supervisor(bus, subj, tmp_path, store):
            await bus.publish(subj.work_order, encode(spec_order()))
            assert await next_of(handoffs, Handoff) == first, "a restarted Supervisor too"
    assert (first.status, first.to) == (ResponseStatus.OK, AgentName.ENGINEER)
    assert "issued before with other contents" in letter.error
    assert calls(llm, "cto") == 1, "the CTO was asked once"
    assert os.stat(files.dir / SPEC_PATH).st_ino == written, "the spec was not written again"


async def test_a_request_lost_with_the_supervisor_is_sent_again_under_its_id(
    bus: Bus, tmp_path: Path
) -> None:
    store, subj = MemoryStateStore(), subjects()
    async with (
        bus.subscribe(subj.agent_request("cto")) as requests,
        bus.subscribe(subj.handoff(PROJECT)) as handoffs,
    ):
        async with supervisor(bus, subj, tmp_path, store):
            await bus.publish(subj.work_order, encode(spec_order()))
            lost = await next_of(requests, MessageEnvelope)
        async with supervisor(bus, subj, tmp_path, store):
            again = await next_of(requests, MessageEnvelope)
            await bus.publish(subj.work_order, encode(spec_order()))
            answer = result_for(
                again, golden({"agent": "cto", "mode": "spec_intake_and_normalize"})
            )
            await bus.publish(subj.agent_result, encode(answer))
            done = await next_of(handoffs, Handoff)
            await bus.publish(subj.agent_result, encode(answer))
            assert await nothing_more(handoffs), "a second answer to the request changes nothing"
            assert await nothing_more(requests), "the re-issued order was not sent a third time"
    assert again == lost, "the same request, under the same id"
    assert done.status is ResponseStatus.OK
    assert written(tmp_path) == [SPEC_PATH]


async def test_a_decision_taken_while_the_supervisor_was_down_is_acted_on(
    bus: Bus, tmp_path: Path
) -> None:
    llm, store, subj = scripted([*script_lines()]), MemoryStateStore(), subjects()
    async with (
        run_engine(bus=bus, llm=scripted(layer_lines(300)), subjects=subj, policy=POLICY),
        bus.subscribe(subj.agent_submits) as submits,
        bus.subscribe(subj.decisions) as decisions,
        bus.subscribe(subj.handoff(PROJECT)) as handoffs,
    ):
        async with supervisor(bus, subj, tmp_path, store, llm):
            await bus.publish(subj.work_order, encode(dev_order()))
            submitted = await next_of(submits, ActionSubmitted)
        report = await next_of(decisions, HumanLayerReport)
        assert (report.action_id, report.outcome) == (submitted.action_id, Outcome.APPROVED)
        assert written(tmp_path) == [], "decided while nobody listened"
        async with supervisor(bus, subj, tmp_path, store, llm):
            handoff = await next_of(handoffs, Handoff)
        assert submits.pending == 0, "the decision was found; the output was not submitted again"
    assert (handoff.decision_outcome, handoff.to) == ("approved", AgentName.QA)
    assert sorted(handoff.code_refs) == written(tmp_path)
    assert calls(llm, "dev") == 1


async def test_a_review_the_engine_lost_is_submitted_again_under_the_same_action(
    bus: Bus, tmp_path: Path
) -> None:
    llm, store, subj = scripted(), MemoryStateStore(), subjects()
    async with (
        bus.subscribe(subj.agent_submits) as submits,
        bus.subscribe(subj.handoff(PROJECT)) as handoffs,
    ):
        async with supervisor(bus, subj, tmp_path, store, llm):
            await bus.publish(subj.work_order, encode(dev_order()))
            first = await next_of(submits, ActionSubmitted)
        async with (
            run_engine(bus=bus, llm=scripted(layer_lines()), subjects=subj, policy=POLICY),
            supervisor(bus, subj, tmp_path, store, llm),
        ):
            again = await next_of(submits, ActionSubmitted)
            handoff = await next_of(handoffs, Handoff)
    assert (again.action_id, again.action_hash, again.action) == (
        first.action_id,
        first.action_hash,
        first.action,
    )
    assert (handoff.decision_outcome, handoff.to) == ("approved", AgentName.QA)
    assert calls(llm, "dev") == 1, "the Dev was not asked again"


async def test_a_review_waiting_for_a_human_survives_a_restart_and_its_decision_is_acted_on(
    bus: Bus, tmp_path: Path
) -> None:
    llm, store, subj = scripted(), MemoryStateStore(), subjects()
    known: list[HumanLayerReport] = []
    async with (
        bus.subscribe(subj.agent_submits) as submits,
        bus.subscribe(subj.handoff(PROJECT)) as handoffs,
        bus.subscribe(subj.report_get) as queries,
        anyio.create_task_group() as tg,
    ):
        answered = anyio.Event()

        async def answer_queries() -> None:
            async for msg in queries:
                reply = ReportReply(report=known[-1]) if known else ReportReply(error="none")
                assert msg.reply is not None
                await bus.publish(msg.reply, encode(reply))
                answered.set()

        tg.start_soon(answer_queries)
        async with supervisor(bus, subj, tmp_path, store, llm):
            await bus.publish(subj.work_order, encode(dev_order()))
            submitted = await next_of(submits, ActionSubmitted)
            known.append(decided(submitted, Outcome.NEEDS_REVIEW))
            await bus.publish(subj.decision("dev-dur"), encode(known[-1]))
            notice = await next_of(handoffs, Handoff)
        async with supervisor(bus, subj, tmp_path, store, llm):
            with anyio.fail_after(10):
                await answered.wait()
            assert await nothing_more(submits), "the review was found pending: not resubmitted"
            await bus.publish(subj.work_order, encode(dev_order()))
            assert await next_of(handoffs, Handoff) == notice, "the Monitor is told again"
            known.append(decided(submitted, Outcome.APPROVED, by="alice"))
            await bus.publish(subj.decision("dev-dur"), encode(known[-1]))
            final = await next_of(handoffs, Handoff)
        tg.cancel_scope.cancel()
    assert (notice.decision_outcome, notice.to) == ("needs_review", AgentName.MONITOR)
    assert (final.decision_outcome, final.to) == ("approved", AgentName.QA)
    assert sorted(final.code_refs) == written(tmp_path)
    assert calls(llm, "dev") == 1


def persist(root: Path, *, state: str, pending: WorkOrder | None) -> None:
    """The Monitor's persisted state of the project."""
    project = ProjectState(project_id=PROJECT, run_id="dur", state=state, pending=pending)  # type: ignore[arg-type]
    ProjectStore(root, PROJECT).write("docs/monitor/TASK_STATE.json", encode_state(project))


@pytest.mark.parametrize(
    ("state", "pending"),
    [("cancelled", None), ("running", spec_order())],
    ids=["project cancelled", "project moved on"],
)
async def test_an_approval_for_an_order_the_project_no_longer_waits_for_writes_nothing(
    bus: Bus, tmp_path: Path, state: str, pending: WorkOrder | None
) -> None:
    llm, store, subj = scripted(), MemoryStateStore(), subjects()
    persist(tmp_path, state="running", pending=dev_order())
    async with (
        bus.subscribe(subj.agent_submits) as submits,
        bus.subscribe(subj.handoff(PROJECT)) as handoffs,
        supervisor(bus, subj, tmp_path, store, llm),
    ):
        await bus.publish(subj.work_order, encode(dev_order()))
        submitted = await next_of(submits, ActionSubmitted)
        persist(tmp_path, state=state, pending=pending)
        await bus.publish(subj.decision("dev-dur"), encode(decided(submitted, Outcome.APPROVED)))
        assert await nothing_more(handoffs)
    ledger = WorkLedger(store)
    await ledger.open()
    assert await ledger.all() == [], "the order was dropped"
    assert await ledger.order_of(submitted.action_id) is None
    assert written(tmp_path) == []


async def test_a_restart_drops_the_orders_of_a_cancelled_project(bus: Bus, tmp_path: Path) -> None:
    store, subj = MemoryStateStore(), subjects()
    persist(tmp_path, state="running", pending=spec_order())
    async with bus.subscribe(subj.agent_request("cto")) as requests:
        async with supervisor(bus, subj, tmp_path, store):
            await bus.publish(subj.work_order, encode(spec_order()))
            await next_of(requests, MessageEnvelope)
        persist(tmp_path, state="cancelled", pending=None)
        async with supervisor(bus, subj, tmp_path, store):
            assert await nothing_more(requests), "the agent was not asked again"
    ledger = WorkLedger(store)
    await ledger.open()
    assert await ledger.all() == []


async def test_late_duplicated_and_unknown_answers_change_nothing(bus: Bus, tmp_path: Path) -> None:
    llm, store, subj = scripted(), MemoryStateStore(), subjects()
    async with (
        bus.subscribe(subj.agent_submits) as submits,
        bus.subscribe(subj.agent_result) as results,
        bus.subscribe(subj.handoff(PROJECT)) as handoffs,
        supervisor(bus, subj, tmp_path, store, llm),
    ):
        await bus.publish(subj.work_order, encode(dev_order()))
        submitted = await next_of(submits, ActionSubmitted)
        answer = await next_of(results, AgentResult)
        approval = encode(decided(submitted, Outcome.APPROVED))
        await bus.publish(subj.decision("dev-dur"), approval)
        await bus.publish(subj.decision("dev-dur"), approval)
        done = await next_of(handoffs, Handoff)
        first = {p: os.stat(tmp_path / PROJECT / p).st_ino for p in written(tmp_path)}
        await bus.publish(subj.agent_result, encode(answer))
        for request_id in ("no-dash", "wo-unknown-1", f"{dev_order().order_id}-9"):
            stray = msgspec.structs.replace(answer, request_id=request_id)
            await bus.publish(subj.agent_result, encode(stray))
        other = msgspec.structs.replace(submitted, action_id="dev-0123456789abcdef01234567")
        await bus.publish(subj.decision("dev-dur"), encode(decided(other, Outcome.APPROVED)))
        assert await nothing_more(handoffs), "one hand-off, whatever else arrives"
        assert await nothing_more(submits), "the late result was not reviewed again"
    assert (done.decision_outcome, done.to) == ("approved", AgentName.QA)
    assert {p: os.stat(tmp_path / PROJECT / p).st_ino for p in written(tmp_path)} == first


async def test_an_order_whose_record_is_damaged_is_dead_lettered_and_the_others_go_on(
    bus: Bus, tmp_path: Path
) -> None:
    store, subj = MemoryStateStore(), subjects()
    other = msgspec.structs.replace(
        spec_order(),
        order_id="wo-dur-0000",
        agent=AgentName.ENGINEER,
        mode="generate_engineering_docs",
    )
    async with bus.subscribe(subj.agent_request("engineer")) as engineer:
        async with supervisor(bus, subj, tmp_path, store):
            await bus.publish(subj.work_order, encode(other))
            lost = await next_of(engineer, MessageEnvelope)
        ledger = WorkLedger(store)
        await ledger.open()
        await ledger.orders.put(spec_order().order_id, b'{"order": 42}')
        async with (
            bus.subscribe(subj.dlq) as letters,
            bus.subscribe(subj.agent_request("cto")) as requests,
            supervisor(bus, subj, tmp_path, store),
        ):
            assert await next_of(engineer, MessageEnvelope) == lost, "the readable order goes on"
            await bus.publish(subj.work_order, encode(spec_order()))
            letter = await next_of(letters, DeadLetter)
            assert await nothing_more(requests), "nothing is asked from a guess"
    assert letter.subject == subj.work_order
    assert "work order wo-dur-0001" in letter.error
    assert "is damaged" in letter.error
