"""Session fixtures: the anyio backend, a real nats-server, and a ``bus`` over both buses."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator

import pytest

from humangr.engine.bus import Bus, MemoryBus


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="session")
def nats_server() -> Iterator[object]:
    """One real nats-server (JetStream in a temp dir, free port) for the whole session."""
    from humangr.engine.testing.natsserver import NatsServer

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
