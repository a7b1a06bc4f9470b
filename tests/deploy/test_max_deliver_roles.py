"""deploy/nats-server.conf lets every role that pulls work claim a message past max_deliver:
hear the advisory, read the message and delete it, with no permissions violation."""

from __future__ import annotations

import logging

import anyio
import pytest
from deploy_helpers import password

from humangr.engine.bus import ExhaustedSource
from humangr.engine.bus.jetstream import JetStreamConfig
from humangr.engine.bus.nats import NatsBus
from humangr.engine.bus.subject import inbox_prefix_for
from humangr.engine.testing.natsserver import NatsServer

pytestmark = [pytest.mark.anyio, pytest.mark.nats]

CONFIG = JetStreamConfig(storage="memory", poll_interval=0.2, max_deliver=2)


async def connect(url: str, role: str, *, jetstream: bool = True) -> NatsBus:
    return await NatsBus.connect(
        url,
        user=role,
        password=password(role),
        jetstream=CONFIG if jetstream else None,
        connect_timeout=3.0,
        inbox_prefix=inbox_prefix_for(role),
    )


@pytest.mark.parametrize(
    ("role", "subject", "queue", "publisher"),
    [
        ("supervisor", "hl.actions.submit", "supervisor", "agent"),
        ("layer", "hl.layers.HL1.task", "layer-HL1", "supervisor"),
        ("worker", "hl.agents.dev.request", "agent-dev", "monitor"),
        ("monitor", "hl.work.order", "pipeline-supervisor", "monitor"),
    ],
)
async def test_each_pulling_role_claims_what_exhausted_its_deliveries(
    secured_nats: NatsServer,
    caplog: pytest.LogCaptureFixture,
    role: str,
    subject: str,
    queue: str,
    publisher: str,
) -> None:
    caplog.set_level(logging.WARNING, logger="humangr.bus")
    pulling = await connect(secured_nats.url, role)
    sender = await connect(secured_nats.url, publisher, jetstream=False)  # the stream stores it
    try:
        async with pulling.subscribe(subject, queue=queue) as sub:
            await sender.publish(subject, b'{"action_id": "roles-1"}')
            with anyio.fail_after(10):
                for _ in range(2):
                    msg = await sub.__anext__()
                    await msg.nak()
                assert isinstance(sub, ExhaustedSource)
                record = await anext(aiter(sub.exhausted()))
        assert (record.subject, record.deliveries) == (subject, 2)
    finally:
        await pulling.close()
        await sender.close()
    logged = "\n".join(r.getMessage().lower() for r in caplog.records)
    assert "permissions violation" not in logged
    assert "could not be claimed" not in logged
