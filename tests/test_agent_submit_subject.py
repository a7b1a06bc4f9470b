"""Issue 20 item 8 on both buses: an agent's id is the subject it submits on, never what its
action says. A submission on one agent's subject claiming another agent is refused (a dead
letter on ``dlq`` and on the subject's agent's own letters, never the claimed agent's) and
never decided; one on the bare subject of older clients is refused on ``dlq`` only; every
agent's honest submission is still decided on its own decision subject."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import anyio
import pytest

from humangr.actors.roles import Engine, run_engine
from humangr.contracts import (
    ActionContext,
    ActionSubmitted,
    DeadLetter,
    Subjects,
    decode,
    encode,
)
from humangr.engine.bus import Bus, Msg, Subscription
from humangr.engine.review import action_hash
from humangr.engine.submission import submit_and_wait

pytestmark = pytest.mark.anyio

DIFF = "--- a/app/x.py\n+++ b/app/x.py\n@@ -1 +1 @@\n-def f(): pass\n+def g(): pass\n"


def fresh() -> Subjects:
    """Subjects of their own, so tests sharing the session's nats-server never cross."""
    return Subjects(f"submit{uuid.uuid4().hex[:8]}")


def submitted(agent_id: str, action_id: str) -> ActionSubmitted:
    action = ActionContext(
        agent_id=agent_id,
        action_type="code_diff",
        action_description="rename f to g",
        code_diff=DIFF,
    )
    return ActionSubmitted(action_id=action_id, action=action, action_hash=action_hash(action))


@asynccontextmanager
async def engine(bus: Bus, subjects: Subjects) -> AsyncIterator[Engine]:
    async with run_engine(bus=bus, subjects=subjects) as running:
        yield running


async def collect(sub: Subscription, wait: float = 0.5) -> list[Msg]:
    got: list[Msg] = []
    with anyio.move_on_after(wait):
        async for msg in sub:
            got.append(msg)
    return got


async def first_letter(sub: Subscription) -> DeadLetter:
    with anyio.fail_after(10):
        return decode((await sub.__anext__()).data, DeadLetter)


def test_each_agent_submits_on_a_subject_of_its_own() -> None:
    s = Subjects()
    assert s.agent_submit("bob") == "hl.actions.submit.bob"
    assert s.agent_submits == "hl.actions.submit.*"
    assert s.submitter("hl.actions.submit.bob") == "bob"
    for not_an_agent in ("hl.actions.submit", "hl.actions.submit.a.b", "hl.actions.x.cancel"):
        assert s.submitter(not_an_agent) is None
    assert s.submitter("hl.actions.submit.cancel") is None, "the cancel of action 'submit'"
    assert s.is_submit("hl.actions.submit")
    assert s.is_submit("hl.actions.submit.bob")
    for hostile in ("bob.>", "*", "bob alice", "a.b", ""):
        with pytest.raises(ValueError, match="not a valid subject token"):
            s.agent_submit(hostile)
    with pytest.raises(ValueError, match="reserved"):
        s.agent_submit("cancel")


@pytest.mark.parametrize(("subject_of", "claims"), [("bob", "alice"), ("mallory", "bob")])
async def test_a_submission_claiming_another_agent_is_refused_and_never_decided(
    bus: Bus, subject_of: str, claims: str
) -> None:
    s = fresh()
    forged = submitted(claims, f"act-forged-{subject_of}")
    async with (
        engine(bus, s),
        bus.subscribe(s.decisions) as decisions,
        bus.subscribe(s.agent_dlq(subject_of)) as senders,
        bus.subscribe(s.agent_dlq(claims)) as claimed,
        bus.subscribe(s.dlq) as everything,
    ):
        await bus.flush()
        await bus.publish(s.agent_submit(subject_of), encode(forged))
        letter = await first_letter(everything)
        assert await first_letter(senders) == letter, "the submitter is told, on its own subject"
        assert letter.subject == s.agent_submit(subject_of)
        assert letter.correlation_id == forged.action_id
        assert f"claims agent_id {claims!r}" in letter.error
        assert "submits its own actions only" in letter.error
        assert await collect(claimed) == [], "the claimed agent's letters stay untouched"
        assert await collect(decisions, 1.0) == [], "never decided, for anyone"


async def test_the_bare_submit_subject_is_refused_on_dlq_only(bus: Bus) -> None:
    s = fresh()
    old = submitted("bob", "act-old-client")
    async with (
        engine(bus, s),
        bus.subscribe(s.decisions) as decisions,
        bus.subscribe(s.agent_dlqs) as agents,
        bus.subscribe(s.dlq) as everything,
    ):
        await bus.flush()
        await bus.publish(s.action_submit, encode(old))
        letter = await first_letter(everything)
        assert (letter.subject, letter.correlation_id) == (s.action_submit, old.action_id)
        assert f"submit on {s.prefix}.actions.submit.<your agent id>" in letter.error
        assert await collect(agents) == [], "the bare subject names no agent to tell"
        assert await collect(decisions, 1.0) == []


async def test_each_agent_is_decided_on_its_own_subject(bus: Bus) -> None:
    s = fresh()
    async with engine(bus, s):
        for agent in ("alice", "bob"):
            with anyio.fail_after(30):
                report = await submit_and_wait(
                    bus, s, submitted(agent, f"act-{agent}").action, timeout=30
                )
            assert report.agent_id == agent
