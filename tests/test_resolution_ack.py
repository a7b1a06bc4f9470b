"""A human's resolution is acknowledged — by the final decision it produces — or its sender is
told it was not, never left with silence; and a Supervisor that dies holding a review's claim
blocks that review for ``CLAIM_S``, not the 10 s lease: a live Supervisor takes it over."""

from __future__ import annotations

import time
import uuid
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from typing import Any

import anyio
import msgspec
import pytest
from cli_reviews_helpers import REASON, pricing_action, script

from humangr.actors.review.human_review import CLAIM_S
from humangr.actors.review.supervisor import SupervisorActor
from humangr.actors.roles import run_engine
from humangr.contracts import HumanLayerReport, LayerID, Outcome, ReviewResolution, Subjects
from humangr.engine.actor import ActorSystem
from humangr.engine.bus import Bus, Msg
from humangr.engine.config import ReviewConfig
from humangr.engine.errors import EngineError
from humangr.engine.state import MemoryStateStore, StateStore
from humangr.engine.state.reviews import ReviewState, final_key
from humangr.reviewing import Channel, resolve

pytestmark = pytest.mark.anyio
PROMPT_S = CLAIM_S + 1.5
"""A takeover waits out the dead Supervisor's claim, and a little more: never the lease."""


class _DiesMidResolution(SupervisorActor):
    """Takes a resolution, claims its review as a Supervisor does, and dies before deciding
    (it answers queries until then, as the live process did)."""

    async def _on_resolution(self, resolution: ReviewResolution, msg: Msg) -> None:
        stored = await self.state.pending_review(resolution.action_id)
        if stored is not None:
            await self.state.claim_review(stored, hold_s=CLAIM_S)


def _policy(layers: Sequence[LayerID]) -> str:
    return "test-policy"


@asynccontextmanager
async def supervisor(
    bus: Bus, subjects: Subjects, store: StateStore, kind: type[SupervisorActor] = SupervisorActor
) -> AsyncIterator[None]:
    """One Supervisor process on ``store`` (no layers: it only resolves and answers)."""
    system = ActorSystem(bus, subjects=subjects)
    system.add(kind(ReviewConfig(), policy=_policy, llm_review=False, state=store))
    async with system.running():
        yield


async def pending_review(bus: Bus, subjects: Subjects, store: StateStore) -> HumanLayerReport:
    """An action that waits for a human, its review recorded in ``store``."""
    state = ReviewState(store, owner="reader", retention_s=3600, review_deadline_s=3600)
    await state.open()
    async with run_engine(bus=bus, llm=script(), subjects=subjects, state=store) as engine:
        report = await engine.submit(pricing_action(), timeout=30)
        assert report.outcome is Outcome.NEEDS_REVIEW, report.blocking_reasons
        for _ in range(200):  # recorded once the decision is out
            if await state.pending_review(report.action_id) is not None:
                return report
            await anyio.sleep(0.05)
    raise AssertionError(f"the review of {report.action_id} was never recorded")


def channel(bus: Bus, subjects: Subjects) -> Channel:
    return Channel(bus, subjects, "in this test", 5.0)


async def timed(coro: Any) -> tuple[Any, float]:
    started = time.monotonic()
    result = await coro
    return result, time.monotonic() - started


async def test_a_claim_held_by_a_dead_supervisor_is_taken_over_promptly(bus: Bus) -> None:
    store, subjects = MemoryStateStore(), Subjects(f"ra{uuid.uuid4().hex[:10]}")
    first = await pending_review(bus, subjects, store)
    dead = ReviewState(store, owner="supervisor-dead", retention_s=3600, review_deadline_s=3600)
    await dead.open()
    async with supervisor(bus, subjects, store):
        held = await dead.pending_review(first.action_id)
        assert held is not None
        assert await dead.claim_review(held, hold_s=CLAIM_S), "claimed, then its process died"
        final, elapsed = await timed(
            resolve(channel(bus, subjects), first.action_id, "approve", "alice", REASON, wait=10)
        )
    assert (final.outcome, final.resolved_by, final.resolution_reason) == (
        Outcome.APPROVED,
        "alice",
        REASON,
    )
    assert elapsed < PROMPT_S, f"applied {elapsed:.1f}s later: the claim blocked it too long"


async def test_a_resolution_lost_with_its_supervisor_is_reported_then_applied_by_another(
    bus: Bus,
) -> None:
    store, subjects = MemoryStateStore(), Subjects(f"ra{uuid.uuid4().hex[:10]}")
    first = await pending_review(bus, subjects, store)
    to = channel(bus, subjects)
    async with supervisor(bus, subjects, store, _DiesMidResolution):
        with pytest.raises(EngineError) as lost:
            await resolve(to, first.action_id, "approve", "alice", REASON, wait=4)
    message = str(lost.value)
    assert f"the resolution of {first.action_id} was not acknowledged" in message
    assert "the review is still pending; try again" in message
    assert "sent 2 times" in message, "sent again while nothing acknowledged it"

    async with supervisor(bus, subjects, store):
        final, elapsed = await timed(resolve(to, first.action_id, "reject", "bob", REASON, wait=10))
    assert (final.outcome, final.resolved_by) == (Outcome.REJECTED, "bob")
    assert elapsed < PROMPT_S, f"the retry was applied {elapsed:.1f}s later"


async def test_a_claim_that_outlasts_the_wait_is_reported_still_pending(bus: Bus) -> None:
    """A claim held longer than the sender waits (a Supervisor of the old 30 s lease): the
    sender is told the review is still pending, and nothing was resolved."""
    store, subjects = MemoryStateStore(), Subjects(f"ra{uuid.uuid4().hex[:10]}")
    first = await pending_review(bus, subjects, store)
    other = ReviewState(store, owner="supervisor-old", retention_s=3600, review_deadline_s=3600)
    await other.open()
    async with supervisor(bus, subjects, store):
        held = await other.pending_review(first.action_id)
        assert held is not None
        assert await other.claim_review(held, hold_s=30)
        with pytest.raises(EngineError) as told:
            await resolve(channel(bus, subjects), first.action_id, "approve", "al", REASON, wait=3)
        still = await other.pending_review(first.action_id)
    assert "the review is still pending; try again" in str(told.value)
    assert still is not None, "nothing was resolved"


class _NeverSweeps(SupervisorActor):
    """A Supervisor whose background work has not come by yet (as right after a start): only
    a resolution can meet a deadline that passed."""

    async def background(self, ctx: Any) -> None:
        await anyio.sleep_forever()


async def test_a_resolution_after_the_deadline_is_refused_before_the_sweep_comes_by(
    bus: Bus,
) -> None:
    store, subjects = MemoryStateStore(), Subjects(f"ra{uuid.uuid4().hex[:10]}")
    first = await pending_review(bus, subjects, store)
    state = ReviewState(store, owner="clock", retention_s=3600, review_deadline_s=3600)
    await state.open()
    held = await state.pending_review(first.action_id)
    assert held is not None
    past = msgspec.structs.replace(held.value, deadline=time.time() - 1)
    await state.pending.bucket.update(first.action_id, msgspec.json.encode(past), held.revision)
    async with supervisor(bus, subjects, store, _NeverSweeps):
        with pytest.raises(EngineError) as late:
            await resolve(channel(bus, subjects), first.action_id, "approve", "al", REASON, wait=5)
    told = str(late.value)
    assert "resolved first by timeout" in told or "timed out before this resolution" in told
    final = await state.decision(final_key(first.action_id))
    assert final is not None, "the deadline's decision was made at once"
    assert final.report.outcome is Outcome.REJECTED
    assert await state.pending_review(first.action_id) is None
