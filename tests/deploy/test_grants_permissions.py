"""Standing approvals on a real nats-server with deploy/nats-server.conf: the Supervisor (user
``supervisor``, its state in JetStream KV) keeps the grants a reviewer makes; reviewers alone
list and revoke them (``hl.grants.query``, ``hl.grants.revoke``) and read the stored decisions
(``hl.history.query``); an agent, a layer worker, an agent worker or the monitor cannot — the
server refuses the publish, nothing is answered and the grant stays — and a revoke takes effect
for the very next call."""

from __future__ import annotations

import logging
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import anyio
import pytest
from deploy_helpers import connect_as
from test_nats_permissions import subscribed, wait_for_violation

from humangr.actors.roles import review_actors
from humangr.contracts import (
    ActionContext,
    Decision,
    Grant,
    Outcome,
    ReviewRequested,
    ReviewResolution,
    Subjects,
    ToolCall,
    decode,
    encode,
)
from humangr.contracts.grants import GrantQuery, GrantRevoke
from humangr.contracts.history import HistoryPage, HistoryQuery
from humangr.engine.actor import ActorSystem
from humangr.engine.bus.nats import NatsBus
from humangr.engine.config import ReviewConfig
from humangr.engine.errors import BusError
from humangr.engine.policy import parse_policy
from humangr.engine.state import KeyValueStateStore
from humangr.engine.submission import submit_and_wait
from humangr.granting import ask, list_grants, revoke_grant
from humangr.reviewing import Channel
from humangr.standins.nats_server import NatsServer

pytestmark = [pytest.mark.anyio, pytest.mark.nats]

S = Subjects()
POLICY = b"""\
version = 1
default = "review"

[[rule]]
id = "prod-needs-a-human"
effect = "ask"
tools = ["bash"]
[rule.match]
command = ["*prod*"]
"""
REASON = "checked the rollout plan and the chart diff"


def deploy_call(command: str) -> ActionContext:
    """A ``bash`` call of agent ``agent`` the policy asks a human about."""
    return ActionContext(
        agent_id="agent",
        action_type="tool_call",
        action_description="tool call bash",
        tool_call=ToolCall(name="bash", arguments={"command": command}, workspace="/work/repo"),
    )


@asynccontextmanager
async def supervisor(url: str) -> AsyncIterator[None]:
    """The Supervisor as user ``supervisor``, its state (grants included) in JetStream KV."""
    bus = await connect_as(url, "supervisor")
    try:
        store = KeyValueStateStore(bus.client.jetstream(timeout=3.0), namespace="HL")
        config = ReviewConfig(rules=parse_policy(POLICY, source="policy.toml"))
        system = ActorSystem(bus)
        system.add(*review_actors(config, None, roles=("supervisor",), state=store))
        async with system.running():
            yield
    finally:
        await bus.close()


def channel_of(bus: NatsBus) -> Channel:
    return Channel(bus, S, "the test server", 5.0)


async def granted(agent: NatsBus, reviewer: NatsBus, command: str) -> tuple[Decision, Grant]:
    """``command`` asked about, approved by the reviewer with a 1 h exact grant; the grant."""
    action = deploy_call(command)
    async with subscribed(reviewer, S.reviews_pending) as pending:
        asked = await submit_and_wait(agent, S, action, timeout=30)
        assert asked.outcome is Outcome.NEEDS_REVIEW, asked.blocking_reasons
        with anyio.fail_after(10):  # the review is open once it is announced
            async for msg in pending:
                if decode(msg.data, ReviewRequested).action_id == asked.action_id:
                    break
    resolution = ReviewResolution(
        action_id=asked.action_id,
        action_hash=asked.action_hash,
        verdict="approve",
        reviewer="alice",
        reason=REASON,
        grant_s=3600.0,
    )
    await reviewer.publish(S.review_resolve(asked.action_id), encode(resolution))
    with anyio.fail_after(10):
        while True:
            found = [
                g for g in await list_grants(channel_of(reviewer)) if g.action_id == asked.action_id
            ]
            if found:
                return asked, found[0]
            await anyio.sleep(0.1)


async def test_a_reviewer_lists_and_revokes_a_grant_which_ends_at_once(
    secured_nats: NatsServer,
) -> None:
    url = secured_nats.url
    command = f"deploy prod --build {uuid.uuid4().hex[:8]}"
    async with supervisor(url):
        agent = await connect_as(url, "agent")
        reviewer = await connect_as(url, "reviewer")
        try:
            asked, grant = await granted(agent, reviewer, command)
            assert (grant.agent_id, grant.tool, grant.scope, grant.reviewer) == (
                "agent",
                "bash",
                "exact",
                "alice",
            )
            again = await submit_and_wait(agent, S, deploy_call(command), timeout=30)
            assert (again.outcome, again.decided_by) == (Outcome.APPROVED, f"grant:{grant.id}")
            history = await ask(channel_of(reviewer), S.history_query, HistoryQuery(), HistoryPage)
            keys = {d.key for d in history.decisions}
            assert {asked.action_id, again.action_id} <= keys, "reviewers read the decisions"

            await revoke_grant(channel_of(reviewer), grant.id, "alice")
            after = await submit_and_wait(agent, S, deploy_call(command), timeout=30)
            assert after.outcome is Outcome.NEEDS_REVIEW, "the very next call needs review"
            assert grant.id not in {g.id for g in await list_grants(channel_of(reviewer))}
        finally:
            await agent.close()
            await reviewer.close()


@pytest.mark.parametrize("role", ["agent", "layer", "worker", "monitor"])
async def test_no_other_role_lists_or_revokes_grants_or_reads_the_decisions(
    secured_nats: NatsServer, caplog: pytest.LogCaptureFixture, role: str
) -> None:
    caplog.set_level(logging.WARNING, logger="humangr.bus")
    url = secured_nats.url
    async with supervisor(url):
        agent = await connect_as(url, "agent")
        reviewer = await connect_as(url, "reviewer")
        attacker = await connect_as(url, role)
        try:
            _, grant = await granted(agent, reviewer, f"deploy prod --{role}")
            for subject, request in (
                (S.grant_query, GrantQuery()),
                (S.history_query, HistoryQuery()),
                (S.grant_revoke, GrantRevoke(grant_id=grant.id, reviewer="mallory")),
            ):
                with pytest.raises(BusError):  # refused by the server: never answered
                    await attacker.request(subject, encode(request), timeout=1.0)
            await attacker.publish(
                S.grant_revoke, encode(GrantRevoke(grant_id=grant.id, reviewer="mallory"))
            )
            await attacker.flush()
            await anyio.sleep(0.3)
            assert grant.id in {g.id for g in await list_grants(channel_of(reviewer))}
            await revoke_grant(channel_of(reviewer), grant.id, "alice")
        finally:
            for bus in (agent, reviewer, attacker):
                await bus.close()
    for subject in (S.grant_query, S.history_query, S.grant_revoke):
        await wait_for_violation(caplog, f'publish to "{subject}"')
