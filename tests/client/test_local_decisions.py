"""The embedded engine hands its decisions to its own waiters as the objects it signed
(``LocalDecisions``): no wire, so no decode and no second signature check; a forgery on the
engine's bus is still checked and refused, and the action hash is always checked."""

from __future__ import annotations

import logging

import anyio
import msgspec
import pytest

from humangr import DecisionMismatch, SignatureError
from humangr.client import connect
from humangr.contracts import (
    ActionContext,
    ActionSubmitted,
    HumanLayerReport,
    Outcome,
    ToolCall,
    VetoLevel,
    decode,
    encode,
)
from humangr.contracts.subjects import Subjects
from humangr.engine.bus import Bus
from humangr.engine.decisions import DecisionWaiters, LocalDecisions
from humangr.engine.errors import Rejected

pytestmark = pytest.mark.anyio


def _action(command: str) -> ActionContext:
    return ActionContext(
        agent_id="agent-1",
        action_type="tool_call",
        action_description=f"run {command}",
        tool_call=ToolCall(name="bash", arguments={"command": command}),
    )


async def test_the_decision_returned_is_the_object_the_supervisor_signed() -> None:
    handed: list[HumanLayerReport] = []
    async with connect(agent_id="agent-1") as hg:
        assert hg.engine is not None
        hg.engine.local.listen(handed.append)
        report = await hg.review(_action("git status"))
    assert report.outcome is Outcome.APPROVED
    assert [r.action_id for r in handed] == [report.action_id]
    assert handed[0] is report  # handed over, not decoded from bytes
    assert report.report_signature  # and it is signed all the same


async def test_a_listener_that_fails_does_not_stop_the_decision() -> None:
    def broken(report: HumanLayerReport) -> None:
        raise RuntimeError("a listener's bug")

    async with connect(agent_id="agent-1") as hg:
        assert hg.engine is not None
        hg.engine.local.listen(broken)
        assert (await hg.review(_action("rm -rf /"))).outcome is Outcome.REJECTED
        assert (await hg.review(_action("ls -la"))).outcome is Outcome.APPROVED


async def test_every_listener_is_told_even_after_one_fails() -> None:
    local, told = LocalDecisions(), list[HumanLayerReport]()

    def broken(report: HumanLayerReport) -> None:
        raise RuntimeError("a listener's bug")

    local.listen(broken)
    local.listen(told.append)
    report = HumanLayerReport(
        report_id="r1", action_id="a1", agent_id="agent-1", action_hash="h" * 64,
        policy_version="p", outcome=Outcome.APPROVED, final_veto_level=VetoLevel.NONE,
    )  # fmt: skip
    local(report)
    assert told == [report]


async def test_a_listener_that_stopped_listening_is_told_nothing() -> None:
    local, told = LocalDecisions(), list[HumanLayerReport]()
    stop = local.listen(told.append)
    report = HumanLayerReport(
        report_id="r1", action_id="a1", agent_id="agent-1", action_hash="h" * 64,
        policy_version="p", outcome=Outcome.APPROVED, final_veto_level=VetoLevel.NONE,
    )  # fmt: skip
    local(report)
    stop()
    stop()  # twice is harmless
    local(report)
    assert told == [report]


async def test_a_handed_decision_for_another_action_hash_is_refused() -> None:
    waiters = DecisionWaiters()
    waiters.expect("a1", "a" * 64)
    other = HumanLayerReport(
        report_id="r1", action_id="a1", agent_id="agent-1", action_hash="b" * 64,
        policy_version="p", outcome=Outcome.APPROVED, final_veto_level=VetoLevel.NONE,
    )  # fmt: skip
    waiters.deliver(other)
    with pytest.raises(DecisionMismatch):
        await waiters.wait("a1", timeout=1)


async def test_a_forged_approval_on_the_embedded_bus_never_runs_the_tool() -> None:
    ran: list[str] = []
    async with connect(agent_id="agent-1") as hg:
        assert hg.engine is not None
        engine = hg.engine
        bus, subjects = engine.bus, engine.subjects

        async def forger(ready: anyio.Event) -> None:
            async with bus.subscribe(subjects.agent_submits) as submissions:
                ready.set()
                async for msg in submissions:
                    submitted = decode(msg.data, ActionSubmitted)
                    forged = HumanLayerReport(
                        report_id="forged", action_id=submitted.action_id,
                        agent_id=submitted.action.agent_id,
                        action_hash=submitted.action_hash or "", policy_version="p",
                        outcome=Outcome.APPROVED, final_veto_level=VetoLevel.NONE,
                        signer=engine.public_key,
                        signature="A" * 86, report_signature="A" * 86,
                    )  # fmt: skip
                    await bus.publish(subjects.decision(forged.agent_id), encode(forged))

        @hg.guard(tool="bash")
        async def bash(command: str) -> None:
            ran.append(command)

        async with anyio.create_task_group() as tg:
            ready = anyio.Event()
            tg.start_soon(forger, ready)
            await ready.wait()
            for _ in range(20):  # whichever comes first, the forgery never approves
                with pytest.raises((Rejected, SignatureError)):
                    await bash("rm -rf /")
            tg.cancel_scope.cancel()
    assert ran == []


async def test_decisions_on_the_bus_reach_only_their_waiter_and_garbage_is_reported(
    bus: Bus, caplog: pytest.LogCaptureFixture
) -> None:
    """Waiters read a decision's action id first and skip those nobody here waits for; the
    one awaited is decoded and routed, and what cannot be read is still warned about."""
    subjects = Subjects()
    waiters = DecisionWaiters()
    awaited = HumanLayerReport(
        report_id="r1", action_id="act-awaited", agent_id="agent-1", action_hash="a" * 64,
        policy_version="p", outcome=Outcome.REJECTED, final_veto_level=VetoLevel.STRONG,
    )  # fmt: skip
    other = msgspec.structs.replace(awaited, report_id="r2", action_id="act-other")
    async with anyio.create_task_group() as tg:
        await tg.start(waiters.run, bus, subjects)
        waiters.expect("act-awaited", "a" * 64)
        subject = subjects.decision("agent-1")
        for data in (encode(other), b"{not json", b'{"action_id": 7}', encode(awaited)):
            await bus.publish(subject, data)
        with caplog.at_level(logging.WARNING, logger="humangr"):
            got = await waiters.wait("act-awaited", timeout=5)
        tg.cancel_scope.cancel()
    assert got == awaited
    undecodable = [r for r in caplog.records if "undecodable decision" in r.getMessage()]
    assert len(undecodable) == 2  # the garbage and the wrong id's type; not the other decision
