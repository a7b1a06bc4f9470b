"""A JetStream message that exhausts ``max_deliver`` without a handler ever finishing it becomes
one dead letter on ``hl.dlq`` — however many processes share the consumer — and leaves the
work stream. Real nats-server; separate processes where it matters."""

from __future__ import annotations

import json
import logging
import subprocess
import sys
import textwrap
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import anyio
import pytest

from humangr.contracts import CancelAction, DeadLetter, Subjects, decode, encode
from humangr.engine.actor import Actor, ActorContext, ActorSystem, Route, SupervisionPolicy
from humangr.engine.bus import Exhausted, ExhaustedSource, Msg, Subscription
from humangr.engine.bus.exhausted import advisory_subject
from humangr.engine.bus.jetstream import JetStreamConfig, durable_name, stream_names
from humangr.engine.bus.nats import NatsBus

pytestmark = [pytest.mark.anyio, pytest.mark.nats]

FAST = JetStreamConfig(ack_wait=1.0, max_deliver=2, poll_interval=0.5, storage="memory")
HANGING = SupervisionPolicy(progress_interval=600.0, drain_timeout=0.5)
"""No progress reports: a handler that hangs is redelivered after the ack wait."""
Factory = Callable[..., Awaitable[NatsBus]]


@pytest.fixture
def subjects() -> Subjects:
    return Subjects(prefix=f"md{uuid.uuid4().hex[:10]}")


@pytest.fixture
async def connect(nats_url: str, subjects: Subjects) -> AsyncIterator[Factory]:
    """Buses under one fresh prefix (JetStream unless ``core=True``); streams deleted after."""
    buses: list[NatsBus] = []

    async def make(*, core: bool = False) -> NatsBus:
        bus = await NatsBus.connect(nats_url, jetstream=None if core else FAST, subjects=subjects)
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


class Hang(Actor):
    """Takes layer tasks of HL1 and never finishes one."""

    name = "hang"

    def __init__(self, deliveries: list[int]) -> None:
        self.deliveries = deliveries

    def routes(self, ctx: ActorContext) -> Sequence[Route[Any]]:
        return [Route(ctx.subjects.layer_task("HL1"), CancelAction, self.handle, queue="hl1")]

    async def handle(self, message: CancelAction, msg: Msg) -> None:
        self.deliveries.append(msg.delivered)
        await anyio.sleep_forever()


async def letters(sub: Subscription, wait: float) -> list[DeadLetter]:
    got: list[DeadLetter] = []
    with anyio.move_on_after(wait):
        async for msg in sub:
            got.append(decode(msg.data, DeadLetter))
    return got


async def first_letter(sub: Subscription, timeout: float = 15.0) -> DeadLetter:
    with anyio.fail_after(timeout):
        async for msg in sub:
            return decode(msg.data, DeadLetter)
    raise AssertionError("the dead-letter subscription ended")


async def stored(bus: NatsBus) -> int:
    assert bus.jetstream is not None
    return int((await bus.jetstream.stream_info(bus.work_stream)).state.messages)


async def test_a_message_no_handler_finishes_is_one_dead_letter_across_two_processes(
    connect: Factory, subjects: Subjects
) -> None:
    one, two, observer = await connect(), await connect(), await connect(core=True)
    deliveries: list[int] = []
    systems = [ActorSystem(bus, subjects=subjects, policy=HANGING) for bus in (one, two)]
    for system in systems:
        system.add(Hang(deliveries))
    task = CancelAction(action_id="stuck-1")
    async with (
        observer.subscribe(subjects.dlq) as dlq,
        systems[0].running(),
        systems[1].running(),
    ):
        await observer.publish(subjects.layer_task("HL1"), encode(task))
        letter = await first_letter(dlq)
        assert await letters(dlq, 2.0) == [], "exactly one letter for one exhausted message"
        assert await stored(one) == 0, "the message left the work stream"
    assert sorted(deliveries) == [1, 2]
    assert letter.subject == subjects.layer_task("HL1")
    assert (letter.deliveries, letter.correlation_id, letter.actor) == (2, "stuck-1", "hang")
    assert letter.stream_sequence == 1
    assert (letter.raw, letter.raw_size, letter.lost) == (b"", len(encode(task)), 0)
    assert "not acknowledged after 2 deliveries (max_deliver)" in letter.error
    subject = {"subject": subjects.layer_task("HL1")}
    counted = [
        system.metrics.registry.get_sample_value("humangr_max_deliver_dead_letters_total", subject)
        for system in systems
    ]
    assert None not in counted, counted
    assert sorted(c or 0.0 for c in counted) == [0.0, 1.0], (
        "counted by the process that reported it"
    )


class HangSubmissions(Actor):
    """Takes every agent's submissions and never finishes one."""

    name = "hang-submissions"

    def routes(self, ctx: ActorContext) -> Sequence[Route[Any]]:
        return [Route(ctx.subjects.agent_submits, CancelAction, self.handle, queue="supervisor")]

    async def handle(self, message: CancelAction, msg: Msg) -> None:
        await anyio.sleep_forever()


async def test_an_exhausted_submission_is_told_to_its_agent_only(
    connect: Factory, subjects: Subjects
) -> None:
    bus, observer = await connect(), await connect(core=True)
    system = ActorSystem(bus, subjects=subjects, policy=HANGING)
    system.add(HangSubmissions())
    async with (
        observer.subscribe(subjects.dlq) as dlq,
        observer.subscribe(subjects.agent_dlq("bob")) as bobs,
        observer.subscribe(subjects.agent_dlq("alice")) as alices,
        system.running(),
    ):
        await observer.publish(subjects.agent_submit("bob"), encode(CancelAction(action_id="b")))
        letter = await first_letter(dlq)
        assert await first_letter(bobs) == letter, "the submitter's own copy"
        assert await letters(alices, 0.5) == []
    assert (letter.subject, letter.correlation_id) == (subjects.agent_submit("bob"), "b")


class Late(Actor):
    """Finishes its layer tasks of HL1 only once told to: too late, after the claim."""

    name = "late"

    def __init__(self) -> None:
        self.finished: list[int] = []
        self.go = anyio.Event()

    def routes(self, ctx: ActorContext) -> Sequence[Route[Any]]:
        return [Route(ctx.subjects.layer_task("HL1"), CancelAction, self.handle, queue="hl1")]

    async def handle(self, message: CancelAction, msg: Msg) -> None:
        await self.go.wait()
        self.finished.append(msg.delivered)


async def test_handlers_finishing_after_the_claim_change_nothing(
    connect: Factory, subjects: Subjects
) -> None:
    bus, observer = await connect(), await connect(core=True)
    actor = Late()
    system = ActorSystem(bus, subjects=subjects, policy=HANGING)
    system.add(actor)
    async with observer.subscribe(subjects.dlq) as dlq, system.running():
        await observer.publish(subjects.layer_task("HL1"), encode(CancelAction(action_id="late")))
        letter = await first_letter(dlq)
        actor.go.set()
        with anyio.fail_after(10):
            while len(actor.finished) < 2:  # noqa: ASYNC110 - polling test state
                await anyio.sleep(0.05)
        assert await letters(dlq, 1.0) == [], "the late acks report nothing more"
        assert await stored(bus) == 0
    assert sorted(actor.finished) == [1, 2]
    assert (letter.correlation_id, letter.deliveries) == ("late", 2)
    stats = system.stats("late")
    assert (stats.restarts, stats.handled, stats.dead_letters) == (0, 2, 1)


async def test_forged_and_repeated_advisories_remove_nothing_else(
    connect: Factory, subjects: Subjects, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING, logger="humangr.bus")
    bus, observer = await connect(), await connect(core=True)
    deliveries: list[int] = []
    system = ActorSystem(bus, subjects=subjects, policy=HANGING)
    system.add(Hang(deliveries))
    work, _ = stream_names(subjects)
    consumer = durable_name("hl1", subjects.layer_task("HL1"))
    advisory = advisory_subject(work, consumer)

    def forged(seq: int, **fields: object) -> bytes:
        body = {
            "type": "io.nats.jetstream.advisory.v1.max_deliver",
            "stream": work,
            "consumer": consumer,
            "stream_seq": seq,
            "deliveries": 2,
        }
        return json.dumps({**body, **fields}).encode()

    async with observer.subscribe(subjects.dlq) as dlq, system.running():
        await bus.publish(subjects.work_order, b"another consumer's work")  # sequence 1
        hostile = [
            b"\xff not json",
            b"{" * 10_000,
            b'{"type": "x"}',
            forged(1),  # a message of another subject: never this consumer's
            forged(999),  # no such message
            forged(0),
            forged(1, consumer="someone-else"),
            forged(1, type="io.nats.jetstream.advisory.v1.terminated"),
            json.dumps({"type": "io.nats.jetstream.advisory.v1.max_deliver"}).encode() * 500,
        ]
        for data in hostile:
            await observer.publish(advisory, data)
        # a consumer the stream does not have, on its own advisory subject
        await observer.publish(advisory_subject(work, "nobody"), forged(1, consumer="nobody"))
        await observer.flush()
        assert await letters(dlq, 1.0) == []
        assert await stored(bus) == 1, "the other subject's message is still stored"
        await observer.publish(subjects.layer_task("HL1"), encode(CancelAction(action_id="s")))
        letter = await first_letter(dlq)
        assert letter.stream_sequence == 2
        await observer.publish(advisory, forged(2))  # the same advisory again
        await observer.publish(advisory, forged(2))
        assert await letters(dlq, 1.0) == [], "a repeated advisory reports nothing more"
        assert await stored(bus) == 1
    logged = "\n".join(r.getMessage() for r in caplog.records)
    assert "malformed advisory" in logged
    assert "not the subject of consumer" in logged
    assert "about another consumer" in logged
    assert "no such consumer" in logged


async def test_the_bus_watch_yields_what_it_claimed_and_a_core_bus_nothing(
    connect: Factory, subjects: Subjects
) -> None:
    bus = await connect()
    subject = subjects.pipeline_start
    await bus.publish(subject, b'{"project_id": "p-1"}')
    assert isinstance(bus, ExhaustedSource)
    async with bus.watch_exhausted() as exhausted, bus.subscribe(subject, queue="monitor") as sub:
        for delivery in (1, 2):
            msg = await anext_within(sub)
            assert (msg.delivered, msg.sequence) == (delivery, 1)
            await msg.nak()
        with anyio.fail_after(10):
            record = await anext(aiter(exhausted))
        with anyio.move_on_after(1.5):
            extra = await sub.__anext__()
            pytest.fail(f"delivered beyond max_deliver: {extra!r}")
    assert record == Exhausted(
        subject,
        b'{"project_id": "p-1"}',
        2,
        bus.work_stream,
        1,
        sub.consumer,  # type: ignore[attr-defined]
    )
    assert await stored(bus) == 0
    core = await connect(core=True)
    async with core.watch_exhausted() as nothing:
        with anyio.fail_after(1):
            assert [r async for r in nothing] == []


async def test_a_system_that_does_not_claim_leaves_the_message_stored(
    connect: Factory, subjects: Subjects
) -> None:
    """A work role's system (``claim_exhausted=False``) neither reads nor deletes: the message
    stays in the stream until a claiming system (the Supervisor's) hears its advisory."""
    bus, observer = await connect(), await connect(core=True)
    deliveries: list[int] = []
    worker = ActorSystem(bus, subjects=subjects, policy=HANGING, claim_exhausted=False)
    worker.add(Hang(deliveries))
    async with observer.subscribe(subjects.dlq) as dlq, worker.running():
        await observer.publish(subjects.layer_task("HL1"), encode(CancelAction(action_id="w")))
        with anyio.fail_after(10):
            while len(deliveries) < 2:  # noqa: ASYNC110 - polling test state
                await anyio.sleep(0.05)
        assert await letters(dlq, 2.5) == []
        assert await stored(bus) == 1, "nobody claimed it: still stored"


async def anext_within(sub: Subscription, timeout: float = 10.0) -> Msg:
    with anyio.fail_after(timeout):
        return await sub.__anext__()


WORKER = textwrap.dedent(
    """
    import sys, anyio
    from humangr.contracts import CancelAction, Subjects
    from humangr.engine.actor import Actor, ActorSystem, Route, SupervisionPolicy
    from humangr.engine.bus.jetstream import JetStreamConfig
    from humangr.engine.bus.nats import NatsBus

    class Hang(Actor):
        name = "hang"
        def routes(self, ctx):
            return [Route(ctx.subjects.layer_task("HL1"), CancelAction, self.handle, queue="hl1")]
        async def handle(self, message, msg):
            print(f"took {message.action_id} {msg.delivered}", flush=True)
            await anyio.sleep_forever()

    async def main(url, prefix):
        config = JetStreamConfig(ack_wait=1.0, max_deliver=2, poll_interval=0.5, storage="memory")
        bus = await NatsBus.connect(url, jetstream=config, subjects=Subjects(prefix))
        system = ActorSystem(bus, subjects=Subjects(prefix),
                             policy=SupervisionPolicy(progress_interval=600.0))
        system.add(Hang())
        async with bus, system.running():
            print("ready", flush=True)
            await anyio.sleep_forever()

    anyio.run(main, sys.argv[1], sys.argv[2])
    """
)


@contextmanager
def worker(url: str, prefix: str) -> Iterator[subprocess.Popen[str]]:
    process = subprocess.Popen(
        [sys.executable, "-c", WORKER, url, prefix],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        yield process
    finally:
        process.kill()
        process.wait(10)


async def says(process: subprocess.Popen[str], line: str, timeout: float = 30.0) -> None:
    """Wait until the worker prints ``line``."""
    assert process.stdout is not None
    stdout = process.stdout
    with anyio.fail_after(timeout):
        while True:
            got = await anyio.to_thread.run_sync(stdout.readline)
            if got.strip() == line:
                return
            assert got, f"the worker exited (code {process.poll()}) before saying {line!r}"


async def test_workers_killed_at_every_delivery_leave_one_dead_letter(
    nats_url: str, connect: Factory, subjects: Subjects
) -> None:
    observer = await connect()
    async with observer.subscribe(subjects.dlq) as dlq:
        await observer.publish(subjects.layer_task("HL1"), encode(CancelAction(action_id="k1")))
        for delivery in (1, 2):
            with worker(nats_url, subjects.prefix) as doomed:
                await says(doomed, f"took k1 {delivery}")
        with worker(nats_url, subjects.prefix) as a, worker(nats_url, subjects.prefix) as b:
            await says(a, "ready")
            await says(b, "ready")
            letter = await first_letter(dlq, timeout=20)
            assert await letters(dlq, 2.0) == [], "one letter from two processes"
        assert await stored(observer) == 0
    assert (letter.subject, letter.deliveries) == (subjects.layer_task("HL1"), 2)
    assert (letter.correlation_id, letter.stream_sequence) == ("k1", 1)
