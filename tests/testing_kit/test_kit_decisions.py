"""``decisions()``: every decision as it is published, filtered by agent, ending with the engine."""

from __future__ import annotations

from collections.abc import AsyncIterator

import anyio
import pytest

from humangr.contracts import Decision, Outcome
from humangr.testing import humangr

pytestmark = pytest.mark.anyio


async def test_replay_filter_and_end() -> None:
    collected: dict[str, list[Decision]] = {"all": [], "bob": [], "later": []}

    async def collect(name: str, stream: AsyncIterator[Decision]) -> None:
        async for decision in stream:
            collected[name].append(decision)

    async with anyio.create_task_group() as tg, humangr() as kit:
        early = await kit.submit(agent_id="alice", action_description="before anyone listens")
        tg.start_soon(collect, "all", kit.decisions())
        tg.start_soon(collect, "bob", kit.decisions("bob"))
        tg.start_soon(collect, "later", kit.decisions(replay=False))
        kit.needs_review()
        review = await kit.submit(agent_id="bob", action_description="needs a human")
        await kit.resolve(review, "reject", "carol", "Not without a test for it")
        with anyio.fail_after(5):
            while len(collected["all"]) < 3:  # noqa: ASYNC110 - waiting for the collectors
                await anyio.sleep(0.01)
        # leaving the engine ends every stream, so the task group can finish

    assert [(d.agent_id, d.outcome) for d in collected["all"]] == [
        ("alice", Outcome.APPROVED),
        ("bob", Outcome.NEEDS_REVIEW),
        ("bob", Outcome.REJECTED),
    ]
    assert [d.action_id for d in collected["bob"]] == [review.action_id] * 2
    assert early.action_id not in {d.action_id for d in collected["later"]}
    assert len(collected["later"]) == 2
