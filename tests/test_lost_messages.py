"""A subscriber that falls behind loses nothing silently: backpressure on ``MemoryBus``, and a
dead letter naming the subject and the count of lost messages when a bus drops (NATS core, or
a ``MemoryBus`` whose bounded wait ran out)."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from typing import Any

import anyio
import pytest

from humangr.contracts import CancelAction, DeadLetter, Subjects, decode, encode
from humangr.engine.actor import Actor, ActorContext, ActorSystem, Route, SupervisionPolicy
from humangr.engine.bus import Bus, MemoryBus, Msg, Subscription
from humangr.engine.errors import ContractError
from humangr.engine.letters import dead_letter

pytestmark = pytest.mark.anyio

POLICY = SupervisionPolicy(initial_backoff=0.01, max_backoff=0.05, drain_timeout=2.0)


class Tiny(Actor):
    """One message at a time through a mailbox of 2. 'hold' blocks until released; 'spawn'
    publishes three more messages into its own mailbox."""

    name = "tiny"
    max_concurrency = 1
    mailbox_size = 2

    def __init__(self) -> None:
        self.seen: list[str] = []
        self.release = anyio.Event()
        self.holding = anyio.Event()
        self.ctx: ActorContext | None = None

    def routes(self, ctx: ActorContext) -> Sequence[Route[Any]]:
        return [Route(f"{ctx.subjects.prefix}.in", CancelAction, self.handle)]

    async def setup(self, ctx: ActorContext) -> None:
        self.ctx = ctx

    async def handle(self, message: CancelAction, msg: Msg) -> None:
        if message.reason == "hold":
            self.holding.set()
            await self.release.wait()
        if message.reason == "spawn":
            assert self.ctx is not None
            for n in range(3):
                child = CancelAction(action_id=f"{message.action_id}-{n}")
                await self.ctx.publish(msg.subject, child)
        self.seen.append(message.action_id)


def fresh() -> Subjects:
    return Subjects(prefix=f"l{uuid.uuid4().hex[:10]}")


async def letters(sub: Subscription, wait: float) -> list[DeadLetter]:
    got: list[DeadLetter] = []
    with anyio.move_on_after(wait):
        async for msg in sub:
            got.append(decode(msg.data, DeadLetter))
    return got


async def wait_for(predicate: Any, timeout: float = 10.0) -> None:
    with anyio.fail_after(timeout):
        while not predicate():  # noqa: ASYNC110 - polling test state
            await anyio.sleep(0.005)


def sample(system: ActorSystem, name: str, subject: str) -> float | None:
    return system.metrics.registry.get_sample_value(name, {"subject": subject})


async def test_memory_backpressure_delivers_everything_to_a_slow_actor() -> None:
    subjects = fresh()
    actor = Tiny()
    async with MemoryBus() as bus:
        system = ActorSystem(bus, subjects=subjects, policy=POLICY)
        system.add(actor)
        async with bus.subscribe(subjects.dlq) as dlq, system.running():
            subject = f"{subjects.prefix}.in"
            await bus.publish(subject, encode(CancelAction(action_id="first", reason="hold")))
            await actor.holding.wait()
            published = 0

            async def flood() -> None:
                nonlocal published
                for n in range(40):
                    await bus.publish(subject, encode(CancelAction(action_id=f"m{n}")))
                    published += 1

            async with anyio.create_task_group() as tg:
                tg.start_soon(flood)
                await anyio.sleep(0.1)
                assert published < 40, "the publisher waits while the actor is busy"
                actor.release.set()
            await wait_for(lambda: len(actor.seen) == 41)
            assert await letters(dlq, 0.2) == []
        assert actor.seen == ["first", *(f"m{n}" for n in range(40))]
        assert system.stats("tiny").lost == 0
        assert sample(system, "humangr_messages_lost_total", subject) == 0


async def test_a_handler_filling_its_own_mailbox_cannot_deadlock_and_its_loss_is_reported() -> None:
    subjects = fresh()
    actor = Tiny()
    actor.mailbox_size = 1
    async with MemoryBus(max_wait=0.3) as bus:
        system = ActorSystem(bus, subjects=subjects, policy=POLICY)
        system.add(actor)
        async with bus.subscribe(subjects.dlq) as dlq, system.running():
            subject = f"{subjects.prefix}.in"
            await bus.publish(subject, encode(CancelAction(action_id="p", reason="spawn")))
            with anyio.fail_after(10):
                async for msg in dlq:
                    letter = decode(msg.data, DeadLetter)
                    break
            await wait_for(lambda: len(actor.seen) + letter.lost == 4)
    assert letter.lost >= 1
    assert (letter.subject, letter.actor, letter.deliveries) == (subject, "tiny", 0)
    assert "stayed full for the 0.3s publishers wait" in letter.error
    assert (letter.raw, letter.raw_size) == (b"", 0)
    assert system.stats("tiny").lost == letter.lost
    assert sample(system, "humangr_messages_lost_total", subject) == letter.lost
    assert actor.seen[0] == "p"


@pytest.mark.nats
async def test_a_nats_slow_consumer_drop_is_a_dead_letter_with_the_count(nats_url: str) -> None:
    from humangr.engine.bus.nats import NatsBus

    subjects = fresh()
    actor = Tiny()
    bus: Bus = await NatsBus.connect(nats_url)
    try:
        system = ActorSystem(bus, subjects=subjects, policy=POLICY)
        system.add(actor)
        subject = f"{subjects.prefix}.in"
        async with (
            bus.subscribe(subjects.dlq) as dlq,
            bus.subscribe(subject) as observer,
            system.running(),
        ):
            assert sample(system, "humangr_messages_lost_total", subject) == 0
            await bus.publish(subject, encode(CancelAction(action_id="first", reason="hold")))
            await actor.holding.wait()
            for n in range(30):
                await bus.publish(subject, encode(CancelAction(action_id=f"m{n}")))
            with anyio.fail_after(10):
                for _ in range(31):
                    await observer.__anext__()
            await anyio.sleep(0.2)
            actor.release.set()
            with anyio.fail_after(10):
                async for msg in dlq:
                    letter = decode(msg.data, DeadLetter)
                    break
            await wait_for(lambda: len(actor.seen) + letter.lost == 31)
            assert await letters(dlq, 0.3) == [], "one letter for one overflow"
    finally:
        await bus.close()
    assert letter.lost == 27, "30 sent: 2 fit the mailbox, 1 waits in the pump for a slot"
    assert (letter.subject, letter.actor, letter.deliveries) == (subject, "tiny", 0)
    assert f"{letter.lost} message(s) dropped" in letter.error
    assert system.stats("tiny").lost == letter.lost
    assert sample(system, "humangr_messages_lost_total", subject) == letter.lost
    assert sample(system, "humangr_dead_letters_total", subject) == 1


def test_a_loss_letter_round_trips_and_its_counts_are_bounded() -> None:
    letter = dead_letter("hl.in", "slow", actor="a", deliveries=0, lost=7, stream_sequence=3)
    assert decode(encode(letter), DeadLetter) == letter
    assert (letter.lost, letter.stream_sequence, letter.raw) == (7, 3, b"")
    older = decode(b'{"subject": "hl.in", "error": "x"}', DeadLetter)
    assert (older.lost, older.stream_sequence) == (0, 0), "letters without the fields decode"
    for bad in (b'"lost": -1', b'"stream_sequence": -2', b'"lost": "many"', b'"lost_count": 1'):
        with pytest.raises(ContractError):
            decode(b'{"subject": "hl.in", "error": "x", ' + bad + b"}", DeadLetter)
