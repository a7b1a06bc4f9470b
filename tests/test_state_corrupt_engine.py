"""Issue 20, item 9, end to end over both buses: damaged entries in every bucket of the review
state while other actions flow. The others are decided, queries are answered, deadlines fire,
each damaged entry is one dead letter and one count, and the Supervisor never restarts."""

from __future__ import annotations

import sys
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import msgspec
import pytest

from humangr.actors.roles import Engine, run_engine
from humangr.contracts import (
    ActionContext,
    DeadLetter,
    HumanLayerReport,
    Outcome,
    ReportQuery,
    ReportReply,
    ReviewListing,
    ReviewQuery,
    Subjects,
    decode,
    encode,
)
from humangr.engine.actor import SupervisionPolicy
from humangr.engine.bus import Bus
from humangr.engine.config import ReviewConfig
from humangr.engine.errors import SubmissionRefused
from humangr.engine.state import MemoryStateStore, StateStore
from humangr.engine.state.reviews import OutboxRecord

sys.path.insert(0, str(Path(__file__).parent / "e2e"))
from e2e_helpers import SWALLOWED  # one medium veto: needs_review without an LLM

pytestmark = pytest.mark.anyio

EXAMPLES = Path(__file__).resolve().parents[1] / "examples" / "actions"


def clean_action() -> ActionContext:
    return ActionContext(
        agent_id="agent-q",
        action_type="code_diff",
        action_description="apply a clean refactor",
        code_diff=(EXAMPLES / "01-clean-refactor.diff").read_text(),
    )


def swallowed_action(n: int) -> ActionContext:
    return ActionContext(
        agent_id="agent-q",
        action_type="code_diff",
        action_description=f"load json {n}",
        code_diff=SWALLOWED + f"+# variant {n}\n",
    )


class Seen:
    """The dead letters and decisions published while an engine runs."""

    def __init__(self) -> None:
        self.letters: list[DeadLetter] = []
        self.decisions: list[HumanLayerReport] = []
        self.changed = anyio.Event()

    def add(self, found: list[Any], item: object) -> None:
        found.append(item)
        self.changed.set()
        self.changed = anyio.Event()

    async def wait_for(self, ready: Any, timeout: float = 20.0) -> None:
        with anyio.fail_after(timeout):
            while not ready():
                await self.changed.wait()


@asynccontextmanager
async def engine_on(
    bus: Bus, store: StateStore, **config: Any
) -> AsyncIterator[tuple[Engine, Seen]]:
    subjects = Subjects(prefix=f"q{uuid.uuid4().hex[:10]}")
    seen = Seen()
    async with (
        bus.subscribe(subjects.dlq) as letters,
        bus.subscribe(subjects.decisions) as decisions,
        anyio.create_task_group() as tg,
    ):

        async def collect_letters() -> None:
            async for msg in letters:
                seen.add(seen.letters, decode(msg.data, DeadLetter))

        async def collect_decisions() -> None:
            async for msg in decisions:
                seen.add(seen.decisions, decode(msg.data, HumanLayerReport))

        tg.start_soon(collect_letters)
        tg.start_soon(collect_decisions)
        policy = SupervisionPolicy(initial_backoff=0.01, drain_timeout=1.0)
        async with run_engine(
            bus=bus, state=store, config=ReviewConfig(**config), subjects=subjects, policy=policy
        ) as engine:
            yield engine, seen
        tg.cancel_scope.cancel()


async def listing(engine: Engine, action_id: str | None = None) -> ReviewListing:
    query = ReviewQuery(action_id=action_id)
    reply = await engine.bus.request(engine.subjects.review_query, encode(query), timeout=5)
    return decode(reply.data, ReviewListing)


async def pending_soon(engine: Engine) -> ReviewListing:
    """The pending list once it holds a review (the decision goes out just before its review
    is recorded as pending)."""
    with anyio.fail_after(10):
        while True:
            found = await listing(engine)
            if found.reviews or found.error:
                return found
            await anyio.sleep(0.1)


def state_letters(seen: Seen) -> dict[str, DeadLetter]:
    return {
        letter.subject: letter for letter in seen.letters if letter.subject.startswith("state/")
    }


def sample(engine: Engine, name: str, **labels: str) -> float:
    """The value of one series (``None`` if it does not exist: it must, from zero)."""
    value = engine.metrics.registry.get_sample_value(name, labels)
    assert value is not None, (name, labels)
    return value


async def test_damaged_entries_in_every_bucket_stop_nothing(
    bus: Bus, state_store: StateStore
) -> None:
    store = state_store
    stale = msgspec.json.encode(OutboxRecord(owner="gone", lease_until=1.0))
    for bucket, key, value in (
        ("outbox", "act-x1", b"\x00\xffgarbage"),
        ("pending", "act-x2", b'{"report": {"report_id": "rpt-'),
        ("decisions", "act-x3", stale),
        ("inflight", "act-x4", b"[1, 2, 3]"),
        ("reports", "rpt-x5", b"\xff\xfe"),
    ):
        await (await store.bucket(bucket)).put(key, value)
    async with engine_on(bus, store, review_deadline_s=2.0) as (engine, seen):
        await seen.wait_for(lambda: len(state_letters(seen)) >= 3)
        approved = await engine.submit(clean_action(), timeout=20)
        assert approved.outcome is Outcome.APPROVED
        needs = await engine.submit(swallowed_action(1), timeout=20)
        assert needs.outcome is Outcome.NEEDS_REVIEW
        pending = await pending_soon(engine)
        assert pending.error is None
        assert [r.action_id for r in pending.reviews] == [needs.action_id]
        reply = await engine.bus.request(
            engine.subjects.report_get, encode(ReportQuery(id="rpt-x5")), timeout=5
        )
        assert "no report" in (decode(reply.data, ReportReply).error or "")
        detail = await listing(engine, "act-x3")
        assert detail.detail is None
        assert "decisions entry 'act-x3' is damaged" in (detail.error or "")
        with pytest.raises(SubmissionRefused, match="damaged"):
            await engine.submit(clean_action(), action_id="act-x3", timeout=10)
        await seen.wait_for(
            lambda: any(d.resolved_by == "timeout" for d in seen.decisions), timeout=15
        )
        await seen.wait_for(lambda: len(state_letters(seen)) == 5)
        restarts = engine.metrics.registry.get_sample_value(
            "humangr_actor_restarts_total", {"actor": "supervisor"}
        )
        assert not restarts, "the Supervisor never crashed"
        letters = state_letters(seen)
        for bucket in ("outbox", "pending", "decisions", "inflight", "reports"):
            assert sample(engine, "humangr_state_quarantined_total", bucket=bucket) == 1
        reasons = sample(engine, "humangr_dead_letter_reasons_total", reason="damaged_state")
        assert reasons == 5
    assert sorted(letters) == [
        "state/decisions",
        "state/inflight",
        "state/outbox",
        "state/pending",
        "state/reports",
    ]
    assert letters["state/decisions"].correlation_id == "act-x3"
    assert "stays in place" in letters["state/decisions"].error
    assert letters["state/pending"].raw.startswith(b'{"report"')
    assert letters["state/inflight"].raw_size == 9
    final = [d for d in seen.decisions if d.action_id == needs.action_id]
    assert [d.outcome for d in final] == [Outcome.NEEDS_REVIEW, Outcome.REJECTED]
    assert not [d for d in seen.decisions if d.action_id in ("act-x1", "act-x3")]
    assert (await (await store.bucket("decisions")).get("act-x3")) is not None
    assert await (await store.bucket("outbox")).get("act-x1") is None
    assert await (await store.bucket("inflight")).get("act-x4") is None
    assert await (await store.bucket("pending")).get("act-x2") is None


async def test_a_pending_review_damaged_while_waiting_is_rebuilt_and_times_out(bus: Bus) -> None:
    store = MemoryStateStore()
    async with engine_on(bus, store, review_deadline_s=3.0) as (engine, seen):
        needs = await engine.submit(swallowed_action(2), timeout=20)
        assert needs.outcome is Outcome.NEEDS_REVIEW
        pending = await store.bucket("pending")
        await pending.put(needs.action_id, b"\x93\x01\x02\x03 msgpack, not JSON")
        await seen.wait_for(lambda: len(state_letters(seen)) == 1)
        assert [r.action_id for r in (await pending_soon(engine)).reviews] == [needs.action_id]
        await seen.wait_for(lambda: len(seen.decisions) == 2, timeout=15)
    letter = state_letters(seen)["state/pending"]
    assert "rebuilt from the action's decision" in letter.error
    assert letter.correlation_id == needs.action_id
    final = seen.decisions[1]
    assert final.action_id == needs.action_id
    assert final.outcome is Outcome.REJECTED
    assert final.resolved_by == "timeout"
