"""A durable publish whose ack never comes is sent again with one ``Nats-Msg-Id``: the stream
keeps one copy, and a stream that never answers ends in a clear error."""

from __future__ import annotations

import uuid

import anyio
import nats
import pytest
from nats.aio.msg import Msg as NatsMsg

from humangr.engine.bus import nats_publish
from humangr.engine.bus.nats_publish import publish_durable
from humangr.engine.errors import BusTimeoutError

pytestmark = [pytest.mark.anyio, pytest.mark.nats]


async def test_an_unacknowledged_publish_is_sent_again_and_stored_once(nats_url: str) -> None:
    subject = f"pub{uuid.uuid4().hex[:10]}.work"
    stream = subject.replace(".", "_")
    client = await nats.connect(nats_url)
    js = client.jetstream()
    heard: list[str | None] = []
    twice = anyio.Event()

    async def silent(msg: NatsMsg) -> None:  # hears the publish, never acknowledges it
        heard.append((msg.headers or {}).get("Nats-Msg-Id"))
        if len(heard) >= 2:
            twice.set()

    try:
        await client.subscribe(subject, cb=silent)
        async with anyio.create_task_group() as tg:
            tg.start_soon(publish_durable, js, subject, b"order", None, 0.3)
            with anyio.fail_after(10):
                await twice.wait()
            await js.add_stream(name=stream, subjects=[subject], storage="memory")
        info = await js.stream_info(stream)
        assert info.state.messages == 1
        assert len(heard) >= 2
        assert heard[0] is not None
        assert heard[0].startswith("pub:")
        assert set(heard) == {heard[0]}, "every attempt carries the same Nats-Msg-Id"
    finally:
        try:
            await js.delete_stream(stream)
        finally:
            await client.close()


async def test_a_caller_msg_id_is_kept(nats_url: str) -> None:
    subject = f"pub{uuid.uuid4().hex[:10]}.work"
    stream = subject.replace(".", "_")
    client = await nats.connect(nats_url)
    js = client.jetstream()
    try:
        await js.add_stream(name=stream, subjects=[subject], storage="memory")
        for _ in range(2):
            await publish_durable(js, subject, b"x", {"Nats-Msg-Id": "mine:1"}, 2.0)
        info = await js.stream_info(stream)
        assert info.state.messages == 1
        stored = await js.get_msg(stream, seq=1)
        assert stored.headers is not None
        assert stored.headers["Nats-Msg-Id"] == "mine:1"
    finally:
        try:
            await js.delete_stream(stream)
        finally:
            await client.close()


async def test_a_stream_that_never_acknowledges_ends_in_a_timeout(
    nats_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(nats_publish, "LEADER_WAIT", 0.5)  # our own bound, not the bus
    subject = f"pub{uuid.uuid4().hex[:10]}.work"
    client = await nats.connect(nats_url)

    async def silent(msg: NatsMsg) -> None:
        return None

    try:
        await client.subscribe(subject, cb=silent)
        with anyio.fail_after(10), pytest.raises(BusTimeoutError, match="did not acknowledge"):
            await publish_durable(client.jetstream(), subject, b"x", None, 0.2)
    finally:
        await client.close()
