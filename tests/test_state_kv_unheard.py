"""A KV write that reached no one (a new replicated bucket before its leader answers, a node
rejoining) stored nothing, so it is sent again until the bucket answers, not failed at once."""

from __future__ import annotations

import uuid

import anyio
import pytest
from nats.js.api import KeyValueConfig, StorageType

from humangr.engine.bus.nats import NatsBus
from humangr.engine.state import KeyValueStateStore

pytestmark = [pytest.mark.anyio, pytest.mark.nats]


async def test_a_write_waits_for_a_bucket_that_does_not_answer_yet(nats_url: str) -> None:
    bus = await NatsBus.connect(nats_url)
    js = bus.client.jetstream()
    namespace = f"U{uuid.uuid4().hex[:10].upper()}"
    full = f"{namespace}_decisions"
    try:
        bucket = await KeyValueStateStore(js, namespace=namespace, storage="memory").bucket(
            "decisions"
        )
        await js.delete_stream(f"KV_{full}")  # from here on, nobody answers the bucket's subjects
        revisions: list[int] = []

        async def write() -> None:
            revisions.append(await bucket.create("k", b"v"))

        async with anyio.create_task_group() as tg:
            tg.start_soon(write)
            await anyio.sleep(0.5)
            assert revisions == []  # still waiting, not failed
            config = KeyValueConfig(bucket=full, history=1, storage=StorageType.MEMORY)
            await js.create_key_value(config)
        assert revisions == [1]
        found = await bucket.get("k")
        assert found is not None
        assert found.value == b"v"
    finally:
        await js.delete_stream(f"KV_{full}")
        await bus.close()
