"""The pipeline Supervisor's records (``WorkLedger``) behave the same in every state store."""

from __future__ import annotations

import anyio
import msgspec
import pytest

from humangr.actors.pipeline.ledger import ORDERS_BUCKET, OrderRecord, WorkLedger
from humangr.contracts import AgentName, WorkOrder
from humangr.engine.errors import StateError
from humangr.engine.state import StateStore

pytestmark = pytest.mark.anyio


def order(n: int, project: str = "demo") -> WorkOrder:
    return WorkOrder(
        order_id=f"wo-run-{n:04d}",
        project_id=project,
        agent=AgentName.PM,
        mode="generate_backlog",
        task="Write the backlog.",
    )


async def ledger_of(store: StateStore) -> WorkLedger:
    ledger = WorkLedger(store)
    await ledger.open()
    return ledger


async def test_an_order_is_recorded_once_and_changed_by_compare_and_set(
    state_store: StateStore,
) -> None:
    ledger = await ledger_of(state_store)
    held = await ledger.create(OrderRecord(order=order(1)))
    assert held is not None
    assert await ledger.create(OrderRecord(order=order(1))) is None, "recorded already"
    sent = msgspec.structs.replace(held.record, sends=1, request_id="wo-run-0001-1")
    moved = await ledger.update(held, sent)
    assert moved is not None
    assert await ledger.update(held, msgspec.structs.replace(sent, phase="done")) is None
    again = await (await ledger_of(state_store)).get("wo-run-0001")
    assert again is not None
    assert (again.record, again.revision) == (sent, moved.revision)
    assert not await ledger.delete(held), "a stale delete loses"
    assert await ledger.delete(moved)
    assert await ledger.get("wo-run-0001") is None


async def test_of_concurrent_handlers_exactly_one_moves_an_order_on(
    state_store: StateStore,
) -> None:
    ledger = await ledger_of(state_store)
    held = await ledger.create(OrderRecord(order=order(1)))
    assert held is not None
    winners: list[int] = []

    async def settle(n: int) -> None:
        done = msgspec.structs.replace(held.record, phase="done", sends=n)
        if await ledger.update(held, done) is not None:
            winners.append(n)

    async with anyio.create_task_group() as tg:
        for n in range(8):
            tg.start_soon(settle, n)
    assert len(winners) == 1
    stored = await ledger.get("wo-run-0001")
    assert stored is not None
    assert stored.record.sends == winners[0]


async def test_done_records_are_pruned_when_the_next_order_arrives(
    state_store: StateStore,
) -> None:
    ledger = await ledger_of(state_store)
    for n, project in ((1, "demo"), (2, "demo"), (3, "other")):
        await ledger.create(OrderRecord(order=order(n, project), phase="done"))
    await ledger.create(OrderRecord(order=order(4)))
    assert await ledger.prune("demo", keep="wo-run-0004") == 2
    left = sorted((h.order_id, h.record.phase) for h in await ledger.all())
    assert left == [("wo-run-0003", "done"), ("wo-run-0004", "calling")]
    await ledger.link("dev-abc", "wo-run-0004")
    assert await ledger.order_of("dev-abc") == "wo-run-0004"
    assert await ledger.forget_project("demo") == 1
    assert [h.order_id for h in await ledger.all()] == ["wo-run-0003"]


@pytest.mark.parametrize(
    "value",
    [b"{not json", b"\xff\xfe", b'{"order": {"order_id": "x"}}', b'{"phase": "lost"}'],
    ids=["not json", "bad bytes", "invalid order", "missing order"],
)
async def test_a_damaged_record_is_an_error_naming_its_key(
    state_store: StateStore, value: bytes
) -> None:
    ledger = await ledger_of(state_store)
    await (await state_store.bucket(ORDERS_BUCKET)).put("wo-run-0009", value)
    with pytest.raises(StateError, match=r"work order wo-run-0009 .* is damaged.*delete the key"):
        await ledger.get("wo-run-0009")
    with pytest.raises(StateError, match="is damaged"):
        await ledger.all()
    assert await ledger.prune("demo", keep="x") == 0, "pruning skips what it cannot read"


async def test_a_record_with_an_unknown_field_is_damaged(state_store: StateStore) -> None:
    ledger = await ledger_of(state_store)
    record = msgspec.json.decode(msgspec.json.encode(OrderRecord(order=order(1))))
    record["surprise"] = 1
    await (await state_store.bucket(ORDERS_BUCKET)).put("wo-run-0001", msgspec.json.encode(record))
    with pytest.raises(StateError, match="is damaged"):
        await ledger.get("wo-run-0001")
