"""The embedded client waits through its engine's own ``DecisionWaiters``: one subscription on
the decisions and one on the letters serve both, and decisions and refusals still reach it."""

from __future__ import annotations

import pytest

from humangr.client import connect
from humangr.contracts import Outcome
from humangr.engine.errors import SubmissionRefused

pytestmark = pytest.mark.anyio


async def test_the_embedded_client_shares_its_engines_waiters_and_is_answered() -> None:
    async with connect(agent_id="agent-1", timeout=10) as hg:
        assert hg.engine is not None
        assert hg.shares_waiters
        assert hg.waiters is hg.engine.waiters
        assert hg.trusted_keys == (hg.engine.public_key,)
        report = await hg.review(
            {
                "agent_id": "agent-1",
                "action_type": "tool_call",
                "action_description": "list the files",
                "tool_call": {"name": "bash", "arguments": {"command": "ls"}},
            }
        )
        assert report.outcome is Outcome.APPROVED
        assert not hg.waiters._waiting, "the wait was removed once answered"


async def test_a_refusal_reaches_the_embedded_client_through_the_shared_waiters() -> None:
    async with connect(agent_id="agent-1", timeout=10) as hg:
        with pytest.raises(SubmissionRefused, match="nothing to review"):
            await hg.review(
                {"agent_id": "agent-1", "action_type": "note", "action_description": "   "}
            )
