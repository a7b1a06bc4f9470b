"""The client's side of standing decisions (issue 24 item 2): ``review`` and ``guard`` wait on
their own action id and get the standing decision under it — signed, bound to the new id and
the same hash — so nothing changes for them; a legitimate repeat runs twice, and
``verify_decision(seen=)`` still lets each decision be used once."""

from __future__ import annotations

import pytest

import humangr
from humangr.contracts import ActionContext, Outcome, ToolCall
from humangr.engine.errors import Rejected
from humangr.engine.state import MemoryStateStore
from humangr.verifying import DecisionReused, verify_decision

pytestmark = pytest.mark.anyio


def bash(command: str) -> ActionContext:
    return ActionContext(
        agent_id="coder",
        action_type="tool_call",
        action_description="",
        tool_call=ToolCall(name="bash", arguments={"command": command}),
    )


async def test_a_repeated_call_gets_its_own_signed_decision_usable_once() -> None:
    seen = MemoryStateStore()
    async with humangr.connect(agent_id="coder") as hg:
        assert hg.engine is not None
        key = hg.engine.public_key
        one = await hg.review(bash("git status"))
        two = await hg.review(bash("git status"))
        stopped = [await hg.review(bash("rm -rf ~")) for _ in range(2)]
    assert one.outcome is two.outcome is Outcome.APPROVED
    assert (two.action_hash, two.decided_by) == (one.action_hash, "standing decision")
    assert two.action_id != one.action_id
    assert {r.outcome for r in stopped} == {Outcome.REJECTED}
    assert stopped[1].decided_by == "standing decision"
    for report in (one, two):  # each one's own approval: one execution each
        assert await verify_decision(report, key, seen=seen) is None
    with pytest.raises(DecisionReused):
        await verify_decision(two, key, seen=seen)


async def test_a_guarded_command_runs_twice_and_a_rejected_one_never() -> None:
    ran: list[str] = []
    async with humangr.connect(agent_id="coder") as hg:

        @hg.guard(tool="bash", on_needs_review="raise")
        async def run(command: str) -> str:
            ran.append(command)
            return command

        await run("git status")
        await run("git status")
        for _ in range(2):
            with pytest.raises(Rejected):
                await run("rm -rf ~")
    assert ran == ["git status", "git status"]
