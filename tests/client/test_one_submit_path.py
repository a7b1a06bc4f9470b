"""Issue 21: one submit-and-wait path. ``submit_and_wait`` (CLI, MCP) and ``Engine.submit``
end a wait the same way: ``ReviewTimeout`` without a decision, ``SubmissionRefused`` on a
refusal on the agent's own dead letters, and a refusal on another agent's letters is ignored."""

from __future__ import annotations

import anyio
import pytest

from humangr.contracts import ActionContext, DeadLetter, Subjects, encode
from humangr.engine.bus import Bus
from humangr.engine.errors import ReviewTimeout, SubmissionRefused
from humangr.engine.submission import submit_and_wait

pytestmark = pytest.mark.anyio


def _action(agent: str = "agent-a") -> ActionContext:
    return ActionContext(agent_id=agent, action_type="tool_call", action_description="look")


async def test_no_decision_is_a_review_timeout(bus: Bus) -> None:
    with pytest.raises(ReviewTimeout) as caught:
        await submit_and_wait(bus, Subjects(), _action(), action_id="act-none", timeout=0.3)
    assert isinstance(caught.value, TimeoutError)
    assert "act-none" in str(caught.value)


async def test_refusal_on_own_letters_ends_the_wait_and_others_do_not(bus: Bus) -> None:
    subjects = Subjects()

    def letter(agent: str, reason: str) -> bytes:
        return encode(
            DeadLetter(
                subject=subjects.agent_submit(agent),
                error=f"action act-x: {reason}",
                correlation_id="act-x",
            )
        )

    async def refuse() -> None:
        await anyio.sleep(0.2)
        # another agent's letter naming the same action id must not end this wait
        await bus.publish(subjects.agent_dlq("agent-b"), letter("agent-b", "forged"))
        await anyio.sleep(0.2)
        await bus.publish(subjects.agent_dlq("agent-a"), letter("agent-a", "too big"))

    async with anyio.create_task_group() as tg:
        tg.start_soon(refuse)
        with pytest.raises(SubmissionRefused) as caught:
            await submit_and_wait(bus, subjects, _action(), action_id="act-x", timeout=10)
    assert caught.value.reason == "too big"
