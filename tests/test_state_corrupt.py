"""Issue 20, item 9: a damaged entry in the review state is quarantined, never a crash.

Over every store (memory, SQLite, JetStream KV): garbage, truncated and wrong-type values in each
bucket of ``ReviewState`` are reported once (across readers), copied to the quarantine bucket,
and removed, rebuilt or (decisions) kept; sound entries beside them read as before.
"""

from __future__ import annotations

import msgspec
import pytest
from prometheus_client import CollectorRegistry

from humangr.contracts import ActionContext, ActionSubmitted
from humangr.engine.metrics import STATE_BUCKETS, Metrics
from humangr.engine.review import action_hash
from humangr.engine.state import StateStore
from humangr.engine.state.records import QUARANTINE_BUCKET, Damaged, DamagedEntry
from humangr.engine.state.reviews import (
    InflightRecord,
    OutboxRecord,
    ReviewState,
    final_key,
)

pytestmark = pytest.mark.anyio

ACTION = ActionContext(
    agent_id="agent-q",
    action_type="code_diff",
    action_description="add a constant",
    code_diff="--- a/x.py\n+++ b/x.py\n@@ -0,0 +1 @@\n+LIMIT = 10\n",
)


def inflight(action_id: str) -> bytes:
    submitted = ActionSubmitted(action_id=action_id, action=ACTION, action_hash=action_hash(ACTION))
    record = InflightRecord(submitted=submitted, owner="supervisor-x", lease_until=1.0)
    return msgspec.json.encode(record)


def outbox(owner: str = "supervisor-x") -> bytes:
    return msgspec.json.encode(OutboxRecord(owner=owner, lease_until=1.0))


def damaged_values(key: str) -> dict[str, bytes]:
    """Garbage, a sound record cut short, and sound records of the wrong type or key."""
    return {
        "garbage": b"\x00\xff\xfe not json {{{",
        "truncated": inflight(key)[:57],
        "outbox-in-place": outbox(),
        "inflight-in-place": inflight(key),
        "other-key": inflight("act-someone-else"),
        "empty": b"",
        "number": b"42",
    }


class Reported:
    def __init__(self) -> None:
        self.seen: list[Damaged] = []

    async def __call__(self, damaged: Damaged) -> None:
        self.seen.append(damaged)


async def opened(store: StateStore, reported: Reported, owner: str = "sup-a") -> ReviewState:
    state = ReviewState(
        store, owner=owner, retention_s=3600, review_deadline_s=60, on_damaged=reported
    )
    await state.open()
    return state


@pytest.mark.parametrize("bucket", ["inflight", "pending"])
async def test_damaged_entries_are_quarantined_removed_and_reported_once(
    state_store: StateStore, bucket: str
) -> None:
    reported = Reported()
    state = await opened(state_store, reported)
    other = await opened(state_store, Reported(), owner="sup-b")
    raw = await state_store.bucket(bucket)
    values = damaged_values("act-bad")
    sound = bucket == "inflight"  # an InflightRecord under its own key is sound there
    for n, value in enumerate(values.values()):
        await raw.put(f"act-bad-{n}" if n != 3 else "act-bad", value)
    await state.track(
        ActionSubmitted(action_id="act-good", action=ACTION, action_hash=action_hash(ACTION))
    )

    records = state.inflight if bucket == "inflight" else state.pending
    listed = [key for key, _ in await records.all()]
    expected = ["act-good"] if bucket == "inflight" else []
    if sound:
        expected = ["act-bad", *expected]
    assert listed == expected
    bad = len(values) - (1 if sound else 0)
    assert len(reported.seen) == bad
    assert {d.bucket for d in reported.seen} == {bucket}
    assert all(d.fate == "removed" and d.reason for d in reported.seen)
    assert [key for key, _ in await records.all()] == expected, "removed: not listed again"
    assert [key for key, _ in await (other.inflight if sound else other.pending).all()] == expected
    assert len(reported.seen) == bad, "reported once, whoever reads next"
    held = await (await state_store.bucket(QUARANTINE_BUCKET)).entries()
    assert len(held) == bad
    for damaged in reported.seen:
        assert any(e.key == damaged.quarantined_as for e in held)
    remaining = {e.key for e in await raw.entries()}
    assert remaining == set(expected) | ({"act-good"} if bucket == "inflight" else set())


async def test_a_wrong_key_or_kind_is_damaged_not_misread(state_store: StateStore) -> None:
    reported = Reported()
    state = await opened(state_store, reported)
    raw = await state_store.bucket("inflight")
    await raw.put("act-a", inflight("act-b"))
    assert await state.inflight.get("act-a") is None
    assert "not 'act-a'" in reported.seen[0].reason
    outbox_raw = await state_store.bucket("outbox")
    await outbox_raw.put("act-c", inflight("act-c"))  # an InflightRecord has owner and lease too
    assert [k for k, _ in await state.outbox.all()] == []
    assert "kind" in reported.seen[1].reason


async def test_a_damaged_outbox_entry_is_rebuilt_for_this_supervisor(
    state_store: StateStore,
) -> None:
    reported = Reported()
    state = await opened(state_store, reported)
    raw = await state_store.bucket("outbox")
    for n, value in enumerate(damaged_values("act-o").values()):
        if value != outbox():
            await raw.put(f"act-o{n}", value)
    assert await state.outbox.all() == []
    rebuilt = await state.outbox.all()
    assert len(rebuilt) == len(reported.seen) == 6
    assert {d.fate for d in reported.seen} == {"rebuilt"}
    assert {stored.value.owner for _, stored in rebuilt} == {"sup-a"}
    for key, _ in rebuilt:  # nothing decided under these keys: finishing empties the outbox
        assert await state.finish(key) is None
    assert await raw.entries() == []


async def test_a_damaged_decision_is_kept_and_refused_never_read(state_store: StateStore) -> None:
    reported = Reported()
    state = await opened(state_store, reported)
    raw = await state_store.bucket("decisions")
    for key, value in (("act-d", b'{"report": {"action_id": "act-d"'), ("act-e", outbox())):
        await raw.put(key, value)
        for _ in range(3):
            with pytest.raises(DamagedEntry, match=f"decisions entry '{key}' is damaged"):
                await state.decision(key)
        assert (await raw.get(key)) is not None, "kept: the action is never decided twice"
    assert [(d.key, d.fate) for d in reported.seen] == [("act-d", "kept"), ("act-e", "kept")]
    await (await state_store.bucket("outbox")).put("act-d", outbox("sup-a"))
    assert await state.finish("act-d") is None
    assert await (await state_store.bucket("outbox")).get("act-d") is None
    with pytest.raises(DamagedEntry):
        await state.latest("act-d")
    await raw.put(final_key("act-f"), b"[]")
    with pytest.raises(DamagedEntry):
        await state.decision(final_key("act-f"))


async def test_a_damaged_report_index_entry_is_removed(state_store: StateStore) -> None:
    reported = Reported()
    state = await opened(state_store, reported)
    reports = await state_store.bucket("reports")
    await reports.put("rpt-1", b"\xff\xfe")
    await reports.put("rpt-2", b"not an id!")
    assert await state.latest("rpt-1") is None
    assert await state.latest("rpt-2") is None
    assert await reports.entries() == []
    assert [(d.bucket, d.key, d.fate) for d in reported.seen] == [
        ("reports", "rpt-1", "removed"),
        ("reports", "rpt-2", "removed"),
    ]


def test_the_quarantine_count_starts_at_zero_for_every_bucket() -> None:
    metrics = Metrics(CollectorRegistry())
    for bucket in STATE_BUCKETS:
        found = metrics.registry.get_sample_value(
            "humangr_state_quarantined_total", {"bucket": bucket}
        )
        assert found == 0, bucket
    reason = metrics.registry.get_sample_value(
        "humangr_dead_letter_reasons_total", {"reason": "damaged_state"}
    )
    assert reason == 0
