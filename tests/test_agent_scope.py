"""Issue 20 item 8 on both buses: an agent asks for reports on its own subject and the
Supervisor answers there only that agent's reports (another's is "no report", word for word
as an unknown id); the refusal of a submission goes to its agent's own dead-letter subject
(and, as before, to ``dlq``); an undecodable submission, whose agent is unknown, only to
``dlq``."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import anyio
import pytest

from humangr.actors.roles import Engine, run_engine
from humangr.contracts import (
    ActionContext,
    DeadLetter,
    HumanLayerReport,
    ReportQuery,
    ReportReply,
    Subjects,
    decode,
    encode,
)
from humangr.engine.actor import Actor, ActorContext, ActorSystem, Route
from humangr.engine.bus import Bus, Msg, Subscription
from humangr.engine.errors import EngineError, MessageRefused, SubmissionRefused
from humangr.engine.submission import fetch_report, submit_and_wait

pytestmark = pytest.mark.anyio

DIFF = "--- a/app/x.py\n+++ b/app/x.py\n@@ -1 +1 @@\n-def f(): pass\n+def g(): pass\n"


def fresh() -> Subjects:
    """Subjects of their own, so tests sharing the session's nats-server never cross."""
    return Subjects(f"scope{uuid.uuid4().hex[:8]}")


def action(agent_id: str, diff: str = DIFF) -> ActionContext:
    return ActionContext(
        agent_id=agent_id,
        action_type="code_diff",
        action_description="rename f to g",
        code_diff=diff,
    )


@asynccontextmanager
async def engine(bus: Bus, subjects: Subjects) -> AsyncIterator[Engine]:
    async with run_engine(bus=bus, subjects=subjects) as running:
        yield running


async def no_report(bus: Bus, subjects: Subjects, id_: str, agent_id: str | None) -> str:
    """The error the Supervisor answers ``id_`` with, the id itself replaced by ``ID``."""
    with pytest.raises(EngineError) as caught:
        await fetch_report(bus, subjects, id_, agent_id=agent_id)
    assert type(caught.value) is EngineError, "an answer, not a bus failure"
    return str(caught.value).replace(repr(id_), "ID")


async def test_a_scoped_query_answers_only_that_agents_reports(bus: Bus) -> None:
    s = fresh()
    async with engine(bus, s) as running:
        alices = await running.submit(action("alice"), timeout=30)
        bobs = await running.submit(action("bob"), timeout=30)
        unknown = await no_report(bus, s, "act-00000000000000000000", "alice")
        for id_ in (bobs.action_id, bobs.report_id):
            assert await no_report(bus, s, id_, "alice") == unknown, "no probe of bob's ids"
            assert await fetch_report(bus, s, id_, agent_id="bob") == bobs
            assert await fetch_report(bus, s, id_) == bobs, "reviewers read every report"
        for id_ in (alices.action_id, alices.report_id):
            assert await fetch_report(bus, s, id_, agent_id="alice") == alices
            assert await no_report(bus, s, id_, "bob") == unknown
        raw = await bus.request(
            s.agent_report_get("alice"), encode(ReportQuery(id=bobs.action_id)), timeout=5
        )
        answer = decode(raw.data, ReportReply)
        assert answer.report is None
        assert answer.error == f"no report with report id or action id {bobs.action_id!r}"


async def test_the_scoped_subject_is_one_token_per_agent() -> None:
    s = Subjects()
    assert s.agent_report_get("bob") == "hl.reports.get.bob"
    assert s.agent_report_gets == "hl.reports.get.*"
    assert s.agent_dlq("bob") == "hl.dlq.agent.bob"
    assert s.agent_dlqs == "hl.dlq.agent.*"
    for hostile in ("bob.>", "*", "bob alice", "a.b", ""):
        with pytest.raises(ValueError, match="not a valid subject token"):
            s.agent_report_get(hostile)
        with pytest.raises(ValueError, match="not a valid subject token"):
            s.agent_dlq(hostile)


async def collect(sub: Subscription, wait: float = 0.3) -> list[Msg]:
    got: list[Msg] = []
    with anyio.move_on_after(wait):
        async for msg in sub:
            got.append(msg)
    return got


async def test_a_refusal_goes_to_its_agents_letters_and_to_dlq_only(bus: Bus) -> None:
    s = fresh()
    async with (
        engine(bus, s),
        bus.subscribe(s.agent_dlq("bob")) as bobs,
        bus.subscribe(s.agent_dlq("alice")) as alices,
        bus.subscribe(s.dlq) as everything,
    ):
        await bus.flush()
        with anyio.fail_after(5), pytest.raises(SubmissionRefused, match="code_diff is empty"):
            await submit_and_wait(bus, s, action("bob", diff=""), timeout=30)
        with anyio.fail_after(5):
            mine = decode((await anext(aiter(bobs))).data, DeadLetter)
            logged = decode((await anext(aiter(everything))).data, DeadLetter)
        assert mine == logged, "the agent's copy is the letter on dlq"
        assert mine.subject == s.agent_submit("bob")
        assert mine.correlation_id.startswith("act-")
        assert await collect(alices) == [], "alice never sees bob's refusal"


async def test_an_undecodable_submission_is_dead_lettered_on_dlq_only(bus: Bus) -> None:
    s = fresh()
    async with (
        engine(bus, s),
        bus.subscribe(s.agent_dlqs) as agents,
        bus.subscribe(s.dlq) as everything,
    ):
        await bus.flush()
        forged = b'{"action_id": "act-forged", "action": {"agent_id": "bob", "x": 1}}'
        await bus.publish(s.agent_submit("bob"), forged)
        with anyio.fail_after(5):
            letter = decode((await anext(aiter(everything))).data, DeadLetter)
        assert letter.correlation_id == "act-forged"
        assert await collect(agents) == [], "an undecodable message names no agent to trust"


class _Refuser(Actor):
    """Refuses every message, naming as its sender whatever ``sender`` says."""

    name = "refuser"

    def __init__(self, sender: Any) -> None:
        self.sender = sender

    def routes(self, ctx: ActorContext) -> list[Route[Any]]:
        return [Route(ctx.subjects.action_submit, ReportQuery, self._refuse, sender=self.sender)]

    async def _refuse(self, query: ReportQuery, _: Msg) -> None:
        raise MessageRefused(f"refused {query.id}", correlation_id=query.id)


def _raises(_: ReportQuery) -> str:
    raise RuntimeError("no sender")


@pytest.mark.parametrize("sender", [lambda q: "bad.token.>", lambda q: 7, _raises])
async def test_a_bad_sender_keeps_the_letter_on_dlq_and_the_actor_up(bus: Bus, sender: Any) -> None:
    s = fresh()
    system = ActorSystem(bus, subjects=s)
    system.add(_Refuser(sender))
    async with (
        system.running(),
        bus.subscribe(f"{s.prefix}.dlq.>") as agents,
        bus.subscribe(s.dlq) as everything,
    ):
        await bus.flush()
        for n in range(2):  # the second shows the actor still serves
            await bus.publish(s.action_submit, encode(ReportQuery(id=f"q-{n}")))
            with anyio.fail_after(5):
                letter = decode((await anext(aiter(everything))).data, DeadLetter)
            assert letter.error == f"refused q-{n}"
        assert await collect(agents) == []


async def test_the_client_of_one_agent_reads_its_own_refusal_at_once(bus: Bus) -> None:
    """``humangr.connect`` on a bus: a refusal ends the wait at once (not at its timeout)."""
    import humangr

    s = fresh()
    async with (
        engine(bus, s) as running,
        humangr.connect(
            bus=bus, prefix=s.prefix, agent_id="bob", public_key=running.public_key
        ) as hg,
    ):
        with anyio.fail_after(5), pytest.raises(SubmissionRefused, match="code_diff is empty"):
            await hg.review(action("bob", diff=""), timeout=60)
        report: HumanLayerReport = await hg.review(action("bob"), timeout=30)
        assert report.agent_id == "bob"


async def test_the_mcp_backend_of_an_agent_asks_on_its_own_subject(bus: Bus) -> None:
    from humangr.engine.config import ReviewConfig
    from humangr.mcp import NatsBackend, ReportNotFound

    s = fresh()
    async with engine(bus, s) as running:
        alices = await running.submit(action("alice"), timeout=30)
        bobs = await running.submit(action("bob"), timeout=30)
        mcp = NatsBackend(bus, s, ReviewConfig(), "test", 10.0, agent_id="alice")
        assert (await mcp.report(alices.action_id)).report_id == alices.report_id
        with pytest.raises(ReportNotFound):
            await mcp.report(bobs.action_id)
