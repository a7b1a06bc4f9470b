"""The state-store conformance kit over all three stores: memory, SQLite and JetStream KV on a
real nats-server; the SQLite store across a restart of its process."""

from __future__ import annotations

import sys
import uuid
from pathlib import Path

import anyio
import pytest

from humangr.engine.state import StateStore
from humangr.engine.state.conformance import ALL_CHECKS, Check

pytestmark = pytest.mark.anyio


@pytest.fixture
def store(state_store: StateStore) -> StateStore:
    return state_store


@pytest.mark.parametrize("check", ALL_CHECKS, ids=lambda check: check.__name__)
async def test_conformance(store: StateStore, check: Check) -> None:
    await check(store, f"conf-{uuid.uuid4().hex[:10]}")


WRITER = """
import anyio, sys
from humangr.engine.state import SqliteStateStore

async def main() -> None:
    store = SqliteStateStore(sys.argv[1])
    bucket = await store.bucket("pending")
    await bucket.put("act-1", b"waiting for a human")
    revision = await bucket.put("act-2", b"two")
    await bucket.update("act-2", b"two, updated", revision)
    print(revision, flush=True)
    import os
    os._exit(0)  # no close, no cleanup: as if killed right after the writes

anyio.run(main)
"""


async def test_sqlite_state_survives_a_process_that_dies(tmp_path: Path) -> None:
    from humangr.engine.state import SqliteStateStore

    path = tmp_path / "humangr.db"
    done = await anyio.run_process([sys.executable, "-c", WRITER, str(path)], check=True)
    revision = int(done.stdout)
    store = SqliteStateStore(path)
    try:
        bucket = await store.bucket("pending")
        entries = {e.key: e.value for e in await bucket.entries()}
        assert entries == {"act-1": b"waiting for a human", "act-2": b"two, updated"}
        latest = await bucket.get("act-2")
        assert latest is not None
        assert latest.revision > revision
        assert await bucket.put("act-3", b"3") > latest.revision
    finally:
        await store.close()


async def test_a_state_file_that_is_not_sqlite_is_a_clear_error(tmp_path: Path) -> None:
    from humangr.engine.state import SqliteStateStore, StateError

    path = tmp_path / "state.db"
    path.write_bytes(b"this is not a database" * 100)
    store = SqliteStateStore(path)
    with pytest.raises(StateError, match=str(path)):
        await store.bucket("pending")
