"""deploy/nats-server.conf: only the Supervisor claims a message past max_deliver, for every
role that pulls work (it hears every consumer's advisory, reads the message and deletes it);
the work roles may neither read nor delete a message of the work stream, and a message a
layer worker never acks still ends as exactly one dead letter, reported by the Supervisor."""

from __future__ import annotations

import json
import logging
from collections.abc import Sequence
from typing import Any

import anyio
import nats.errors
import pytest
from deploy_helpers import password
from test_nats_permissions import wait_for_violation

from humangr.contracts import CancelAction, DeadLetter, ReviewQuery, decode, encode
from humangr.engine.actor import Actor, ActorContext, ActorSystem, Route, SupervisionPolicy
from humangr.engine.bus import Msg, Subscription
from humangr.engine.bus.jetstream import JetStreamConfig, durable_name
from humangr.engine.bus.nats import NatsBus
from humangr.engine.bus.subject import inbox_prefix_for
from humangr.standins.nats_server import NatsServer

pytestmark = [pytest.mark.anyio, pytest.mark.nats]

CONFIG = JetStreamConfig(storage="memory", poll_interval=0.2, max_deliver=2)
HANGING_CONFIG = JetStreamConfig(storage="memory", poll_interval=0.2, max_deliver=2, ack_wait=3.0)
HANGING = SupervisionPolicy(progress_interval=600.0, drain_timeout=0.5)


async def connect(url: str, role: str, *, jetstream: JetStreamConfig | None = CONFIG) -> NatsBus:
    return await NatsBus.connect(
        url,
        user=role,
        password=password(role),
        jetstream=jetstream,
        connect_timeout=3.0,
        inbox_prefix=inbox_prefix_for(role),
    )


@pytest.mark.parametrize(
    ("role", "subject", "queue", "publisher"),
    [
        ("supervisor", "hl.actions.submit.agent", "supervisor", "agent"),
        ("layer", "hl.layers.HL1.task", "layer-HL1", "supervisor"),
        ("worker", "hl.agents.dev.request", "agent-dev", "monitor"),
        ("monitor", "hl.work.order", "pipeline-supervisor", "monitor"),
    ],
)
async def test_the_supervisor_claims_what_each_pulling_role_exhausted(
    secured_nats: NatsServer,
    caplog: pytest.LogCaptureFixture,
    role: str,
    subject: str,
    queue: str,
    publisher: str,
) -> None:
    caplog.set_level(logging.WARNING, logger="humangr.bus")
    supervisor = await connect(secured_nats.url, "supervisor")
    pulling = await connect(secured_nats.url, role)
    sender = await connect(secured_nats.url, publisher, jetstream=None)  # the stream stores it
    try:
        async with (
            supervisor.watch_exhausted() as exhausted,
            pulling.subscribe(subject, queue=queue) as sub,
        ):
            await sender.publish(subject, b'{"action_id": "roles-1"}')
            with anyio.fail_after(10):
                for _ in range(2):
                    msg = await sub.__anext__()
                    await msg.nak()
                record = await anext(aiter(exhausted))
        assert (record.subject, record.deliveries) == (subject, 2)
        assert record.consumer == durable_name(queue, subject)
    finally:
        for bus in (pulling, sender, supervisor):
            await bus.close()
    logged = "\n".join(r.getMessage().lower() for r in caplog.records)
    assert "permissions violation" not in logged
    assert "could not be claimed" not in logged


class Hang(Actor):
    """A layer worker that takes HL2's tasks and never finishes one."""

    name = "layer-hl2"

    def __init__(self) -> None:
        self.deliveries: list[int] = []

    def routes(self, ctx: ActorContext) -> Sequence[Route[Any]]:
        return [Route("hl.layers.HL2.task", CancelAction, self.handle, queue="layer-HL2")]

    async def handle(self, message: CancelAction, msg: Msg) -> None:
        self.deliveries.append(msg.delivered)
        await anyio.sleep_forever()


class Idle(Actor):
    """Stands for the Supervisor's actors (its system is what claims)."""

    name = "supervisor"

    def routes(self, ctx: ActorContext) -> Sequence[Route[Any]]:
        return [Route("hl.reviews.query", ReviewQuery, self.handle)]

    async def handle(self, message: ReviewQuery, msg: Msg) -> None:
        """Nothing: the test sends no query."""


async def raw(bus: NatsBus, subject: str, body: dict[str, object]) -> dict[str, object]:
    """A JetStream API request; a refused one (permissions) gets no answer: ``{}``."""
    try:
        reply = await bus.client.request(subject, json.dumps(body).encode(), timeout=1.0)
    except nats.errors.TimeoutError:
        return {}
    answer: dict[str, object] = json.loads(reply.data)
    return answer


async def letters(sub: Subscription, wait: float) -> list[DeadLetter]:
    got: list[DeadLetter] = []
    with anyio.move_on_after(wait):
        async for msg in sub:
            got.append(decode(msg.data, DeadLetter))
    return got


async def test_work_roles_cannot_read_or_delete_work_and_the_supervisor_reports_one_letter(
    secured_nats: NatsServer, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING, logger="humangr.bus")
    url = secured_nats.url
    supervisor = await connect(url, "supervisor", jetstream=HANGING_CONFIG)
    layer = await connect(url, "layer", jetstream=HANGING_CONFIG)
    attackers = [await connect(url, role, jetstream=None) for role in ("layer", "worker")]
    operator = await connect(url, "operator", jetstream=None)
    claiming = ActorSystem(supervisor, policy=HANGING)  # the Supervisor role claims
    claiming.add(Idle())
    hang = Hang()
    working = ActorSystem(layer, policy=HANGING, claim_exhausted=False)
    working.add(hang)
    try:
        async with (
            operator.subscribe("hl.dlq") as dlq,
            claiming.running(),
            working.running(),
        ):
            task = CancelAction(action_id="never-acked")
            await supervisor.publish("hl.layers.HL2.task", encode(task))
            with anyio.fail_after(10):
                while not hang.deliveries:  # noqa: ASYNC110 - polling test state
                    await anyio.sleep(0.05)
            info = await operator.client.jetstream().stream_info("HL_WORK")
            sequence = int(info.state.last_seq)
            answers: list[dict[str, object]] = []

            async def attempt(attacker: NatsBus, verb: str) -> None:
                subject = f"$JS.API.STREAM.MSG.{verb}.HL_WORK"
                answers.append(await raw(attacker, subject, {"seq": sequence}))

            async with anyio.create_task_group() as tg:  # a hostile worker reads, deletes
                for attacker in attackers:
                    tg.start_soon(attempt, attacker, "GET")
                    tg.start_soon(attempt, attacker, "DELETE")
            assert answers == [{}] * 4, "no answer: refused by the server"
            stored = await operator.client.jetstream().get_msg("HL_WORK", sequence)
            assert stored.data == encode(task), "still queued after the attempts"
            with anyio.fail_after(15):
                first = decode((await dlq.__anext__()).data, DeadLetter)
            assert await letters(dlq, 2.0) == [], "exactly one letter for one exhausted message"
            with pytest.raises(Exception, match=r"(?i)no message found"):
                await operator.client.jetstream().get_msg("HL_WORK", sequence)
    finally:
        for bus in (*attackers, operator, layer, supervisor):
            await bus.close()
    assert sorted(hang.deliveries) == [1, 2]
    assert (first.subject, first.correlation_id, first.deliveries) == (
        "hl.layers.HL2.task",
        "never-acked",
        2,
    )
    assert first.actor == "layer-HL2", "named by the consumer's queue group"
    assert first.stream_sequence == sequence
    assert durable_name("layer-HL2", "hl.layers.HL2.task") in first.error
    stats = claiming.metrics.registry.get_sample_value(
        "humangr_max_deliver_dead_letters_total", {"subject": "hl.layers.HL2.task"}
    )
    assert stats == 1.0, "counted by the Supervisor's process"
    await wait_for_violation(caplog, 'publish to "$js.api.stream.msg.get.hl_work"')
    await wait_for_violation(caplog, 'publish to "$js.api.stream.msg.delete.hl_work"')
