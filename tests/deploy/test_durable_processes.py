"""Issue 11 with separate processes on a real nats-server (deploy/nats-server.conf, JetStream):
``kill -9`` of the Supervisor loses and repeats nothing, and two Supervisors share the work."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import anyio
import pytest
from deploy_helpers import Spec, connect_as, password, serving

from humangr.contracts import (
    ActionContext,
    ActionSubmitted,
    HumanLayerReport,
    Outcome,
    ReportQuery,
    ReportReply,
    ReviewListing,
    ReviewQuery,
    ReviewResolution,
    Subjects,
    decode,
    encode,
)
from humangr.engine.bus import Bus
from humangr.engine.bus.jetstream import JetStreamConfig, stream_names
from humangr.engine.bus.nats import NatsBus
from humangr.engine.bus.subject import inbox_prefix_for
from humangr.engine.metrics import STATE_BUCKETS
from humangr.engine.review import action_hash
from humangr.engine.signing import load_signing_key, verify_decision
from humangr.engine.state.kv import namespace_of
from humangr.standins.nats_server import NatsServer

pytestmark = [pytest.mark.anyio, pytest.mark.nats]

SWALLOWED = """\
diff --git a/app/util.py b/app/util.py
--- a/app/util.py
+++ b/app/util.py
@@ -1,2 +1,7 @@
 import json
+
+
+def load(text: str) -> object:
+    try:
+        return json.loads(text)
+    except:
+        pass
"""
S = Subjects()


def action(n: int, *, flawed: bool = True) -> ActionContext:
    diff = SWALLOWED if flawed else SWALLOWED.replace("    except:\n+        pass", "")
    return ActionContext(
        agent_id="agent",  # the id of NATS user `agent` (deploy/nats-server.conf)
        action_type="code_diff",
        action_description=f"load json, variant {n}",
        code_diff=diff + f"+# variant {n}\n",
    )


def submission(n: int, **kw: bool) -> ActionSubmitted:
    act = action(n, **kw)
    return ActionSubmitted(action_id=f"act-k{n:03d}", action=act, action_hash=action_hash(act))


def supervisor(url: str, *extra: str) -> Spec:
    return Spec(
        ("--role", "supervisor", "--nats", url, "--jetstream", "--ack-wait", "3", *extra),
        role="supervisor",
    )


def layers(url: str, *extra: str) -> Spec:
    return Spec(("--role", "layers", "--nats", url, "--jetstream", *extra), role="layer")


@pytest.fixture
async def clean_server(secured_nats: NatsServer) -> AsyncIterator[NatsServer]:
    """The secured server with no HUMANGR streams or state buckets left by other tests."""
    await _reset(secured_nats.url)
    yield secured_nats
    await _reset(secured_nats.url)


async def _reset(url: str) -> None:
    bus = await connect_as(url, "supervisor")
    try:
        js = bus.client.jetstream()
        names = [*stream_names(S)]
        # every bucket the Supervisor keeps: a standing decision left by another test would
        # decide this test's same actions without a review
        names += [f"KV_{namespace_of(S.prefix)}_{b}" for b in (*STATE_BUCKETS, "quarantine")]
        for name in names:
            try:
                await js.delete_stream(name)
            except Exception:  # not there: nothing to reset
                continue
    finally:
        await bus.close()


class Decisions:
    def __init__(self) -> None:
        self.seen: list[HumanLayerReport] = []
        self.changed = anyio.Event()

    def count(self) -> Counter[str]:
        return Counter(d.action_id for d in self.seen)

    async def until(self, done: object, timeout: float) -> None:
        with anyio.fail_after(timeout):
            while not done():  # type: ignore[operator]
                await self.changed.wait()


@asynccontextmanager
async def watching(bus: Bus) -> AsyncIterator[Decisions]:
    """A plain core subscriber on the agent's decisions, as a client would count them."""
    record = Decisions()
    async with bus.subscribe(S.decision("agent")) as sub, anyio.create_task_group() as tg:

        async def collect() -> None:
            async for msg in sub:
                record.seen.append(decode(msg.data, HumanLayerReport))
                event, record.changed = record.changed, anyio.Event()
                event.set()

        tg.start_soon(collect)
        yield record
        tg.cancel_scope.cancel()


async def pending(reviewer: Bus) -> ReviewListing:
    reply = await reviewer.request(S.review_query, encode(ReviewQuery()), timeout=10)
    return decode(reply.data, ReviewListing)


async def report(bus: Bus, id_: str) -> ReportReply:
    reply = await bus.request(S.report_get, encode(ReportQuery(id=id_)), timeout=10)
    return decode(reply.data, ReportReply)


def resolve(decision: HumanLayerReport, verdict: str = "approve") -> ReviewResolution:
    return ReviewResolution(
        action_id=decision.action_id,
        action_hash=decision.action_hash,
        verdict=verdict,  # type: ignore[arg-type]
        reviewer="alice",
        reason="checked by hand: the bare except is intended",
    )


async def test_a_needs_review_survives_kill_9_and_is_resolved_after(
    clean_server: NatsServer, tmp_path: Path
) -> None:
    url = clean_server.url
    agent = await connect_as(url, "agent")
    reviewer = await connect_as(url, "reviewer")
    try:
        async with watching(agent) as decisions:
            async with serving(supervisor(url), layers(url), log_dir=tmp_path) as (sup, _):
                await agent.publish(S.agent_submit("agent"), encode(submission(1)))
                await decisions.until(lambda: decisions.seen, 30)
                await anyio.sleep(0.5)
                await sup.kill9()
            first = decisions.seen[0]
            assert first.outcome is Outcome.NEEDS_REVIEW
            async with serving(supervisor(url), layers(url), log_dir=tmp_path):
                listing = await pending(reviewer)
                assert [r.action_id for r in listing.reviews] == [first.action_id]
                await reviewer.publish(S.review_resolve(first.action_id), encode(resolve(first)))
                await decisions.until(lambda: len(decisions.seen) == 2, 30)
            final = decisions.seen[1]
            assert final.resolved_by == "alice"
            assert final.outcome is Outcome.APPROVED
            async with serving(supervisor(url), log_dir=tmp_path) as (again,):
                stored = await report(reviewer, first.action_id)
                await again.kill9()
        assert stored.report == final
        assert len(decisions.seen) == 2
        key, _ = load_signing_key(create=False)
        for decision in decisions.seen:
            verify_decision(decision, key.public_key)
    finally:
        await agent.close()
        await reviewer.close()


async def test_kill_9_while_30_actions_are_in_review_leaves_one_decision_each(
    clean_server: NatsServer, tmp_path: Path
) -> None:
    url = clean_server.url
    script = tmp_path / "slow.jsonl"
    line = {"match": {}, "delay_ms": 1500, "json": {"findings": [], "summary": "fine"}}
    script.write_text(json.dumps(line) + "\n")
    llm = ("--llm", f"scripted:{script}")
    agent = await connect_as(url, "agent")
    wanted = {f"act-k{n:03d}" for n in range(30)}
    try:
        async with (
            watching(agent) as decisions,
            serving(layers(url, *llm), log_dir=tmp_path),
        ):
            async with serving(supervisor(url, *llm), log_dir=tmp_path) as (sup,):
                for n in range(30):
                    await agent.publish(
                        S.agent_submit("agent"), encode(submission(n, flawed=False))
                    )
                await anyio.sleep(2.0)
                before = len(decisions.seen)
                await sup.kill9()
            async with serving(supervisor(url, *llm), log_dir=tmp_path):
                await decisions.until(lambda: set(decisions.count()) >= wanted, 120)
                await anyio.sleep(4.0)
        counts = decisions.count()
        assert set(counts) == wanted
        assert set(counts.values()) == {1}, {a: c for a, c in counts.items() if c != 1}
        assert before < 30, "the kill must come while actions are still in review"
    finally:
        await agent.close()


async def test_two_supervisors_serve_every_resolution_and_report_query(
    clean_server: NatsServer, tmp_path: Path
) -> None:
    url = clean_server.url
    agent = await connect_as(url, "agent")
    reviewer = await connect_as(url, "reviewer")
    try:
        async with (
            watching(agent) as decisions,
            serving(supervisor(url), supervisor(url), layers(url), log_dir=tmp_path),
        ):
            for n in range(6):
                await agent.publish(S.agent_submit("agent"), encode(submission(n)))
            await decisions.until(lambda: len(decisions.seen) == 6, 60)
            firsts = list(decisions.seen)
            for decision in firsts:
                for id_ in (decision.action_id, decision.report_id):
                    assert (await report(reviewer, id_)).report == decision
            # each review opens once its decision is marked out, a moment after the publish
            with anyio.fail_after(10):
                while len((await pending(reviewer)).reviews) < 6:  # noqa: ASYNC110 - polling a peer
                    await anyio.sleep(0.05)
            assert len((await pending(reviewer)).reviews) == 6
            for decision in firsts:
                await reviewer.publish(
                    S.review_resolve(decision.action_id), encode(resolve(decision))
                )
            await decisions.until(lambda: len(decisions.seen) == 12, 60)
            await anyio.sleep(1.0)
            assert (await pending(reviewer)).reviews == []
            for decision in firsts:
                final = (await report(reviewer, decision.action_id)).report
                assert final is not None
                assert final.resolved_by == "alice"
        counts = decisions.count()
        assert set(counts.values()) == {2}
        key, _ = load_signing_key(create=False)
        for decision in decisions.seen:
            verify_decision(decision, key.public_key)
    finally:
        await agent.close()
        await reviewer.close()


async def test_a_deadline_that_expired_while_down_rejects_at_start(
    clean_server: NatsServer, tmp_path: Path
) -> None:
    url = clean_server.url
    agent = await connect_as(url, "agent")
    try:
        async with watching(agent) as decisions, serving(layers(url), log_dir=tmp_path):
            deadline = ("--review-deadline", "2")
            async with serving(supervisor(url, *deadline), log_dir=tmp_path) as (sup,):
                await agent.publish(S.agent_submit("agent"), encode(submission(7)))
                await decisions.until(lambda: decisions.seen, 30)
                await sup.kill9()
            await anyio.sleep(3.0)
            assert len(decisions.seen) == 1
            async with serving(supervisor(url, *deadline), log_dir=tmp_path):
                await decisions.until(lambda: len(decisions.seen) == 2, 30)
        final = decisions.seen[1]
        assert final.outcome is Outcome.REJECTED
        assert final.resolved_by == "timeout"
        assert final.action_id == decisions.seen[0].action_id
    finally:
        await agent.close()


async def test_switching_from_core_to_jetstream_does_not_decide_again(
    clean_server: NatsServer, tmp_path: Path
) -> None:
    """Submissions published while the engine ran in core mode are also kept by the WORK stream
    (it exists from an earlier JetStream run); the JetStream run that follows receives them, and
    must see in the shared state that they were decided."""
    url = clean_server.url
    earlier = await NatsBus.connect(  # creates the streams, as serve --jetstream does
        url,
        user="supervisor",
        password=password("supervisor"),
        jetstream=JetStreamConfig(),
        inbox_prefix=inbox_prefix_for("supervisor"),
    )
    await earlier.close()
    agent = await connect_as(url, "agent")
    core = ("--role", "supervisor", "--nats", url)
    try:
        async with watching(agent) as decisions:
            core_layers = Spec(("--role", "layers", "--nats", url), role="layer")
            async with serving(Spec(core, role="supervisor"), core_layers, log_dir=tmp_path):
                for n in range(3):
                    await agent.publish(
                        S.agent_submit("agent"), encode(submission(n, flawed=False))
                    )
                await decisions.until(lambda: len(decisions.seen) == 3, 30)
            async with serving(supervisor(url), layers(url), log_dir=tmp_path):
                await anyio.sleep(4.0)
                stored = await earlier_stream_messages(url)
        assert len(decisions.seen) == 3, [d.action_id for d in decisions.seen]
        assert stored == 0, "the stored submissions were consumed, as decided already"
    finally:
        await agent.close()


async def earlier_stream_messages(url: str) -> int:
    bus = await connect_as(url, "supervisor")
    try:
        info = await bus.client.jetstream().stream_info(stream_names(S)[0])
        return int(info.state.messages)
    finally:
        await bus.close()
