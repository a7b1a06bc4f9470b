"""Issue 11: review state outlives the Supervisor — restarts lose and repeat nothing, and any
number of Supervisors share it (in process; the multi-process tests are in tests/deploy)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import pytest
from e2e_helpers import CLEAN, diff_action
from flaky_bus import FlakyBus

from humangr.actors.roles import Engine, run_engine
from humangr.contracts import (
    ActionContext,
    ActionSubmitted,
    HumanLayerReport,
    Outcome,
    ReviewListing,
    ReviewQuery,
    ReviewResolution,
    Subjects,
    decode,
    encode,
)
from humangr.engine.actor import SupervisionPolicy
from humangr.engine.bus import Bus, MemoryBus
from humangr.engine.config import ReviewConfig
from humangr.engine.llm import LLMClient, ScriptedLLM
from humangr.engine.review import action_hash
from humangr.engine.signing import SigningKey
from humangr.engine.state import MemoryStateStore, SqliteStateStore, StateStore

pytestmark = pytest.mark.anyio

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
"""A diff whose only problem is one medium veto (HL3): needs_review without an LLM."""


def needs_review_action(n: int = 0) -> ActionContext:
    return ActionContext(
        agent_id="agent-d",
        action_type="code_diff",
        action_description=f"load json, variant {n}",
        code_diff=SWALLOWED + f"+# variant {n}\n",
    )


DEPLOYMENT_KEY = SigningKey.generate()
"""Every Supervisor of a deployment signs with the same key (each engine trusts only it)."""


@asynccontextmanager
async def engine(
    bus: Bus, state: StateStore, *, llm: LLMClient | None = None, **config: Any
) -> AsyncIterator[Engine]:
    policy = SupervisionPolicy(initial_backoff=0.01, drain_timeout=0.5)
    async with run_engine(
        bus=bus,
        llm=llm,
        state=state,
        config=ReviewConfig(**config),
        subjects=Subjects("dur"),
        policy=policy,
        signing_key=DEPLOYMENT_KEY,
    ) as running:
        yield running


class Decisions:
    """Every decision published on the bus while the block runs."""

    def __init__(self) -> None:
        self.seen: list[HumanLayerReport] = []
        self.changed = anyio.Event()

    async def wait(self, count: int, timeout: float = 20.0) -> list[HumanLayerReport]:
        with anyio.fail_after(timeout):
            while len(self.seen) < count:
                await self.changed.wait()
        return self.seen


@asynccontextmanager
async def decisions_on(bus: Bus) -> AsyncIterator[Decisions]:
    record = Decisions()
    async with bus.subscribe(Subjects("dur").decisions) as sub, anyio.create_task_group() as tg:

        async def collect() -> None:
            async for msg in sub:
                record.seen.append(decode(msg.data, HumanLayerReport))
                record.changed.set()
                record.changed = anyio.Event()

        tg.start_soon(collect)
        yield record
        tg.cancel_scope.cancel()


async def pending_list(bus: Bus) -> ReviewListing:
    reply = await bus.request(Subjects("dur").review_query, encode(ReviewQuery()), timeout=5)
    return decode(reply.data, ReviewListing)


def resolution(report: HumanLayerReport, verdict: str = "approve") -> ReviewResolution:
    return ReviewResolution(
        action_id=report.action_id,
        action_hash=report.action_hash,
        verdict=verdict,  # type: ignore[arg-type]
        reviewer="alice",
        reason="read the change; the bare except is fine here",
    )


async def test_a_pending_review_and_its_report_survive_restarts(tmp_path: Path) -> None:
    path = tmp_path / "humangr.db"
    async with MemoryBus() as bus:
        store = SqliteStateStore(path)
        async with engine(bus, store) as first:
            decided = await first.submit(needs_review_action(), timeout=30)
        await store.close()
        assert decided.outcome is Outcome.NEEDS_REVIEW
    async with MemoryBus() as bus:
        store = SqliteStateStore(path)
        async with engine(bus, store) as second, decisions_on(bus) as seen:
            listing = await pending_list(bus)
            assert [r.action_id for r in listing.reviews] == [decided.action_id]
            assert listing.reviews[0].action_hash == decided.action_hash
            s = second.subjects
            await bus.publish(s.review_resolve(decided.action_id), encode(resolution(decided)))
            final = (await seen.wait(1))[0]
            await anyio.sleep(0.5)  # published first, then recorded: the review is closed next
            assert await pending_list(bus) == ReviewListing()
        await store.close()
    assert final.outcome is Outcome.APPROVED
    assert final.resolved_by == "alice"
    assert final.report_id == decided.report_id
    async with MemoryBus() as bus:
        store = SqliteStateStore(path)
        async with engine(bus, store) as third:
            assert await third.report(decided.action_id) == final
            assert await third.report(decided.report_id) == final
        await store.close()


async def test_a_deadline_that_passed_while_the_engine_was_down_rejects_at_start(
    tmp_path: Path,
) -> None:
    path = tmp_path / "humangr.db"
    async with MemoryBus() as bus:
        store = SqliteStateStore(path)
        async with engine(bus, store, review_deadline_s=1.0) as first:
            decided = await first.submit(needs_review_action(), timeout=30)
        await store.close()
    await anyio.sleep(1.5)
    async with MemoryBus() as bus, decisions_on(bus) as seen:
        store = SqliteStateStore(path)
        async with engine(bus, store, review_deadline_s=1.0):
            final = (await seen.wait(1, timeout=10))[0]
            await anyio.sleep(0.5)
            assert len(seen.seen) == 1
        await store.close()
    assert final.action_id == decided.action_id
    assert final.outcome is Outcome.REJECTED
    assert final.resolved_by == "timeout"


async def test_a_redelivered_submission_that_was_decided_publishes_nothing_new() -> None:
    store = MemoryStateStore()
    async with MemoryBus() as bus, engine(bus, store) as running, decisions_on(bus) as seen:
        action = diff_action("01-clean-refactor.diff")
        submitted = ActionSubmitted(
            action_id="act-once", action=action, action_hash=action_hash(action)
        )
        for _ in range(3):
            await bus.publish(running.subjects.agent_submit(action.agent_id), encode(submitted))
        await seen.wait(1)
        await anyio.sleep(0.5)
    assert [d.action_id for d in seen.seen] == ["act-once"]


async def test_two_supervisors_share_resolutions_queries_and_timeouts() -> None:
    store = MemoryStateStore()
    async with (
        MemoryBus() as bus,
        engine(bus, store, review_deadline_s=3.0) as first,
        engine(bus, store, review_deadline_s=3.0),
        decisions_on(bus) as seen,
    ):
        reviews = [await first.submit(needs_review_action(n), timeout=30) for n in range(6)]
        assert {r.outcome for r in reviews} == {Outcome.NEEDS_REVIEW}
        for report in reviews:
            assert await first.report(report.action_id) == report
        assert len((await pending_list(bus)).reviews) == 6
        for report in reviews[:3]:
            await bus.publish(
                first.subjects.review_resolve(report.action_id), encode(resolution(report))
            )
        finals = await seen.wait(6 + 6, timeout=15)
        await anyio.sleep(1.0)
    by_action: dict[str, list[HumanLayerReport]] = {}
    for report in seen.seen:
        by_action.setdefault(report.action_id, []).append(report)
    assert len(finals) == 12, "each action: one decision and one final decision, no more"
    for report in reviews[:3]:
        assert [r.resolved_by for r in by_action[report.action_id]] == [None, "alice"]
    for report in reviews[3:]:
        assert [r.resolved_by for r in by_action[report.action_id]] == [None, "timeout"]


async def test_a_review_in_flight_is_run_again_after_its_supervisor_died(tmp_path: Path) -> None:
    path = tmp_path / "humangr.db"
    slow = ScriptedLLM.from_lines([{"match": {}, "delay_ms": 60_000, **CLEAN}])
    action = diff_action("01-clean-refactor.diff")
    submitted = ActionSubmitted(
        action_id="act-lost", action=action, action_hash=action_hash(action)
    )
    async with MemoryBus() as bus:
        store = SqliteStateStore(path)
        async with engine(bus, store, llm=slow, lease_s=1.0) as doomed:
            await bus.publish(doomed.subjects.agent_submit(action.agent_id), encode(submitted))
            await anyio.sleep(0.5)
        await store.close()
    fast = ScriptedLLM.from_lines([{"match": {}, **CLEAN}])
    async with MemoryBus() as bus, decisions_on(bus) as seen:
        store = SqliteStateStore(path)
        async with engine(bus, store, llm=fast, lease_s=1.0):
            decided = (await seen.wait(1, timeout=15))[0]
            await anyio.sleep(1.5)
            assert len(seen.seen) == 1
        await store.close()
    assert decided.action_id == "act-lost"
    assert decided.outcome is Outcome.APPROVED


async def test_a_decision_stuck_in_the_outbox_is_published_once_by_another_supervisor() -> None:
    store = MemoryStateStore()
    async with MemoryBus() as bus, decisions_on(bus) as seen:
        broken = FlakyBus(bus)
        broken.fail(Subjects("dur").decisions, 1_000)
        async with engine(broken, store, lease_s=1.0) as first:
            action = diff_action("01-clean-refactor.diff")
            submitted = ActionSubmitted(
                action_id="act-stuck", action=action, action_hash=action_hash(action)
            )
            await bus.publish(first.subjects.agent_submit(action.agent_id), encode(submitted))
            await anyio.sleep(2.0)  # the four attempts take 1.3 s
        assert broken.failed >= 4
        assert seen.seen == []
        async with engine(bus, store, lease_s=1.0):
            decided = (await seen.wait(1, timeout=15))[0]
            await anyio.sleep(1.5)
        assert [d.action_id for d in seen.seen] == ["act-stuck"]
    assert decided.outcome is Outcome.APPROVED


@pytest.mark.nats
async def test_a_decision_out_but_not_recorded_is_not_sent_again_on_jetstream(
    nats_url: str,
) -> None:
    """The Supervisor died between publishing a decision and marking it published: the next
    one finds it in the EVENTS stream and publishes nothing (a core subscriber sees one)."""
    import uuid

    from humangr.actors.review.outbox import decision_msg_id
    from humangr.engine.bus.jetstream import JetStreamConfig, stream_names
    from humangr.engine.bus.nats import NatsBus
    from humangr.engine.state.reviews import DecisionRecord, ReviewState

    subjects = Subjects(prefix=f"pl{uuid.uuid4().hex[:10]}")
    config = JetStreamConfig(storage="memory")
    bus = await NatsBus.connect(nats_url, jetstream=config, subjects=subjects)
    store = MemoryStateStore()
    try:
        async with run_engine(bus=bus, subjects=subjects, state=store) as running:
            report = await running.submit(diff_action("01-clean-refactor.diff"), timeout=30)
        subject = subjects.decision(report.agent_id)
        assert await bus.was_published(subject, decision_msg_id("act-x"), since=0) is False
        assert await bus.was_published(subject, decision_msg_id(report.action_id), since=0) is True
        assert await bus.was_published(subjects.dlq, "x", since=0) is None
        # a second action: recorded and published by hand, then "the process dies"
        dead = ReviewState(
            store, owner="dead-supervisor", retention_s=3600, review_deadline_s=60, lease_s=0.5
        )
        await dead.open()
        action = diff_action("04-blocking-call-in-async.diff")
        from msgspec.structs import replace

        second = replace(report, action_id="act-dead", report_id="rpt-dead")
        since = await bus.log_position(subject)
        assert since is not None
        assert await dead.begin(
            "act-dead", DecisionRecord(report=second, action=action), since=since
        )
        await bus.publish(subject, encode(second), headers={"Nats-Msg-Id": "decision:act-dead"})
        await anyio.sleep(0.6)
        async with (
            bus.subscribe(subjects.decisions) as sub,
            run_engine(bus=bus, subjects=subjects, state=store, config=ReviewConfig(lease_s=0.5)),
        ):
            await anyio.sleep(2.0)
            seen = [msg async for msg in _drain(sub)]
            record = await dead.decision("act-dead")
            assert record is not None
            assert record.published, "the next Supervisor marked it published"
        assert seen == [], "and did not send it again"
    finally:
        js = bus.client.jetstream()
        for name in stream_names(subjects):
            await js.delete_stream(name)
        await bus.close()


async def _drain(sub: Any) -> AsyncIterator[bytes]:
    with anyio.move_on_after(0.2):
        async for msg in sub:
            yield msg.data
