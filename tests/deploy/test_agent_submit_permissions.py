"""Issue 20 item 8 on a real nats-server with deploy/nats-server.conf plus agent ``bob`` added
as its comments document: an agent submits on its own subject only. Bob's user cannot publish
on agent ``agent``'s submit subject, nor on the bare one (permissions violations); a
submission on bob's own subject claiming ``agent`` is refused by the Supervisor, told to bob
alone and never decided; and each agent's honest submissions are still decided."""

from __future__ import annotations

import logging

import anyio
import pytest
from deploy_helpers import connect_as
from test_agent_permissions import (
    BOB,
    S,
    an_action,
    connect_bob,
    review_supervisor,
    two_agents,
)
from test_nats_permissions import nothing_arrives, subscribed, wait_for_violation

from humangr.contracts import ActionSubmitted, DeadLetter, decode, encode
from humangr.engine.review import action_hash
from humangr.engine.submission import submit_and_wait
from humangr.standins.nats_server import NatsServer

pytestmark = [pytest.mark.anyio, pytest.mark.nats]

__all__ = ["two_agents"]  # the fixture, shared with test_agent_permissions


async def test_an_agent_cannot_submit_as_another(
    two_agents: NatsServer, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING, logger="humangr.bus")
    url = two_agents.url
    forged_action = an_action("agent")  # bob pretends to be agent `agent`
    forged = ActionSubmitted(
        action_id="act-bob-as-agent", action=forged_action, action_hash=action_hash(forged_action)
    )
    async with review_supervisor(url):
        bob = await connect_bob(url)
        victim = await connect_as(url, "agent")
        operator = await connect_as(url, "operator")
        try:
            async with (
                subscribed(victim, S.decision("agent")) as victims_decisions,
                subscribed(victim, S.agent_dlq("agent")) as victims_letters,
                subscribed(bob, S.agent_dlq(BOB)) as bobs_letters,
                subscribed(operator, S.dlq) as everything,
            ):
                await bob.publish(S.agent_submit("agent"), encode(forged))
                await bob.publish(S.action_submit, encode(forged))
                await bob.flush()
                await bob.publish(S.agent_submit(BOB), encode(forged))
                with anyio.fail_after(10):
                    told = decode((await bobs_letters.__anext__()).data, DeadLetter)
                    logged = decode((await everything.__anext__()).data, DeadLetter)
                assert told == logged, "one refusal: the server dropped the other two"
                assert told.subject == S.agent_submit(BOB)
                assert told.correlation_id == forged.action_id
                assert "claims agent_id 'agent'" in told.error
                assert await nothing_arrives(victims_letters, 0.5) == []
                assert await nothing_arrives(victims_decisions, 1.0) == [], "never decided"
                assert await nothing_arrives(everything, 0.2) == []
            with anyio.fail_after(60):  # each agent's own submissions still pass the gate
                bobs = await submit_and_wait(bob, S, an_action(BOB), timeout=30)
                theirs = await submit_and_wait(victim, S, an_action("agent"), timeout=30)
            assert (bobs.agent_id, theirs.agent_id) == (BOB, "agent")
        finally:
            for bus in (bob, victim, operator):
                await bus.close()
    await wait_for_violation(caplog, 'publish to "hl.actions.submit.agent"')
    await wait_for_violation(caplog, 'publish to "hl.actions.submit"')
