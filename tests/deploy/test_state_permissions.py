"""The state store under deploy/nats-server.conf: each role reaches its own KV buckets and no
other — an agent worker cannot forge a decision or a pending review in the Supervisor's."""

from __future__ import annotations

import uuid

import pytest
from deploy_helpers import connect_as

from humangr.engine.errors import StateError
from humangr.engine.state import KeyValueStateStore
from humangr.standins.nats_server import NatsServer

pytestmark = [pytest.mark.anyio, pytest.mark.nats]

OWN = {
    "supervisor": (
        "decisions",
        "reports",
        "outbox",
        "pending",
        "inflight",
        "quarantine",
        "grants",
    ),
    "worker": ("breakers",),
    "monitor": ("pipeline_orders", "pipeline_reviews"),
}
FORGED = {
    "worker": "decisions",
    "monitor": "pending",
    "layer": "decisions",
    "agent": "decisions",
    "reviewer": "pending",
}


@pytest.mark.parametrize("role", sorted(OWN))
async def test_a_role_uses_its_own_buckets(secured_nats: NatsServer, role: str) -> None:
    bus = await connect_as(secured_nats.url, role)
    try:
        store = KeyValueStateStore(bus.client.jetstream(timeout=3.0), namespace="HL")
        for name in OWN[role]:
            bucket = await store.bucket(name)
            key = f"k-{uuid.uuid4().hex[:8]}"
            revision = await bucket.put(key, b"1")
            await bucket.update(key, b"2", revision)
            assert (await bucket.get(key)) is not None
            assert key in {e.key for e in await bucket.entries()}
            await bucket.delete(key)
    finally:
        await bus.close()


@pytest.mark.parametrize(("role", "name"), sorted(FORGED.items()))
async def test_no_other_role_writes_the_supervisors_state(
    secured_nats: NatsServer, role: str, name: str
) -> None:
    owner = await connect_as(secured_nats.url, "supervisor")
    bus = await connect_as(secured_nats.url, role)
    try:
        owned = KeyValueStateStore(owner.client.jetstream(timeout=3.0), namespace="HL")
        await owned.bucket(name)
        store = KeyValueStateStore(bus.client.jetstream(timeout=1.0), namespace="HL")

        async def forge() -> None:
            bucket = await store.bucket(name)
            await bucket.put("act-forged", b'{"forged": true}')

        with pytest.raises(StateError):
            await forge()
        assert await (await owned.bucket(name)).get("act-forged") is None
    finally:
        await bus.close()
        await owner.close()
