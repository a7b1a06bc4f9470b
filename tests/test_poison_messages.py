"""Poison messages are just bad messages: one dead letter each, no crash, siblings unharmed."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator, Sequence
from typing import Any

import anyio
import anyio.lowlevel
import pytest

from humangr.contracts import CancelAction, DeadLetter, Subjects, decode, encode
from humangr.engine.actor import Actor, ActorContext, ActorSystem, Route, SupervisionPolicy
from humangr.engine.bus import Bus, Msg, Subscription
from humangr.engine.bus.jetstream import JetStreamConfig, stream_names
from humangr.engine.bus.nats import NatsBus
from humangr.engine.errors import MessageRefused

pytestmark = pytest.mark.anyio

FAST = SupervisionPolicy(initial_backoff=0.01, max_backoff=0.05, drain_timeout=2.0)
DEEP = b'{"a":' * 1_000 + b"1" + b"}" * 1_000
POISON = {
    "bad UTF-8 in a known field": b'{"action_id":"\xff\xfe"}',
    "bad UTF-8 in another field": b'{"action_id":"a-1","reason":"\xc3\x28"}',
    "invalid JSON": b'{"action_id": "a-2",',
    "not an object": b'["action_id", "a-3", 1]',
    "nested 1,000 levels": DEEP,
    "nested 1,000 levels in a known field": b'{"reason":' + b"[" * 1_000 + b"]" * 1_000 + b"}",
    "empty": b"",
}


def fresh_subjects() -> Subjects:
    return Subjects(prefix=f"t{uuid.uuid4().hex[:10]}")


class Worker(Actor):
    """Handles CancelAction on ``<prefix>.in``: 'refuse' refuses naming the action id,
    'refuse:TEXT' refuses with TEXT, 'refuse-own' with its own name and correlation id,
    'refuse-in-group' from inside a task group; 'block' waits for ``release``."""

    def __init__(self, name: str, *, report_undecodable: bool = True) -> None:
        self.name = name
        self.report_undecodable = report_undecodable
        self.seen: list[str] = []
        self.active = 0
        self.release = anyio.Event()

    def routes(self, ctx: ActorContext) -> Sequence[Route[Any]]:
        subject = f"{ctx.subjects.prefix}.in"
        return [
            Route(subject, CancelAction, self.handle, report_undecodable=self.report_undecodable)
        ]

    async def handle(self, message: CancelAction, msg: Msg) -> None:
        self.active += 1
        try:
            if message.reason == "refuse":
                raise MessageRefused(f"{message.action_id} refused")
            if message.reason.startswith("refuse:"):
                raise MessageRefused(message.reason.removeprefix("refuse:"))
            if message.reason == "refuse-own":
                raise MessageRefused(f"{self.name} refuses", correlation_id="other-id")
            if message.reason == "refuse-in-group":
                async with anyio.create_task_group() as tg:
                    tg.start_soon(self._refuse_later)
            if message.reason == "block":
                await self.release.wait()
            self.seen.append(message.action_id)
        finally:
            self.active -= 1

    async def _refuse_later(self) -> None:
        await anyio.lowlevel.checkpoint()
        raise MessageRefused("refused inside a task group")


async def send(bus: Bus, subjects: Subjects, action_id: str, reason: str = "") -> None:
    await bus.publish(
        f"{subjects.prefix}.in", encode(CancelAction(action_id=action_id, reason=reason))
    )


async def letters(sub: Subscription, count: int, *, quiet: float = 0.3) -> list[DeadLetter]:
    """``count`` dead letters, then none more within ``quiet`` seconds."""
    found: list[DeadLetter] = []
    with anyio.fail_after(10):
        while len(found) < count:
            found.append(decode((await sub.__anext__()).data, DeadLetter))
    with anyio.move_on_after(quiet):
        extra = decode((await sub.__anext__()).data, DeadLetter)
        raise AssertionError(f"one dead letter too many: {extra}")
    return found


async def wait_for(predicate: Any) -> None:
    with anyio.fail_after(5):
        while not predicate():  # noqa: ASYNC110 - polling test state
            await anyio.sleep(0.005)


async def test_every_kind_of_bad_bytes_is_one_dead_letter(bus: Bus) -> None:
    subjects = fresh_subjects()
    actor = Worker("worker")
    system = ActorSystem(bus, subjects=subjects, policy=FAST)
    system.add(actor)
    async with bus.subscribe(subjects.dlq) as dlq, system.running():
        for payload in POISON.values():
            await bus.publish(f"{subjects.prefix}.in", payload)
        found = await letters(dlq, len(POISON))
        await send(bus, subjects, "after")
        await wait_for(lambda: actor.seen == ["after"])
    by_raw = {letter.raw_size: letter for letter in found}
    for kind, payload in POISON.items():
        letter = by_raw[len(payload)]
        assert letter.error.startswith("invalid CancelAction"), kind
        assert payload.startswith(letter.raw), kind
        assert letter.subject == f"{subjects.prefix}.in"
    assert by_raw[len(POISON["bad UTF-8 in a known field"])].error == (
        "invalid CancelAction at $.action_id: not valid UTF-8 (byte 14)"
    )
    assert by_raw[len(POISON["bad UTF-8 in another field"])].correlation_id == "a-1"
    assert by_raw[len(POISON["invalid JSON"])].correlation_id == "a-2"
    assert by_raw[len(POISON["not an object"])].correlation_id == ""
    stats = system.stats("worker")
    assert (stats.restarts, stats.refused, stats.dead_letters) == (0, len(POISON), len(POISON))


async def test_a_bad_message_on_a_shared_subject_is_dead_lettered_once(bus: Bus) -> None:
    subjects = fresh_subjects()
    workers = [Worker(f"w{index}") for index in range(3)]
    system = ActorSystem(bus, subjects=subjects, policy=FAST)
    system.add(*workers)
    async with bus.subscribe(subjects.dlq) as dlq, system.running():
        await bus.publish(f"{subjects.prefix}.in", b'{"action_id":"\xff"}')
        await send(bus, subjects, "same", "refuse")
        (undecodable, refused) = sorted(await letters(dlq, 2), key=lambda x: x.error)
        await send(bus, subjects, "own", "refuse-own")
        own = await letters(dlq, 3)
        await send(bus, subjects, "after")
        await wait_for(lambda: all(w.seen == ["after"] for w in workers))
    assert undecodable.error.startswith("invalid CancelAction at $.action_id")
    assert (refused.error, refused.correlation_id, refused.raw) == ("same refused", "same", b"")
    assert sorted(letter.error for letter in own) == [f"w{i} refuses" for i in range(3)]
    assert {letter.correlation_id for letter in own} == {"other-id"}
    stats = [system.stats(w.name) for w in workers]
    assert [s.refused for s in stats] == [3, 3, 3]
    assert sum(s.dead_letters for s in stats) == 5
    assert all(s.restarts == 0 for s in stats)


async def test_the_same_bad_bytes_again_after_the_window_are_reported_again(bus: Bus) -> None:
    subjects = fresh_subjects()
    policy = SupervisionPolicy(initial_backoff=0.01, drain_timeout=2.0, dead_letter_window=0.5)
    system = ActorSystem(bus, subjects=subjects, policy=policy)
    system.add(Worker("w1"), Worker("w2"))
    async with bus.subscribe(subjects.dlq) as dlq, system.running():
        await bus.publish(f"{subjects.prefix}.in", b"{oops")
        await bus.publish(f"{subjects.prefix}.in", b"{oops")
        await letters(dlq, 1)
        await anyio.sleep(0.5)
        await bus.publish(f"{subjects.prefix}.in", b"{oops")
        await letters(dlq, 1)
    none = ActorSystem(bus, subjects=subjects, policy=SupervisionPolicy(dead_letter_window=0))
    none.add(Worker("w3"), Worker("w4"))
    async with bus.subscribe(subjects.dlq) as dlq, none.running():
        await bus.publish(f"{subjects.prefix}.in", b"{oops")
        assert {letter.actor for letter in await letters(dlq, 2)} == {"w3", "w4"}


async def test_a_route_may_leave_undecodable_messages_to_another(bus: Bus) -> None:
    subjects = fresh_subjects()
    observer = Worker("observer", report_undecodable=False)
    system = ActorSystem(bus, subjects=subjects, policy=FAST)
    system.add(observer)
    async with bus.subscribe(subjects.dlq) as dlq, system.running():
        await bus.publish(f"{subjects.prefix}.in", b"\xff")
        await wait_for(lambda: system.stats("observer").refused == 1)
        await send(bus, subjects, "x", "refuse")
        (letter,) = await letters(dlq, 1)
    assert letter.correlation_id == "x", "only undecodable messages are left to the owner"
    owner = Worker("owner")
    both = ActorSystem(bus, subjects=subjects, policy=FAST)
    both.add(Worker("observer", report_undecodable=False), owner)
    async with bus.subscribe(subjects.dlq) as dlq, both.running():
        await bus.publish(f"{subjects.prefix}.in", b"\xfe")
        (letter,) = await letters(dlq, 1)
    assert letter.actor == "owner"


async def test_a_refusal_raised_inside_a_task_group_is_a_refusal(bus: Bus) -> None:
    subjects = fresh_subjects()
    system = ActorSystem(bus, subjects=subjects, policy=FAST)
    system.add(Worker("w"))
    async with bus.subscribe(subjects.dlq) as dlq, system.running():
        await send(bus, subjects, "grouped", "refuse-in-group")
        (letter,) = await letters(dlq, 1)
    assert (letter.error, letter.correlation_id) == ("refused inside a task group", "grouped")
    assert system.stats("w").failures == 0


async def test_dead_letters_keep_no_secret(bus: Bus) -> None:
    subjects = fresh_subjects()
    system = ActorSystem(bus, subjects=subjects, policy=FAST)
    system.add(Worker("w"))
    payload = (
        b'{"action_id":"leak","reason":"AKIAIOSFODNN7EXAMPLE nats://user:pass@nats:4222","x":1}'
    )
    async with bus.subscribe(subjects.dlq) as dlq, system.running():
        await bus.publish(f"{subjects.prefix}.in", payload)
        await send(bus, subjects, "r1", "refuse:key AKIAIOSFODNN7EXAMPLE at nats://user:pass@h")
        found = sorted(await letters(dlq, 2), key=lambda x: x.raw_size, reverse=True)
    undecodable, refused = found
    assert undecodable.raw
    assert undecodable.raw_size == len(payload)
    assert undecodable.correlation_id == "leak"
    for letter in found:
        wire = encode(letter)
        assert b"AKIAIOSFODNN7EXAMPLE" not in wire
        assert b"user:pass" not in wire
    assert (refused.raw, refused.correlation_id) == (b"", "r1")
    assert refused.error == "key *** at nats://***@h"


# JetStream: durable messages go back to the server, never to a local retry.

JS = JetStreamConfig(ack_wait=5.0, max_deliver=3, poll_interval=0.5, storage="memory")


@pytest.fixture
async def jetstream(nats_url: str) -> AsyncIterator[tuple[NatsBus, Subjects]]:
    subjects = Subjects(prefix=f"js{uuid.uuid4().hex[:10]}")
    bus = await NatsBus.connect(nats_url, jetstream=JS, subjects=subjects)
    try:
        yield bus, subjects
    finally:
        await bus.close()
        cleanup = await NatsBus.connect(nats_url)
        try:
            for name in stream_names(subjects):
                await cleanup.client.jetstream().delete_stream(name)
        finally:
            await cleanup.close()


class DurableWorker(Actor):
    """On a work subject: 'boom' raises on every delivery, 'block' waits for ``release``."""

    name = "durable"

    def __init__(self) -> None:
        self.deliveries: list[tuple[str, int]] = []
        self.done: list[tuple[str, int]] = []
        self.release = anyio.Event()

    def routes(self, ctx: ActorContext) -> Sequence[Route[Any]]:
        return [Route(ctx.subjects.work_order, CancelAction, self.handle, queue="durable")]

    async def handle(self, message: CancelAction, msg: Msg) -> None:
        self.deliveries.append((message.action_id, msg.delivered))
        if message.reason == "boom":
            raise TimeoutError(f"publish timed out for {message.action_id}")
        if message.reason == "block":
            await self.release.wait()
        self.done.append((message.action_id, msg.delivered))


async def stored(bus: NatsBus) -> int:
    assert bus.jetstream is not None
    return int((await bus.jetstream.stream_info(bus.work_stream)).state.messages)


async def test_durable_failure_is_redelivered_while_its_sibling_runs_on(
    jetstream: tuple[NatsBus, Subjects],
) -> None:
    bus, subjects = jetstream
    actor = DurableWorker()
    system = ActorSystem(bus, subjects=subjects, policy=FAST)
    system.add(actor)
    async with bus.subscribe(subjects.dlq) as dlq, system.running():
        await bus.publish(subjects.work_order, encode(CancelAction(action_id="s", reason="block")))
        await wait_for(lambda: ("s", 1) in actor.deliveries)
        await bus.publish(subjects.work_order, encode(CancelAction(action_id="b", reason="boom")))
        (letter,) = await letters(dlq, 1)
        assert [d for d in actor.deliveries if d[0] == "b"] == [("b", 1), ("b", 2), ("b", 3)]
        actor.release.set()
        await wait_for(lambda: actor.done == [("s", 1)])
    assert letter.deliveries == 3
    assert letter.error == "handler failed 3 times: TimeoutError: publish timed out for b"
    assert (letter.correlation_id, letter.raw) == ("b", b"")
    assert [d for d in actor.deliveries if d[0] == "s"] == [("s", 1)], "never re-run"
    assert system.stats("durable").restarts == 0


async def test_undecodable_durable_messages_are_dead_lettered_and_dropped(
    jetstream: tuple[NatsBus, Subjects],
) -> None:
    bus, subjects = jetstream
    actor = DurableWorker()
    system = ActorSystem(bus, subjects=subjects, policy=FAST)
    system.add(actor)
    async with bus.subscribe(subjects.dlq) as dlq, system.running():
        for payload in POISON.values():
            await bus.publish(subjects.work_order, payload)
        found = await letters(dlq, len(POISON))
        await bus.publish(subjects.work_order, encode(CancelAction(action_id="ok")))
        await wait_for(lambda: actor.done == [("ok", 1)])
        with anyio.fail_after(10):
            while await stored(bus):  # noqa: ASYNC110 - polling server state
                await anyio.sleep(0.05)
    assert {letter.deliveries for letter in found} == {1}
    assert sorted(letter.raw_size for letter in found) == sorted(map(len, POISON.values()))
    assert actor.deliveries == [("ok", 1)]
    assert system.stats("durable").restarts == 0
