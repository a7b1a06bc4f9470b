"""A decision of the embedded engine's Supervisor is handed to the engine's own waiters as the
object signed (``LocalDecisions``). When their listener is all the bus would deliver it to, it
is recorded and marked as published without a publish (that publish would only deliver it to
them again); whenever anything else would receive it, it is published as before."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import anyio
import pytest

from humangr.actors.roles import Engine, run_engine
from humangr.contracts import (
    ActionContext,
    HumanLayerReport,
    Outcome,
    ToolCall,
    decode,
)
from humangr.engine.bus import Headers, MemoryBus
from humangr.engine.state import MemoryStateStore
from humangr.engine.state.reviews import ReviewState

pytestmark = pytest.mark.anyio


class _CountingBus(MemoryBus):
    """A MemoryBus that notes the subject of every publish."""

    def __init__(self) -> None:
        super().__init__()
        self.published: list[str] = []

    async def publish(
        self,
        subject: str,
        data: bytes,
        *,
        headers: Headers | None = None,
        reply: str | None = None,
    ) -> None:
        self.published.append(subject)
        await super().publish(subject, data, headers=headers, reply=reply)


def _call(command: str) -> ActionContext:
    return ActionContext(
        agent_id="agent-1",
        action_type="tool_call",
        action_description="run a command",
        tool_call=ToolCall(name="bash", arguments={"command": command}),
    )


@asynccontextmanager
async def _engine(
    store: MemoryStateStore | None = None,
) -> AsyncIterator[tuple[Engine, _CountingBus]]:
    bus = _CountingBus()
    async with run_engine(bus=bus, state=store) as engine:
        yield engine, bus


def _decisions(bus: _CountingBus, engine: Engine) -> list[str]:
    prefix = engine.subjects.decision("agent-1")
    return [subject for subject in bus.published if subject == prefix]


async def test_a_decision_only_the_waiters_would_receive_is_recorded_not_published() -> None:
    async with _engine() as (engine, bus):
        report = await engine.submit(_call("ls -la"), action_id="act-quiet-1")
        stored = await engine.report("act-quiet-1")  # recorded and marked published
    assert report.outcome is Outcome.APPROVED
    assert stored.report_id == report.report_id
    assert stored.report_signature == report.report_signature
    assert _decisions(bus, engine) == []


async def test_another_subscriber_gets_the_decision_published() -> None:
    seen: list[HumanLayerReport] = []
    async with _engine() as (engine, bus):
        async with bus.subscribe(engine.subjects.decisions) as watcher:
            report = await engine.submit(_call("rm -rf /"), action_id="act-heard-1")
            with anyio.fail_after(5):
                async for msg in watcher:
                    seen.append(decode(msg.data, HumanLayerReport))
                    break
        # the watcher is gone: the next decision is handed over only
        again = await engine.submit(_call("git status"), action_id="act-quiet-2")
    assert report.outcome is Outcome.REJECTED
    assert [s.report_id for s in seen] == [report.report_id]
    assert seen[0].report_signature == report.report_signature
    assert again.outcome is Outcome.APPROVED
    assert len(_decisions(bus, engine)) == 1


async def test_a_subscriber_of_this_agent_alone_gets_it_too() -> None:
    async with _engine() as (engine, bus):
        subject = engine.subjects.decision("agent-1")
        async with bus.subscribe(subject) as watcher:
            report = await engine.submit(_call("pytest -q"), action_id="act-heard-2")
            with anyio.fail_after(5):
                msg = await anext(aiter(watcher))
    assert decode(msg.data, HumanLayerReport).report_id == report.report_id


async def test_a_needs_review_handed_over_still_opens_its_human_review() -> None:
    store = MemoryStateStore()
    async with _engine(store) as (engine, bus):
        report = await engine.submit(
            _call("sudo apt-get install -y nginx"), action_id="act-quiet-3"
        )
        state = ReviewState(store, owner="test", retention_s=3600, review_deadline_s=60)
        await state.open()
        pending = await state.pending_review("act-quiet-3")
        outbox = await state.outbox.all()
    assert report.outcome is Outcome.NEEDS_REVIEW
    assert pending is not None
    assert pending.value.report.report_id == report.report_id
    assert outbox == [], "marked published: nothing left for the outbox to send"
    assert _decisions(bus, engine) == []
