"""``StandingBook`` on every state store: one standing decision per (hash, policy version),
taken with compare-and-set, overruled by a human, and a damaged entry quarantined and removed
(never handed out, never a crash)."""

from __future__ import annotations

import anyio
import msgspec
import pytest

from humangr.contracts import HumanLayerReport, Outcome, VetoLevel, sha256_hex
from humangr.engine.state import StateStore
from humangr.engine.state.records import Damaged
from humangr.engine.state.reviews import ReviewState
from humangr.engine.state.standing import STANDING_BUCKET, StandingRecord, standing_key

pytestmark = pytest.mark.anyio

HASH = sha256_hex(b"rm -rf build/")


def report(action_id: str, outcome: Outcome, policy: str = "p1") -> HumanLayerReport:
    return HumanLayerReport(
        report_id=f"rpt-{action_id}",
        action_id=action_id,
        agent_id="agent-1",
        action_hash=HASH,
        policy_version=policy,
        outcome=outcome,
        final_veto_level=VetoLevel.NONE,
    )


async def opened(store: StateStore, seen: list[Damaged] | None = None) -> ReviewState:
    async def told(damaged: Damaged) -> None:
        if seen is not None:
            seen.append(damaged)

    state = ReviewState(store, owner="sup", retention_s=3600, review_deadline_s=60, on_damaged=told)
    await state.open()
    return state


async def test_of_many_racing_claims_one_stands(state_store: StateStore) -> None:
    book = (await opened(state_store)).standing
    claims = [report(f"act-{n}", Outcome.APPROVED if n % 2 else Outcome.REJECTED) for n in range(8)]
    won: list[HumanLayerReport] = []

    async def claim(candidate: HumanLayerReport) -> None:
        won.append(await book.claim(candidate))

    async with anyio.create_task_group() as tg:
        for candidate in claims:
            tg.start_soon(claim, candidate)
    assert len({r.report_id for r in won}) == 1, "every claimant got the same winner"
    assert await book.get(HASH, "p1") == won[0]
    assert await book.get(HASH, "p2") is None, "another policy version: nothing stands"


async def test_a_humans_resolution_overrules(state_store: StateStore) -> None:
    book = (await opened(state_store)).standing
    await book.claim(report("act-1", Outcome.NEEDS_REVIEW))
    await book.overrule(report("act-1", Outcome.APPROVED))
    standing = await book.get(HASH, "p1")
    assert standing is not None
    assert standing.outcome is Outcome.APPROVED
    assert (await book.claim(report("act-2", Outcome.REJECTED))).outcome is Outcome.APPROVED


@pytest.mark.parametrize(
    "value",
    [
        b"not json",
        b'{"report": {"action_id": "act-1"}',
        # a sound record of another hash, stored under this hash's key
        StandingRecord(report=report("act-9", Outcome.APPROVED, policy="p9")),
    ],
)
async def test_a_damaged_entry_is_quarantined_and_never_stands(
    state_store: StateStore, value: bytes | StandingRecord
) -> None:
    seen: list[Damaged] = []
    state = await opened(state_store, seen)
    raw = value if isinstance(value, bytes) else msgspec.json.encode(value)
    bucket = await state_store.bucket(STANDING_BUCKET)
    await bucket.put(standing_key(HASH, "p1"), raw)
    assert await state.standing.get(HASH, "p1") is None
    assert [(d.bucket, d.fate) for d in seen] == [(STANDING_BUCKET, "removed")]
    fresh = report("act-2", Outcome.REJECTED)
    assert await state.standing.claim(fresh) is fresh, "the next decision stands"


def test_a_degraded_review_is_known_by_its_note() -> None:
    """A review some layers got no LLM run for (no live worker had one) does not stand: it is
    known by the note the Supervisor writes."""
    from humangr.actors.review.decision_report import local_note as _local_note
    from humangr.actors.review.standing import DEGRADED_NOTE, stands
    from humangr.contracts import LayerID

    note = _local_note([LayerID.HL1, LayerID.HL4])
    assert note.startswith(DEGRADED_NOTE)
    first = report("act-1", Outcome.APPROVED)
    assert stands("act-1", first)
    assert not stands("act-1", msgspec.structs.replace(first, policy_notes=[note]))
