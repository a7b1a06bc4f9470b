"""deploy/nats-server.conf on a real nats-server: each role may use its own subjects and no
other; an agent cannot publish a decision or a resolution."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager

import anyio
import pytest
from deploy_helpers import DEPLOY, ROLES, connect_as

from humangr.engine.bus import Msg, Subscription
from humangr.engine.bus.nats import NatsBus
from humangr.engine.errors import BusError
from humangr.standins.nats_server import NatsServer

pytestmark = [pytest.mark.anyio, pytest.mark.nats]

CONTROL = "hl.actions.submit.agent"
"""An agent may publish here; its arrival proves that what the agent sent before was handled."""


@asynccontextmanager
async def buses(url: str, *roles: str) -> AsyncIterator[dict[str, NatsBus]]:
    async with AsyncExitStack() as stack:
        connected = {}
        for role in roles:
            connected[role] = await connect_as(url, role)
            stack.push_async_callback(connected[role].close)
        yield connected


@asynccontextmanager
async def subscribed(
    bus: NatsBus, pattern: str, queue: str | None = None
) -> AsyncIterator[Subscription]:
    """Subscribe, then make sure the server registered it before others publish.

    nats-py writes a flush's PING ahead of commands still buffered (the SUB), so one PONG
    does not prove the SUB arrived; a second round trip does.
    """
    async with bus.subscribe(pattern, queue=queue) as sub:
        await bus.flush()
        yield sub


async def drain(sub: Subscription, until: bytes, timeout: float = 5.0) -> list[Msg]:
    """Messages of ``sub`` up to and including the one whose data is ``until``."""
    got: list[Msg] = []
    with anyio.fail_after(timeout):
        async for msg in sub:
            got.append(msg)
            if msg.data == until:
                return got
    raise AssertionError("subscription ended before the control message")


async def nothing_arrives(sub: Subscription, wait: float = 0.3) -> list[Msg]:
    got: list[Msg] = []
    with anyio.move_on_after(wait):
        async for msg in sub:
            got.append(msg)
    return got


def violations(caplog: pytest.LogCaptureFixture) -> str:
    """The permissions violations the server reported to NatsBus's error callback, lowercased."""
    messages = (r.getMessage().lower() for r in caplog.records)
    return "\n".join(m for m in messages if "permissions violation" in m)


async def wait_for_violation(caplog: pytest.LogCaptureFixture, text: str) -> None:
    """The server reports a violation asynchronously; wait for it a little."""
    text = text.lower()
    with anyio.move_on_after(3):
        while text not in violations(caplog):  # noqa: ASYNC110 (log records have no event)
            await anyio.sleep(0.02)
    assert text in violations(caplog), f"no permissions violation naming {text!r} was reported"


async def test_an_agent_cannot_publish_decisions_or_resolutions(
    secured_nats: NatsServer, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING, logger="humangr.bus")
    async with buses(secured_nats.url, "agent", "observer") as bus:
        async with subscribed(bus["observer"], "hl.>") as seen:
            await bus["agent"].publish("hl.decisions.x", b"forged decision")
            await bus["agent"].publish("hl.reviews.x.resolve", b"forged resolution")
            await bus["agent"].publish("hl.layers.report", b"forged layer report")
            await bus["agent"].publish(CONTROL, b"control")
            await bus["agent"].flush()
            got = await drain(seen, b"control")
        assert [m.subject for m in got] == [CONTROL], "only the allowed message may arrive"
        await wait_for_violation(caplog, '"hl.decisions.x"')
        await wait_for_violation(caplog, '"hl.reviews.x.resolve"')
        await wait_for_violation(caplog, '"hl.layers.report"')


ALLOWED = [
    # publisher, subject, subscriber, subscription
    ("agent", "hl.actions.submit.agent", "supervisor", "hl.actions.submit.*"),
    ("supervisor", "hl.layers.HL4.task", "layer", "hl.layers.*.task"),
    ("layer", "hl.layers.report", "supervisor", "hl.layers.report"),
    ("supervisor", "hl.actions.act-1.cancel", "layer", "hl.actions.*.cancel"),
    ("supervisor", "hl.decisions.agent", "agent", "hl.decisions.agent"),
    ("supervisor", "hl.reviews.pending", "reviewer", "hl.reviews.pending"),
    ("reviewer", "hl.reviews.act-1.resolve", "supervisor", "hl.reviews.*.resolve"),
    ("supervisor", "hl.decisions.agent-1", "reviewer", "hl.decisions.>"),
    # `humangr reviews`, `show` and `resolve`: the reviewer asks, reads refusals
    ("reviewer", "hl.reviews.query", "supervisor", "hl.reviews.query"),
    ("supervisor", "hl.dlq", "reviewer", "hl.dlq"),
    ("supervisor", "hl.dlq", "operator", "hl.dlq"),
    ("supervisor", "hl.dlq", "monitor", "hl.dlq"),
    ("layer", "hl.dlq", "observer", "hl.>"),
    # an agent's own refusals, and its own report query
    ("supervisor", "hl.dlq.agent.agent", "agent", "hl.dlq.agent.agent"),
    ("agent", "hl.reports.get.agent", "supervisor", "hl.reports.get.*"),
    ("reviewer", "hl.reports.get", "supervisor", "hl.reports.get"),
    ("operator", "hl.reports.get", "supervisor", "hl.reports.get"),
    # the pipeline: agent workers (worker) and the Monitor with its Supervisor (monitor)
    ("monitor", "hl.agents.dev.request", "worker", "hl.agents.*.request"),
    ("worker", "hl.agents.result", "monitor", "hl.agents.result"),
    ("worker", "hl.audit.proj-1", "monitor", "hl.audit.*"),
    ("worker", "hl.breaker", "observer", "hl.>"),
    ("monitor", "hl.actions.submit.dev-proj-1", "supervisor", "hl.actions.submit.*"),
    ("supervisor", "hl.decisions.dev-proj-1", "monitor", "hl.decisions.>"),
    ("monitor", "hl.handoffs.proj-1", "observer", "hl.handoffs.*"),
    ("monitor", "hl.work.order", "observer", "hl.>"),
    ("reviewer", "hl.pipeline.start", "monitor", "hl.pipeline.start"),
    ("monitor", "hl.pipeline.proj-1.status", "reviewer", "hl.pipeline.*.status"),
    # a human's way out of `blocked`: only reviewers command, the Monitor listens
    ("reviewer", "hl.pipeline.proj-1.command", "monitor", "hl.pipeline.*.command"),
    ("monitor", "hl.dlq", "reviewer", "hl.dlq"),
]


@pytest.mark.parametrize(("publisher", "subject", "subscriber", "pattern"), ALLOWED)
async def test_each_role_uses_its_own_subjects(
    secured_nats: NatsServer, publisher: str, subject: str, subscriber: str, pattern: str
) -> None:
    async with (
        buses(secured_nats.url, publisher, subscriber) as bus,
        subscribed(bus[subscriber], pattern) as sub,
    ):
        await bus[publisher].publish(subject, b"hello")
        got = await drain(sub, b"hello")
    assert [m.subject for m in got] == [subject]


REFUSED_PUBLISH = [
    ("layer", "hl.decisions.agent-1"),
    ("worker", "hl.decisions.agent-1"),
    ("worker", "hl.reviews.act-1.resolve"),
    ("supervisor", "hl.reviews.act-1.resolve"),
    ("monitor", "hl.reviews.act-1.resolve"),
    ("observer", "hl.actions.submit"),
    ("reviewer", "hl.decisions.agent-1"),
    ("agent", "hl.pipeline.start"),
    ("supervisor", "hl.agents.dev.request"),
    ("worker", "hl.actions.submit"),
    ("layer", "hl.agents.result"),
    ("agent", "hl.pipeline.proj-1.command"),
    ("worker", "hl.pipeline.proj-1.command"),
    ("monitor", "hl.pipeline.proj-1.command"),
    ("supervisor", "hl.pipeline.proj-1.command"),
    ("layer", "hl.pipeline.proj-1.command"),
    ("observer", "hl.pipeline.proj-1.command"),
    ("agent", "hl.reviews.query"),
    ("layer", "hl.reviews.query"),
    ("worker", "hl.reviews.query"),
    # an agent submits on its own subject only: never the bare one, nor another agent's
    ("agent", "hl.actions.submit"),
    ("agent", "hl.actions.submit.bob"),
    ("monitor", "hl.actions.submit"),
    ("layer", "hl.actions.submit.agent"),
]


@pytest.mark.parametrize(("role", "subject"), REFUSED_PUBLISH)
async def test_roles_cannot_publish_what_is_not_theirs(
    secured_nats: NatsServer, caplog: pytest.LogCaptureFixture, role: str, subject: str
) -> None:
    caplog.set_level(logging.WARNING, logger="humangr.bus")
    async with (
        buses(secured_nats.url, role, "observer") as bus,
        subscribed(bus["observer"], subject) as seen,
    ):
        await bus[role].publish(subject, b"forged")
        await bus[role].flush()
        assert await nothing_arrives(seen) == []
    await wait_for_violation(caplog, f'"{subject}"')


async def test_only_allowed_roles_read_work_and_nobody_else_joins_a_queue_group(
    secured_nats: NatsServer, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING, logger="humangr.bus")
    async with (
        buses(secured_nats.url, "agent", "supervisor", "observer", "layer") as bus,
        subscribed(bus["supervisor"], CONTROL, queue="supervisor") as supervisor,
        subscribed(bus["observer"], CONTROL, queue="supervisor") as thief,
        subscribed(bus["agent"], "hl.layers.report") as snoop,
    ):
        for n in range(20):
            await bus["agent"].publish(CONTROL, f"action {n}".encode())
        await bus["layer"].publish("hl.layers.report", b"report")
        await bus["agent"].publish(CONTROL, b"control")
        got = await drain(supervisor, b"control")
        assert len(got) == 21, "the supervisor's queue group must get every action"
        assert await nothing_arrives(thief, 0.1) == []
        assert await nothing_arrives(snoop, 0.1) == []
    await wait_for_violation(caplog, f'Subscription to "{CONTROL}"')
    await wait_for_violation(caplog, 'Subscription to "hl.layers.report"')


async def test_an_agent_asks_for_a_report_and_the_supervisor_answers(
    secured_nats: NatsServer,
) -> None:
    async with (
        buses(secured_nats.url, "agent", "supervisor") as bus,
        subscribed(bus["supervisor"], "hl.reports.get.*", queue="supervisor") as queries,
    ):

        async def answer() -> None:
            async for msg in queries:
                assert msg.reply is not None
                await bus["supervisor"].publish(msg.reply, b"the report of " + msg.data)
                return

        async with anyio.create_task_group() as tg:
            tg.start_soon(answer)
            reply = await bus["agent"].request("hl.reports.get.agent", b"act-1", timeout=5)
    assert reply.data == b"the report of act-1"


async def test_supervisor_and_layer_workers_use_jetstream_work_queues(
    secured_nats: NatsServer,
) -> None:
    """The JetStream API subjects in the config are enough: streams, pull consumers, acks."""
    supervisor = await connect_as(secured_nats.url, "supervisor", jetstream=True)
    try:
        layer = await connect_as(secured_nats.url, "layer", jetstream=True)
        agent = await connect_as(secured_nats.url, "agent")
        try:
            async with (
                subscribed(layer, "hl.layers.HL4.task", queue="layer-HL4") as tasks,
                subscribed(supervisor, "hl.actions.submit.*", queue="supervisor") as actions,
            ):
                await agent.publish("hl.actions.submit.agent", b"durable action")
                await supervisor.publish("hl.layers.HL4.task", b"durable task")
                got = [
                    *await drain(actions, b"durable action", 10),
                    *await drain(tasks, b"durable task", 10),
                ]
                assert all(msg.durable for msg in got), "work must come from JetStream"
                for msg in got:
                    await msg.ack()
                await supervisor.publish(
                    "hl.decisions.agent-1", b"decision", headers={"Nats-Msg-Id": "decision:act-js"}
                )
        finally:
            await layer.close()
            await agent.close()
    finally:
        await supervisor.close()


async def test_wrong_password_and_unknown_users_are_refused(secured_nats: NatsServer) -> None:
    with pytest.raises(BusError, match="cannot connect"):
        await NatsBus.connect(secured_nats.url, user="agent", password="wrong", connect_timeout=2)
    with pytest.raises(BusError, match="cannot connect"):
        await NatsBus.connect(secured_nats.url, connect_timeout=2)


def test_every_role_has_a_user() -> None:
    text = (DEPLOY / "nats-accounts.conf").read_text()
    for role in ROLES:
        assert f"user: {role}\n" in text
        assert f"password: $HUMANGR_{role.upper()}_PASSWORD\n" in text
