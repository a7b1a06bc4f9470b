"""Issue 25: an actor's messages are handled by a bounded pool of long-lived workers, not by a
task per message. The pool keeps the actor's concurrency limit across all its routes, never
runs more workers than that however many messages arrive, survives a handler that raises,
and finishes what it holds when the actor stops — over MemoryBus and a real NatsBus."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Sequence
from typing import Any

import anyio
import anyio.lowlevel
import pytest

from humangr.contracts import CancelAction, DeadLetter, Subjects, decode, encode
from humangr.engine.actor import Actor, ActorContext, ActorSystem, Route, SupervisionPolicy
from humangr.engine.actor.pool import WorkerPool
from humangr.engine.bus import Bus, Msg

pytestmark = pytest.mark.anyio

FAST = SupervisionPolicy(initial_backoff=0.01, max_backoff=0.05, drain_timeout=5.0)


class TwoRoutes(Actor):
    """Handles CancelAction on two subjects; records which task handled each message and how
    many ran at once. ``boom`` raises, ``slow`` sleeps a little."""

    def __init__(self, concurrency: int) -> None:
        self.name = "two-routes"
        self.max_concurrency = concurrency
        self.seen: list[str] = []
        self.tasks: set[asyncio.Task[Any]] = set()
        """The tasks that handled a message (held, so no two share an id)."""
        self.active = 0
        self.peak = 0

    def routes(self, ctx: ActorContext) -> Sequence[Route[Any]]:
        prefix = ctx.subjects.prefix
        return [
            Route(f"{prefix}.a", CancelAction, self.handle),
            Route(f"{prefix}.b", CancelAction, self.handle),
        ]

    async def handle(self, message: CancelAction, msg: Msg) -> None:
        task = asyncio.current_task()
        assert task is not None
        self.tasks.add(task)
        self.active += 1
        self.peak = max(self.peak, self.active)
        try:
            if message.reason == "boom":
                raise RuntimeError(f"boom on {message.action_id}")
            if message.reason == "slow":
                await anyio.sleep(0.01)
            self.seen.append(message.action_id)
        finally:
            self.active -= 1


def fresh() -> Subjects:
    return Subjects(prefix=f"p{uuid.uuid4().hex[:10]}")


async def send(bus: Bus, subject: str, action_id: str, reason: str = "") -> None:
    await bus.publish(subject, encode(CancelAction(action_id=action_id, reason=reason)))


async def wait_for(predicate: Any, timeout: float = 10.0) -> None:
    with anyio.fail_after(timeout):
        while not predicate():  # noqa: ASYNC110 - polling test state
            await anyio.sleep(0.005)


async def test_a_flood_on_two_routes_runs_on_at_most_the_limit_of_workers(bus: Bus) -> None:
    subjects = fresh()
    actor = TwoRoutes(concurrency=3)
    system = ActorSystem(bus, subjects=subjects, policy=FAST)
    system.add(actor)
    async with system.running():
        for index in range(60):
            route = "a" if index % 2 else "b"
            await send(bus, f"{subjects.prefix}.{route}", f"m{index}", "slow")
        await wait_for(lambda: len(actor.seen) == 60)
    assert sorted(actor.seen) == sorted(f"m{index}" for index in range(60))
    assert actor.peak == 3, "the limit is shared by the routes and reached"
    assert len(actor.tasks) <= 3, "60 messages, never more workers than the limit"


async def test_a_raising_handler_does_not_stop_the_only_worker(bus: Bus) -> None:
    subjects = fresh()
    actor = TwoRoutes(concurrency=1)
    system = ActorSystem(bus, subjects=subjects, policy=FAST)
    system.add(actor)
    async with bus.subscribe(subjects.dlq) as dlq, system.running():
        await send(bus, f"{subjects.prefix}.a", "bad", "boom")
        for index in range(5):
            await send(bus, f"{subjects.prefix}.b", f"after{index}")
        await wait_for(lambda: len(actor.seen) == 5)
        with anyio.fail_after(5):
            letter = decode((await dlq.__anext__()).data, DeadLetter)
    assert letter.correlation_id == "bad"
    assert actor.seen == [f"after{index}" for index in range(5)]
    assert len(actor.tasks) == 1, "one worker handled the failing message and the rest"
    assert system.stats("two-routes").restarts == 0


async def test_stopping_finishes_the_messages_taken(bus: Bus) -> None:
    subjects = fresh()
    actor = TwoRoutes(concurrency=2)
    system = ActorSystem(bus, subjects=subjects, policy=FAST)
    system.add(actor)
    with anyio.fail_after(10):
        async with system.running():
            for index in range(6):
                await send(bus, f"{subjects.prefix}.a", f"d{index}", "slow")
            await wait_for(lambda: actor.active == 2)
    assert actor.active == 0
    assert {"d0", "d1"} <= set(actor.seen), "the messages in hand were finished, not dropped"
    assert system.stats("two-routes").restarts == 0


async def test_the_pool_starts_workers_up_to_its_size_and_reuses_idle_ones() -> None:
    handled: list[str] = []
    tasks: set[asyncio.Task[Any] | None] = set()
    gate = anyio.Event()

    async def handle(route: Any, msg: Msg) -> None:
        tasks.add(asyncio.current_task())
        await gate.wait()
        handled.append(msg.subject)

    async with anyio.create_task_group() as tg:
        pool = WorkerPool(tg, 2, handle)
        for index in range(5):  # more than its size: the rest wait in its queue
            pool.put(None, Msg(f"s{index}", b""))  # type: ignore[arg-type]
        await anyio.lowlevel.checkpoint()
        assert (pool.workers, pool.queued) == (2, 3)
        gate.set()
        await wait_for(lambda: len(handled) == 5)
        assert pool.workers == 2, "idle workers wait for more; none was added"
        pool.put(None, Msg("again", b""))  # type: ignore[arg-type]
        await wait_for(lambda: len(handled) == 6)
        assert pool.workers == 2
        pool.close()
    assert pool.workers == 0, "closed: every worker ended"
    assert handled == [f"s{index}" for index in range(5)] + ["again"]
    assert len(tasks) == 2
    with pytest.raises(RuntimeError, match="closed"):
        pool.put(None, Msg("late", b""))  # type: ignore[arg-type]


async def test_closing_the_pool_finishes_what_it_holds_first() -> None:
    handled: list[str] = []

    async def handle(route: Any, msg: Msg) -> None:
        await anyio.sleep(0.001)
        handled.append(msg.subject)

    with anyio.fail_after(5):
        async with anyio.create_task_group() as tg:
            pool = WorkerPool(tg, 1, handle)
            for index in range(4):
                pool.put(None, Msg(f"s{index}", b""))  # type: ignore[arg-type]
            pool.close()
    assert handled == ["s0", "s1", "s2", "s3"]


async def test_a_handle_that_raises_reaches_the_task_group() -> None:
    """What ``Delivery`` does not catch is the actor's to handle (a crash and restart), as it
    was with a task per message: the pool does not swallow it."""

    async def handle(route: Any, msg: Msg) -> None:
        raise ValueError("unexpected")

    async def run() -> None:
        async with anyio.create_task_group() as tg:
            WorkerPool(tg, 2, handle).put(None, Msg("s", b""))  # type: ignore[arg-type]

    with pytest.raises(ExceptionGroup) as caught:
        await run()
    assert isinstance(caught.value.exceptions[0], ValueError)


def test_a_pool_needs_a_worker() -> None:
    with pytest.raises(ValueError, match="at least one worker"):
        WorkerPool(None, 0, None)  # type: ignore[arg-type]
