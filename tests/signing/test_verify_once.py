"""Issue 24 item 2: ``humangr.verify_decision(report, trusted, seen=store)`` verifies the
signatures and lets one approval authorise one execution: the same approval replayed, or a
second approval of an action already executed, is refused — over memory, SQLite and NATS KV,
and two executors racing on one approval get exactly one go."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import anyio
import msgspec
import pytest

import humangr
from humangr.contracts import HumanLayerReport, Outcome, VetoLevel
from humangr.engine.errors import SignatureError, StateConflict
from humangr.engine.signing import SigningKey
from humangr.engine.state.base import StateStore
from humangr.errors import DecisionReused
from humangr.verifying import USED_APPROVALS

pytestmark = pytest.mark.anyio

KEY = SigningKey.generate()


def signed(**changes: Any) -> HumanLayerReport:
    base = HumanLayerReport(
        report_id="rpt-1",
        action_id="act-1",
        agent_id="agent-1",
        action_hash="a" * 64,
        policy_version="p-" + "0" * 16,
        outcome=Outcome.APPROVED,
        final_veto_level=VetoLevel.NONE,
        decided_at=datetime(2026, 11, 25, 7, 0, 0, tzinfo=UTC),
    )
    return KEY.sign(msgspec.structs.replace(base, **changes))


def test_without_seen_it_is_the_plain_synchronous_check() -> None:
    assert humangr.verify_decision(signed(), KEY.public_key) is None
    assert humangr.verify_decision(signed(), KEY.public_key) is None  # nothing recorded
    forged = msgspec.structs.replace(signed(), outcome=Outcome.APPROVED, action_hash="b" * 64)
    with pytest.raises(SignatureError):
        humangr.verify_decision(forged, KEY.public_key)


async def test_a_replayed_approval_is_refused(state_store: StateStore) -> None:
    approval = signed()
    assert await humangr.verify_decision(approval, KEY.public_key, seen=state_store) is None
    with pytest.raises(DecisionReused, match="authorises one execution") as caught:
        await humangr.verify_decision(approval, KEY.public_key, seen=state_store)
    assert isinstance(caught.value, SignatureError)  # callers catching SignatureError hold
    assert "act-1" in str(caught.value)
    # a second, different approval of the same action id (another Supervisor, a lost write)
    other = signed(report_id="rpt-2", decided_at=datetime(2026, 11, 25, 8, tzinfo=UTC))
    with pytest.raises(DecisionReused):
        await humangr.verify_decision(other, KEY.public_key, seen=state_store)
    # another action, even with the same hash, is another execution
    again = signed(report_id="rpt-3", action_id="act-2")
    assert await humangr.verify_decision(again, KEY.public_key, seen=state_store) is None
    used = await (await state_store.bucket(USED_APPROVALS)).get("act-1")
    assert used is not None
    assert msgspec.json.decode(used.value)["report_id"] == "rpt-1"


async def test_a_forged_approval_is_refused_and_not_recorded(state_store: StateStore) -> None:
    forged = msgspec.structs.replace(signed(), action_hash="b" * 64)
    with pytest.raises(SignatureError) as caught:
        await humangr.verify_decision(forged, KEY.public_key, seen=state_store)
    assert not isinstance(caught.value, DecisionReused)
    assert await (await state_store.bucket(USED_APPROVALS)).get("act-1") is None
    # the genuine one is still usable once
    assert await humangr.verify_decision(signed(), KEY.public_key, seen=state_store) is None


async def test_a_rejection_or_pending_review_does_not_use_up_the_action(
    state_store: StateStore,
) -> None:
    pending = signed(outcome=Outcome.NEEDS_REVIEW)
    assert await humangr.verify_decision(pending, KEY.public_key, seen=state_store) is None
    assert await humangr.verify_decision(pending, KEY.public_key, seen=state_store) is None
    final = signed(report_id="rpt-final", resolved_by="alice")
    assert await humangr.verify_decision(final, KEY.public_key, seen=state_store) is None
    with pytest.raises(DecisionReused):
        await humangr.verify_decision(final, KEY.public_key, seen=state_store)


async def test_two_executors_racing_on_one_approval_get_one_go(state_store: StateStore) -> None:
    approval = signed()
    outcomes: list[str] = []

    async def execute() -> None:
        try:
            await humangr.verify_decision(approval, KEY.public_key, seen=state_store)
            outcomes.append("ran")
        except DecisionReused:
            outcomes.append("refused")

    async with anyio.create_task_group() as tg:
        for _ in range(8):
            tg.start_soon(execute)
    assert sorted(outcomes) == ["ran"] + ["refused"] * 7


class _OneShot:
    """Not a StateStore: any object with an atomic create will do."""

    def __init__(self) -> None:
        self.keys: dict[str, bytes] = {}

    async def create(self, key: str, value: bytes) -> int:
        if key in self.keys:
            raise StateConflict(f"{key} exists")
        self.keys[key] = value
        return len(self.keys)


async def test_any_bucket_with_an_atomic_create_will_do() -> None:
    seen = _OneShot()
    await humangr.verify_decision(signed(), KEY.public_key, seen=seen)
    assert list(seen.keys) == ["act-1"]
    with pytest.raises(DecisionReused):
        await humangr.verify_decision(signed(), KEY.public_key, seen=seen)
