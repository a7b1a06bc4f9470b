"""Issue 24 item 2: at most one distinct signed decision per action, always. A Supervisor that
reaches a decision on an action already decided (another Supervisor recorded one meanwhile; a
lost write left the events stream holding one the bucket forgot) publishes no second one: it
republishes the recorded one byte for byte, or nothing, and dead-letters its own with why. The
same action submitted again under another action id is another execution with a decision of its
own, but not a review of its own: it gets the decision standing for its hash (see
``test_standing_decision``).
"""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from datetime import UTC, datetime

import anyio
import pytest
from e2e_helpers import CLEAN, diff_action
from test_durable_review import DEPLOYMENT_KEY, engine

from humangr.actors.roles import run_engine
from humangr.contracts import (
    ActionSubmitted,
    DeadLetter,
    HumanLayerReport,
    Outcome,
    Subjects,
    VetoLevel,
    decode,
    encode,
)
from humangr.engine.bus import Bus
from humangr.engine.llm import ScriptedLLM
from humangr.engine.review import action_hash
from humangr.engine.state import MemoryStateStore
from humangr.engine.state.reviews import DecisionRecord, ReviewState

pytestmark = pytest.mark.anyio


class Heard:
    """Every raw message on one subject while the block runs."""

    def __init__(self) -> None:
        self.raw: list[bytes] = []
        self.changed = anyio.Event()

    async def until(self, fits: Callable[[list[bytes]], object], timeout: float = 20.0) -> None:
        with anyio.fail_after(timeout):
            while not fits(self.raw):
                await self.changed.wait()


@asynccontextmanager
async def heard(bus: Bus, subject: str) -> AsyncIterator[Heard]:
    record = Heard()
    async with bus.subscribe(subject) as sub, anyio.create_task_group() as tg:

        async def collect() -> None:
            async for msg in sub:
                record.raw.append(bytes(msg.data))
                record.changed.set()
                record.changed = anyio.Event()

        tg.start_soon(collect)
        yield record
        tg.cancel_scope.cancel()


def letters_on(raw: list[bytes], action_id: str) -> list[DeadLetter]:
    letters = [decode(data, DeadLetter) for data in raw]
    return [letter for letter in letters if letter.correlation_id == action_id]


async def test_a_decision_recorded_meanwhile_is_republished_and_the_second_refused(
    bus: Bus,
) -> None:
    """The review runs (slowly); meanwhile "another Supervisor" records a rejection. This one's
    approval is never signed nor published: the rejection goes out byte for byte, and a dead
    letter says why."""
    store = MemoryStateStore()
    subjects = Subjects("dur")
    slow = ScriptedLLM.from_lines([{"match": {}, "delay_ms": 1_500, **CLEAN}])
    action = diff_action("01-clean-refactor.diff")
    digest = action_hash(action)
    action_id = f"act-{uuid.uuid4().hex[:8]}"
    other = DEPLOYMENT_KEY.sign(
        HumanLayerReport(
            report_id="rpt-other-supervisor",
            action_id=action_id,
            agent_id=action.agent_id,
            action_hash=digest,
            policy_version="p-" + "0" * 16,
            outcome=Outcome.REJECTED,
            final_veto_level=VetoLevel.STRONG,
            decided_at=datetime.now(UTC),
        )
    )
    async with (
        engine(bus, store, llm=slow) as running,
        heard(bus, subjects.decisions) as decisions,
        heard(bus, subjects.dlq) as letters,
    ):
        submitted = ActionSubmitted(action_id=action_id, action=action, action_hash=digest)
        await bus.publish(running.subjects.agent_submit(action.agent_id), encode(submitted))
        inflight = await store.bucket("inflight")
        with anyio.fail_after(15):
            while await inflight.get(action_id) is None:  # noqa: ASYNC110 - store state
                await anyio.sleep(0.02)
        state = ReviewState(store, owner="other", retention_s=3600, review_deadline_s=60)
        await state.open()
        assert await state.begin(action_id, DecisionRecord(report=other, action=action))
        await state.finish(action_id)
        await letters.until(lambda raw: letters_on(raw, action_id))
        await decisions.until(lambda raw: raw)
        await anyio.sleep(0.3)  # a second, different decision would arrive by now
    assert {decode(data, HumanLayerReport).outcome for data in decisions.raw} == {Outcome.REJECTED}
    assert set(decisions.raw) == {encode(other)}, "republished byte for byte"
    (letter,) = letters_on(letters.raw, action_id)
    assert "second decision" in letter.error
    assert "rpt-other-supervisor" in letter.error
    record = await state.decision(action_id)
    assert record is not None
    assert record.report == other


async def test_the_same_action_under_another_id_gets_a_decision_of_its_own(bus: Bus) -> None:
    store = MemoryStateStore()
    action = diff_action("01-clean-refactor.diff")
    async with engine(bus, store) as running:
        first = await running.submit(action, timeout=30)
        second = await running.submit(action, timeout=30)
    assert first.action_hash == second.action_hash
    assert first.action_id != second.action_id
    assert first.report_id != second.report_id
    assert first.outcome is second.outcome is Outcome.APPROVED
    assert second.decided_by == "standing decision", "the first one's outcome, not a review"


@pytest.mark.nats
async def test_a_lost_write_never_yields_a_second_decision_on_jetstream(nats_url: str) -> None:
    """The decisions bucket lost the record of a published decision (a lost write); the action
    comes again under its id: the events stream still holds the first decision, so none is
    signed again — the second is dead-lettered, and subscribers saw one."""
    from humangr.engine.bus.jetstream import JetStreamConfig, stream_names
    from humangr.engine.bus.nats import NatsBus

    subjects = Subjects(prefix=f"lw{uuid.uuid4().hex[:10]}")
    bus = await NatsBus.connect(
        nats_url, jetstream=JetStreamConfig(storage="memory"), subjects=subjects
    )
    store = MemoryStateStore()
    action = diff_action("01-clean-refactor.diff")
    submitted = ActionSubmitted(
        action_id="act-lost-write", action=action, action_hash=action_hash(action)
    )
    try:
        async with (
            run_engine(bus=bus, subjects=subjects, state=store) as running,
            heard(bus, subjects.decisions) as decisions,
            heard(bus, subjects.dlq) as letters,
        ):
            await bus.publish(running.subjects.agent_submit(action.agent_id), encode(submitted))
            await decisions.until(lambda raw: raw)
            state = ReviewState(store, owner="test", retention_s=3600, review_deadline_s=60)
            await state.open()
            with anyio.fail_after(10):
                while (record := await state.decision(submitted.action_id)) is None or (  # noqa: ASYNC110
                    not record.published
                ):
                    await anyio.sleep(0.02)
            await (await store.bucket("decisions")).delete(submitted.action_id)  # lost
            await bus.publish(running.subjects.agent_submit(action.agent_id), encode(submitted))
            await letters.until(lambda raw: letters_on(raw, submitted.action_id))
            await anyio.sleep(0.3)
        assert len(set(decisions.raw)) == 1, "one distinct decision, whatever was resent"
        (letter,) = letters_on(letters.raw, submitted.action_id)
        assert "lost write" in letter.error
        assert "events stream" in letter.error
    finally:
        js = bus.client.jetstream()
        for name in stream_names(subjects):
            await js.delete_stream(name)
        await bus.close()
