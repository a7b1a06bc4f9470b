"""JetStream mode of ``NatsBus`` on a real server: durable work, redelivery, dedupe, limits."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import replace
from typing import Any

import anyio
import pytest
from nats.js.api import RetentionPolicy

from humangr.contracts import CancelAction, DeadLetter, Subjects, decode, encode
from humangr.engine.actor import Actor, ActorContext, ActorSystem, Route, SupervisionPolicy
from humangr.engine.bus import Msg, Subscription
from humangr.engine.bus.jetstream import JetStreamConfig, covers, durable_name, stream_names
from humangr.engine.bus.nats import NatsBus
from humangr.engine.errors import BusError
from humangr.standins.nats_server import NatsServer

pytestmark = [pytest.mark.anyio, pytest.mark.nats]

Factory = Callable[..., Awaitable[NatsBus]]
FAST = JetStreamConfig(ack_wait=1.0, max_deliver=3, poll_interval=0.5, storage="memory")


@pytest.fixture
def subjects() -> Subjects:
    return Subjects(prefix=f"js{uuid.uuid4().hex[:10]}")


@pytest.fixture
async def connect(nats_url: str, subjects: Subjects) -> AsyncIterator[Factory]:
    """Connects buses in JetStream mode under one fresh prefix; deletes its streams after."""
    buses: list[NatsBus] = []

    async def make(config: JetStreamConfig = FAST) -> NatsBus:
        bus = await NatsBus.connect(nats_url, jetstream=config, subjects=subjects)
        buses.append(bus)
        return bus

    yield make
    for bus in buses:
        await bus.close()
    cleanup = await NatsBus.connect(nats_url)
    try:
        js = cleanup.client.jetstream()
        for name in stream_names(subjects):
            await js.delete_stream(name)
    finally:
        await cleanup.close()


async def next_msg(sub: Subscription, timeout: float = 10.0) -> Msg:
    with anyio.fail_after(timeout):
        return await sub.__anext__()


async def stored(bus: NatsBus, stream: str) -> int:
    assert bus.jetstream is not None
    info = await bus.jetstream.stream_info(stream)
    return int(info.state.messages)


async def wait_for(predicate: Callable[[], bool]) -> None:
    with anyio.fail_after(10):
        while not predicate():  # noqa: ASYNC110 - polling test state
            await anyio.sleep(0.01)


async def wait_stored(bus: NatsBus, stream: str, count: int) -> None:
    """Wait until the stream holds ``count`` messages (acks are applied asynchronously)."""
    with anyio.move_on_after(10):
        while await stored(bus, stream) != count:  # noqa: ASYNC110 - polling server state
            await anyio.sleep(0.02)
    assert await stored(bus, stream) == count


def test_pure_helpers() -> None:
    assert stream_names(Subjects("hl")) == ("HL_WORK", "HL_EVENTS")
    assert stream_names(Subjects("a.b-c")) == ("A_B-C_WORK", "A_B-C_EVENTS")
    assert covers(("hl", "layers", "*", "task"), ("hl", "layers", "HL1", "task"))
    assert covers(("hl", "layers", "*", "task"), ("hl", "layers", "*", "task"))
    assert not covers(("hl", "layers", "*", "task"), ("hl", "layers", ">"))
    assert not covers(("hl", "layers", "*", "task"), ("hl", "layers", "HL1"))
    assert covers(("hl", "decisions", ">"), ("hl", "decisions", "a", "*"))
    assert not covers(("hl", "work", "order"), ("hl", "work", "*"))
    name = durable_name("layer.HL1", "hl.layers.*.task")
    assert name != durable_name("layer_HL1", "hl.layers.*.task")
    assert not any(c in name for c in ".*> ")


async def test_streams_created(connect: Factory, subjects: Subjects) -> None:
    bus = await connect()
    assert bus.jetstream is not None
    work = await bus.jetstream.stream_info(bus.work_stream)
    events = await bus.jetstream.stream_info(bus.events_stream)
    assert work.config.retention == RetentionPolicy.WORK_QUEUE
    assert subjects.layer_tasks in (work.config.subjects or [])
    assert events.config.retention == RetentionPolicy.LIMITS
    assert events.config.subjects == [subjects.decisions]
    again = await connect(replace(FAST, duplicate_window=30.0))
    assert again.jetstream is not None
    info = await again.jetstream.stream_info(again.events_stream)
    assert info.config.duplicate_window == 30.0
    with pytest.raises(BusError, match="storage type"):
        await connect(replace(FAST, storage="file"))


async def test_work_waits_for_a_consumer(connect: Factory, subjects: Subjects) -> None:
    bus = await connect()
    await bus.publish(subjects.action_submit, b"early")
    await wait_stored(bus, bus.work_stream, 1)
    async with bus.subscribe(subjects.action_submit, queue="supervisor") as sub:
        msg = await next_msg(sub)
        assert (msg.data, msg.delivered, msg.durable, msg.reply) == (b"early", 1, True, None)
        await msg.ack()
    await wait_stored(bus, bus.work_stream, 0)


async def test_redelivered_after_consumer_dies(connect: Factory, subjects: Subjects) -> None:
    subject = subjects.layer_task("HL4")
    first, second = await connect(), await connect()
    await first.publish(subject, b"task", headers={"X-Id": "7"})
    async with first.subscribe(subject, queue="layer-HL4") as sub:
        msg = await next_msg(sub)
        assert (msg.data, msg.delivered) == (b"task", 1)
    await first.close()
    async with second.subscribe(subject, queue="layer-HL4") as sub:
        again = await next_msg(sub)
        assert (again.data, again.delivered, again.header("X-Id")) == (b"task", 2, "7")
        await again.ack()
        await wait_stored(second, second.work_stream, 0)
        assert sub.pending == 0


async def test_queue_group_shares_a_durable_consumer(connect: Factory, subjects: Subjects) -> None:
    subject = subjects.agent_request("dev")
    bus = await connect()
    seen: dict[str, list[bytes]] = {"a": [], "b": []}

    async def work(sub: Subscription, name: str) -> None:
        async for msg in sub:
            seen[name].append(msg.data)
            await msg.ack()

    async with (
        bus.subscribe(subject, queue="agent-dev") as a,
        bus.subscribe(subject, queue="agent-dev") as b,
        bus.subscribe(subject) as watcher,
        anyio.create_task_group() as tg,
    ):
        assert a.consumer is not None  # type: ignore[attr-defined]
        assert a.consumer == b.consumer  # type: ignore[attr-defined]
        assert watcher.consumer is None  # type: ignore[attr-defined]
        tg.start_soon(work, a, "a")
        tg.start_soon(work, b, "b")
        sent = [str(i).encode() for i in range(40)]
        for data in sent:
            await bus.publish(subject, data)
        copies = [m.data for m in [await next_msg(watcher) for _ in sent]]
        assert copies == sent
        await wait_for(lambda: len(seen["a"]) + len(seen["b"]) >= len(sent))
        tg.cancel_scope.cancel()
    assert sorted(seen["a"] + seen["b"]) == sorted(sent)
    await wait_stored(bus, bus.work_stream, 0)


async def test_pull_buffer_is_bounded_and_loses_nothing(
    connect: Factory, subjects: Subjects
) -> None:
    bus = await connect()
    subject = subjects.work_order
    for i in range(7):
        await bus.publish(subject, str(i).encode())
    got: list[bytes] = []
    async with bus.subscribe(subject, queue="supervisor", max_pending=2) as sub:
        while len(got) < 7:
            msg = await next_msg(sub)
            assert sub.pending <= 2
            assert msg.delivered == 1
            got.append(msg.data)
            await msg.ack()
        assert sub.dropped == 0
    assert got == [str(i).encode() for i in range(7)]
    await wait_stored(bus, bus.work_stream, 0)


async def test_a_closed_subscription_leaves_work_to_the_next(
    connect: Factory, subjects: Subjects
) -> None:
    bus = await connect()
    subject = subjects.action_submit
    async with bus.subscribe(subject, queue="supervisor") as sub:
        with anyio.move_on_after(0.1):
            await sub.__anext__()
    await bus.publish(subject, b"later")
    async with bus.subscribe(subject, queue="supervisor") as sub:
        msg = await next_msg(sub)
        assert (msg.data, msg.delivered) == (b"later", 1)
        await msg.ack()


async def test_errors_inside_a_durable_subscription_propagate_as_is(
    connect: Factory, subjects: Subjects
) -> None:
    bus = await connect()
    with pytest.raises(KeyError):
        async with bus.subscribe(subjects.action_submit, queue="supervisor"):
            raise KeyError("mine")


async def test_overlapping_queue_groups_on_work_are_refused(
    connect: Factory, subjects: Subjects
) -> None:
    bus = await connect()
    async with bus.subscribe(subjects.layer_tasks, queue="all-layers"):
        with pytest.raises(BusError, match="overlapping"):
            async with bus.subscribe(subjects.layer_task("HL1"), queue="layer-HL1"):
                pass


async def test_msg_id_stores_once(connect: Factory, subjects: Subjects) -> None:
    bus = await connect()
    decision = subjects.decision("agent-1")
    for _ in range(2):
        await bus.publish(decision, b"approved", headers={"Nats-Msg-Id": "decision:a1"})
    await bus.publish(decision, b"rejected", headers={"Nats-Msg-Id": "decision:a2"})
    await wait_stored(bus, bus.events_stream, 2)
    for _ in range(2):
        await bus.publish(subjects.work_order, b"w", headers={"Nats-Msg-Id": "order:1"})
    await wait_stored(bus, bus.work_stream, 1)


async def test_nak_redelivers_then_max_deliver_stops(connect: Factory, subjects: Subjects) -> None:
    bus = await connect(replace(FAST, ack_wait=5.0, max_deliver=2))
    subject = subjects.pipeline_start
    await bus.publish(subject, b"p")
    async with bus.subscribe(subject, queue="monitor") as sub:
        assert isinstance(sub.consumer, str)  # type: ignore[attr-defined]
        advisory = f"$JS.EVENT.ADVISORY.CONSUMER.MAX_DELIVERIES.{bus.work_stream}.{sub.consumer}"  # type: ignore[attr-defined]
        async with bus.subscribe(advisory) as gave_up:
            first = await next_msg(sub)
            await first.nak()
            second = await next_msg(sub)
            assert (first.delivered, second.delivered) == (1, 2)
            await second.nak()
            await next_msg(gave_up)
            with anyio.move_on_after(1.0):
                extra = await sub.__anext__()
                pytest.fail(f"delivered beyond max_deliver: {extra!r}")
    await wait_stored(bus, bus.work_stream, 1)


async def test_term_and_double_ack(connect: Factory, subjects: Subjects) -> None:
    bus = await connect()
    subject = subjects.layer_task("HL2")
    await bus.publish(subject, b"bad")
    async with bus.subscribe(subject, queue="layer-HL2") as sub:
        msg = await next_msg(sub)
        await msg.in_progress()
        await msg.term()
        await msg.ack()
        await msg.nak()
    await wait_stored(bus, bus.work_stream, 0)


async def test_request_on_stored_subject_is_refused(connect: Factory, subjects: Subjects) -> None:
    bus = await connect()
    with pytest.raises(BusError, match="stored by JetStream"):
        await bus.request(subjects.action_submit, b"x", timeout=1.0)


async def test_other_subjects_stay_core(connect: Factory, subjects: Subjects) -> None:
    bus = await connect()
    async with bus.subscribe(subjects.layer_report, queue="supervisor") as sub:
        assert sub.consumer is None  # type: ignore[attr-defined]
        await bus.publish(subjects.layer_report, b"r")
        msg = await next_msg(sub)
        assert (msg.durable, msg.delivered) == (False, 1)


class Flaky(Actor):
    """Fails the first delivery of each task, handles the second."""

    name = "flaky"

    def __init__(self) -> None:
        self.deliveries: list[int] = []
        self.done: list[str] = []

    def routes(self, ctx: ActorContext) -> list[Route[Any]]:
        return [Route(ctx.subjects.layer_task("HL3"), CancelAction, self.handle, queue="hl3")]

    async def handle(self, message: CancelAction, msg: Msg) -> None:
        self.deliveries.append(msg.delivered)
        if message.reason == "always" or msg.delivered == 1:
            raise RuntimeError(f"failing delivery {msg.delivered}")
        self.done.append(message.action_id)


async def test_actor_system_naks_retries_and_dead_letters(
    connect: Factory, subjects: Subjects
) -> None:
    bus = await connect(replace(FAST, ack_wait=5.0, max_deliver=5))
    actor = Flaky()
    system = ActorSystem(
        bus,
        subjects=subjects,
        policy=SupervisionPolicy(initial_backoff=0.01, max_backoff=0.05, drain_timeout=2.0),
    )
    system.add(actor)
    async with bus.subscribe(subjects.dlq) as dlq, system.running():
        await bus.publish(subjects.layer_task("HL3"), encode(CancelAction(action_id="a1")))
        await bus.publish(
            subjects.layer_task("HL3"), encode(CancelAction(action_id="a2", reason="always"))
        )
        letter = decode((await next_msg(dlq)).data, DeadLetter)
        await wait_for(lambda: "a1" in actor.done)
    assert letter.deliveries == 5, "dead-lettered at the last delivery JetStream makes"
    assert letter.error == "handler failed 5 times: RuntimeError: failing delivery 5"
    assert (letter.actor, letter.correlation_id, letter.raw) == ("flaky", "a2", b"")
    assert letter.stream_sequence == 2, "the stream sequence of the message it is about"
    subject = {"subject": subjects.layer_task("HL3")}
    exhausted = system.metrics.registry.get_sample_value(
        "humangr_max_deliver_dead_letters_total", subject
    )
    assert exhausted == 1
    assert sorted(actor.deliveries) == [1, 1, 2, 2, 3, 4, 5]
    await wait_stored(bus, bus.work_stream, 0)
    stats = system.stats("flaky")
    assert (stats.restarts, stats.failures, stats.dead_letters) == (0, 6, 1)


class Slow(Actor):
    """Handles each task in 2.5 s: longer than the 1 s ack wait."""

    name = "slow"
    max_concurrency = 4
    mailbox_size = 16

    def __init__(self) -> None:
        self.deliveries: list[tuple[str, int]] = []

    def routes(self, ctx: ActorContext) -> list[Route[Any]]:
        return [Route(ctx.subjects.layer_task("HL2"), CancelAction, self.handle, queue="hl2")]

    async def handle(self, message: CancelAction, msg: Msg) -> None:
        self.deliveries.append((message.action_id, msg.delivered))
        await anyio.sleep(2.5)


async def test_a_long_handler_reports_progress_and_is_not_redelivered(
    connect: Factory, subjects: Subjects
) -> None:
    bus = await connect(FAST)
    actor = Slow()
    system = ActorSystem(
        bus, subjects=subjects, policy=SupervisionPolicy(progress_interval=0.3, drain_timeout=5)
    )
    system.add(actor)
    async with system.running():
        await bus.publish(subjects.layer_task("HL2"), encode(CancelAction(action_id="long")))
        await wait_stored(bus, bus.work_stream, 0)
    assert actor.deliveries == [("long", 1)]


class CrashWhileBusy(Actor):
    """'slow' takes a while; 'boom' makes ``background`` crash the actor (once) meanwhile."""

    name = "crash-while-busy"

    def __init__(self) -> None:
        self.started: list[tuple[str, int]] = []
        self.done: list[tuple[str, int]] = []
        self.boom = anyio.Event()
        self.crashed = False

    def routes(self, ctx: ActorContext) -> list[Route[Any]]:
        return [Route(ctx.subjects.layer_task("HL5"), CancelAction, self.handle, queue="hl5")]

    async def background(self, ctx: ActorContext) -> None:
        await self.boom.wait()
        if not self.crashed:
            self.crashed = True
            raise RuntimeError("crash while another message is in flight")

    async def handle(self, message: CancelAction, msg: Msg) -> None:
        self.started.append((message.action_id, msg.delivered))
        if message.action_id == "boom":
            self.boom.set()
            return
        await anyio.sleep(0.5)
        self.done.append((message.action_id, msg.delivered))


async def test_durable_work_in_flight_during_a_crash_goes_back_to_the_server(
    connect: Factory, subjects: Subjects
) -> None:
    bus = await connect(replace(FAST, ack_wait=30.0))
    actor = CrashWhileBusy()
    policy = SupervisionPolicy(initial_backoff=0.01, drain_timeout=5.0)
    system = ActorSystem(bus, subjects=subjects, policy=policy)
    system.add(actor)
    async with system.running():
        await bus.publish(subjects.layer_task("HL5"), encode(CancelAction(action_id="slow")))
        await wait_for(lambda: ("slow", 1) in actor.started)
        await bus.publish(subjects.layer_task("HL5"), encode(CancelAction(action_id="boom")))
        await wait_for(lambda: len(actor.done) == 1)
        await wait_stored(bus, bus.work_stream, 0)
    assert system.stats("crash-while-busy").restarts == 1
    assert actor.done == [("slow", 2)], "naked at the crash, redelivered long before ack_wait"


async def reconnected(bus: NatsBus, count: int) -> None:
    await wait_for(lambda: bus.client.stats["reconnects"] >= count and bus.client.is_connected)


async def test_durable_work_survives_a_server_restart() -> None:
    subjects = Subjects(prefix=f"js{uuid.uuid4().hex[:10]}")
    config = replace(FAST, storage="file")
    with NatsServer(jetstream=True) as server:
        bus = await NatsBus.connect(
            server.url, jetstream=config, subjects=subjects, reconnect_time_wait=0.05
        )
        async with bus:
            await bus.publish(subjects.work_order, b"kept")
            server.restart()
            await reconnected(bus, 1)
            async with bus.subscribe(subjects.work_order, queue="supervisor") as sub:
                kept = await next_msg(sub)
                assert (kept.data, kept.delivered) == (b"kept", 1)
                await kept.ack()
                await bus.flush()
                server.restart()
                await reconnected(bus, 2)
                await bus.publish(subjects.work_order, b"after")
                after = await next_msg(sub)
                assert after.data == b"after"
                await after.ack()
