"""Session fixtures: the anyio backend, a real nats-server, and a ``bus`` over both buses."""

from __future__ import annotations

import os
import uuid
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from humangr.engine.bus import Bus, MemoryBus
from humangr.engine.state import MemoryStateStore, StateStore


@pytest.fixture(scope="session", autouse=True)
def _humangr_home(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """Keep what the engine writes to the user's home (the default signing key) in a temp dir,
    for this process and the processes the tests start."""
    home = tmp_path_factory.mktemp("humangr-home")
    saved = os.environ.get("HUMANGR_HOME")
    os.environ["HUMANGR_HOME"] = str(home)
    yield
    if saved is None:
        os.environ.pop("HUMANGR_HOME", None)
    else:
        os.environ["HUMANGR_HOME"] = saved


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="session")
def nats_server() -> Iterator[object]:
    """One real nats-server (JetStream in a temp dir, free port) for the whole session."""
    from humangr.standins.nats_server import NatsServer

    with NatsServer(jetstream=True) as server:
        yield server


@pytest.fixture
def nats_url(nats_server: object) -> str:
    return str(nats_server.url)  # type: ignore[attr-defined]


@pytest.fixture(params=["memory", "nats"])
async def bus(request: pytest.FixtureRequest) -> AsyncIterator[Bus]:
    """The same behaviour test runs over ``MemoryBus`` and over ``NatsBus`` on a real server."""
    if request.param == "memory":
        async with MemoryBus() as memory:
            yield memory
        return
    from humangr.engine.bus.nats import NatsBus

    url = request.getfixturevalue("nats_url")
    nats = await NatsBus.connect(url)
    try:
        yield nats
    finally:
        await nats.close()


@pytest.fixture(params=["memory", "sqlite", "kv"])
async def state_store(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[StateStore]:
    """A fresh state store of each kind: memory, SQLite (in a folder it must create) and
    JetStream KV on the session's real nats-server (its streams deleted afterwards)."""
    if request.param == "memory":
        yield MemoryStateStore()
        return
    if request.param == "sqlite":
        from humangr.engine.state import SqliteStateStore

        sqlite = SqliteStateStore(tmp_path / "state" / "humangr.db")
        try:
            yield sqlite
        finally:
            await sqlite.close()
        return
    from humangr.engine.bus.nats import NatsBus
    from humangr.engine.state import KeyValueStateStore

    bus = await NatsBus.connect(request.getfixturevalue("nats_url"))
    namespace = f"T{uuid.uuid4().hex[:10]}"
    try:
        yield KeyValueStateStore(bus.client.jetstream(), namespace=namespace, storage="memory")
    finally:
        js = bus.client.jetstream()
        for info in await js.streams_info():
            if info.config.name and info.config.name.startswith(f"KV_{namespace}_"):
                await js.delete_stream(info.config.name)
        await bus.close()
