"""``state_store``: the same breaker test over the memory, SQLite and JetStream KV stores."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from humangr.engine.state import MemoryStateStore, StateStore


@pytest.fixture(params=["memory", "sqlite", "kv"])
async def state_store(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[StateStore]:
    """A fresh store of each kind (KV on the session's real nats-server)."""
    if request.param == "memory":
        yield MemoryStateStore()
        return
    if request.param == "sqlite":
        from humangr.engine.state import SqliteStateStore

        sqlite = SqliteStateStore(tmp_path / "state.db")
        try:
            yield sqlite
        finally:
            await sqlite.close()
        return
    from humangr.engine.bus.nats import NatsBus
    from humangr.engine.state import KeyValueStateStore

    bus = await NatsBus.connect(request.getfixturevalue("nats_url"))
    namespace = f"B{uuid.uuid4().hex[:10]}"
    try:
        yield KeyValueStateStore(bus.client.jetstream(), namespace=namespace, storage="memory")
    finally:
        js = bus.client.jetstream()
        for info in await js.streams_info():
            if info.config.name and info.config.name.startswith(f"KV_{namespace}_"):
                await js.delete_stream(info.config.name)
        await bus.close()
