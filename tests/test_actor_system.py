"""Actor system behaviour, over MemoryBus and a real NatsBus alike."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from typing import Any

import anyio
import pytest

from humangr.contracts import CancelAction, DeadLetter, Subjects, decode, encode
from humangr.engine.actor import Actor, ActorContext, ActorSystem, Route, SupervisionPolicy
from humangr.engine.bus import Bus, Msg
from humangr.engine.errors import ConfigError

pytestmark = pytest.mark.anyio

FAST = SupervisionPolicy(initial_backoff=0.01, max_backoff=0.05, drain_timeout=2.0)


def fresh_subjects() -> Subjects:
    return Subjects(prefix=f"t{uuid.uuid4().hex[:10]}")


class Recorder(Actor):
    """Handles CancelAction messages: records ids, raises on reason 'boom', blocks on 'block'."""

    def __init__(self, name: str = "recorder", *, concurrency: int = 16) -> None:
        self.name = name
        self.max_concurrency = concurrency
        self.seen: list[str] = []
        self.active = 0
        self.peak = 0
        self.setups = 0
        self.release = anyio.Event()

    def routes(self, ctx: ActorContext) -> Sequence[Route[Any]]:
        return [Route(f"{ctx.subjects.prefix}.in", CancelAction, self.handle)]

    async def setup(self, ctx: ActorContext) -> None:
        self.setups += 1

    async def handle(self, message: CancelAction, msg: Msg) -> None:
        self.active += 1
        self.peak = max(self.peak, self.active)
        try:
            if message.reason == "boom":
                raise RuntimeError(f"boom on {message.action_id}")
            if message.reason == "block":
                await self.release.wait()
            if message.reason == "slow":
                await anyio.sleep(0.05)
            self.seen.append(message.action_id)
        finally:
            self.active -= 1


async def send(bus: Bus, subjects: Subjects, action_id: str, reason: str = "") -> None:
    await bus.publish(
        f"{subjects.prefix}.in", encode(CancelAction(action_id=action_id, reason=reason))
    )


async def wait_for(predicate: Any, timeout: float = 5.0) -> None:
    with anyio.fail_after(timeout):
        while not predicate():  # noqa: ASYNC110 - polling test state
            await anyio.sleep(0.005)


async def next_dead_letter(sub: Any) -> DeadLetter:
    with anyio.fail_after(5):
        async for msg in sub:
            return decode(msg.data, DeadLetter)
    raise AssertionError("dead-letter subscription ended")


async def test_malformed_bytes_become_a_dead_letter_and_the_actor_keeps_serving(bus: Bus) -> None:
    subjects = fresh_subjects()
    actor = Recorder()
    system = ActorSystem(bus, subjects=subjects, policy=FAST)
    system.add(actor)
    async with bus.subscribe(subjects.dlq) as dlq, system.running():
        await bus.publish(f"{subjects.prefix}.in", b"\x00not json")
        await bus.publish(f"{subjects.prefix}.in", b'{"action_id": "has space"}')
        letter = await next_dead_letter(dlq)
        assert letter.subject == f"{subjects.prefix}.in"
        assert "not valid JSON" in letter.error
        assert letter.raw == b"\x00not json"
        assert letter.actor == "recorder"
        letter = await next_dead_letter(dlq)
        assert "$.action_id" in letter.error
        await send(bus, subjects, "ok-1")
        await wait_for(lambda: actor.seen == ["ok-1"])
    assert system.stats("recorder").restarts == 0
    assert system.stats("recorder").dead_letters == 2


async def test_dead_letter_truncates_oversized_payloads(bus: Bus) -> None:
    subjects = fresh_subjects()
    system = ActorSystem(bus, subjects=subjects, policy=FAST)
    system.add(Recorder())
    async with bus.subscribe(subjects.dlq) as dlq, system.running():
        await bus.publish(f"{subjects.prefix}.in", b"x" * 100_000)
        letter = await next_dead_letter(dlq)
    assert letter.raw_size == 100_000
    assert len(letter.raw) < letter.raw_size


async def test_a_raising_handler_fails_only_its_message(bus: Bus) -> None:
    subjects = fresh_subjects()
    actor = Recorder()
    system = ActorSystem(bus, subjects=subjects, policy=FAST)
    system.add(actor)
    async with bus.subscribe(subjects.dlq) as dlq, system.running():
        await send(bus, subjects, "bad", "boom")
        letter = await next_dead_letter(dlq)
        assert letter.error == "handler failed once: RuntimeError: boom on bad"
        assert (letter.deliveries, letter.correlation_id, letter.actor) == (1, "bad", "recorder")
        assert letter.raw == b"", "a decoded message keeps no raw bytes"
        assert letter.raw_size > 0
        await send(bus, subjects, "after")
        await wait_for(lambda: "after" in actor.seen)
    stats = system.stats("recorder")
    assert (stats.restarts, stats.failures, stats.dead_letters, actor.setups) == (0, 1, 1, 1)
    assert "bad" not in actor.seen, "no local retry of a failed core message"


async def test_a_failing_handler_leaves_its_siblings_running(bus: Bus) -> None:
    subjects = fresh_subjects()
    actor = Recorder()
    system = ActorSystem(bus, subjects=subjects, policy=FAST)
    system.add(actor)
    async with bus.subscribe(subjects.dlq) as dlq, system.running():
        await send(bus, subjects, "sibling", "block")
        await wait_for(lambda: actor.active == 1)
        await send(bus, subjects, "bad", "boom")
        letter = await next_dead_letter(dlq)
        assert letter.correlation_id == "bad"
        assert actor.active == 1, "the sibling is still running"
        actor.release.set()
        await wait_for(lambda: actor.seen == ["sibling"])
    assert system.stats("recorder").restarts == 0
    assert actor.setups == 1


class Crashing(Recorder):
    """A Recorder whose ``background`` raises once ``crash`` is set (the first time only)."""

    def __init__(self) -> None:
        super().__init__("crashing")
        self.crash = anyio.Event()
        self.crashed = False

    async def background(self, ctx: ActorContext) -> None:
        await self.crash.wait()
        if not self.crashed:
            self.crashed = True
            raise RuntimeError("background failed")


async def test_messages_in_flight_during_a_crash_are_retried_not_lost(bus: Bus) -> None:
    subjects = fresh_subjects()
    actor = Crashing()
    system = ActorSystem(bus, subjects=subjects, policy=FAST)
    system.add(actor)
    async with system.running():
        for index in range(3):
            await send(bus, subjects, f"blocked-{index}", "block")
        await wait_for(lambda: actor.active == 3)
        actor.crash.set()
        await wait_for(lambda: system.stats("crashing").restarts == 1)
        await wait_for(lambda: actor.active == 3)
        actor.release.set()
        await wait_for(lambda: len(actor.seen) == 3)
    assert sorted(actor.seen) == [f"blocked-{index}" for index in range(3)]
    stats = system.stats("crashing")
    assert actor.setups == 2
    assert any("background failed" in crash for crash in stats.crashes)
    assert (
        system.metrics.registry.get_sample_value(
            "humangr_actor_restarts_total", {"actor": "crashing"}
        )
        == 1
    )


async def test_concurrency_limit_bounds_parallel_handlers(bus: Bus) -> None:
    subjects = fresh_subjects()
    actor = Recorder(concurrency=2)
    system = ActorSystem(bus, subjects=subjects, policy=FAST)
    system.add(actor)
    async with system.running():
        for index in range(8):
            await send(bus, subjects, f"m{index}", "slow")
        await wait_for(lambda: len(actor.seen) == 8)
    assert actor.peak == 2


async def test_shutdown_drains_in_flight_work(bus: Bus) -> None:
    subjects = fresh_subjects()
    actor = Recorder()
    system = ActorSystem(bus, subjects=subjects, policy=FAST)
    system.add(actor)
    async with system.running():
        for index in range(3):
            await send(bus, subjects, f"d{index}", "slow")
        await wait_for(lambda: actor.active > 0)
    assert sorted(actor.seen) == ["d0", "d1", "d2"]


async def test_shutdown_cancels_work_past_the_drain_deadline(bus: Bus) -> None:
    subjects = fresh_subjects()
    actor = Recorder()
    policy = SupervisionPolicy(initial_backoff=0.01, drain_timeout=0.2)
    system = ActorSystem(bus, subjects=subjects, policy=policy)
    system.add(actor)
    with anyio.fail_after(5):
        async with system.running():
            await send(bus, subjects, "stuck", "block")
            await wait_for(lambda: actor.active == 1)
    assert actor.seen == []
    assert actor.active == 0


async def test_configuration_errors_are_refused(bus: Bus) -> None:
    system = ActorSystem(bus, subjects=fresh_subjects())
    with pytest.raises(ConfigError, match="no actors"):
        await system.run()
    system.add(Recorder("same"))
    with pytest.raises(ConfigError, match="unique"):
        system.add(Recorder("same"))


class FlakySetup(Crashing):
    """Crashes from ``background`` once; the next two ``setup`` calls then fail too."""

    def __init__(self) -> None:
        super().__init__()
        self.name = "flaky-setup"

    async def setup(self, ctx: ActorContext) -> None:
        await super().setup(ctx)
        if self.crashed and self.setups <= 3:
            raise OSError(f"setup {self.setups} failed")


async def test_failing_setup_and_background_restart_the_actor_with_backoff(bus: Bus) -> None:
    subjects = fresh_subjects()
    actor = FlakySetup()
    system = ActorSystem(bus, subjects=subjects, policy=FAST)
    system.add(actor)
    async with system.running():
        actor.crash.set()
        await wait_for(lambda: system.stats("flaky-setup").restarts == 3)
        await send(bus, subjects, "after")
        await wait_for(lambda: actor.seen == ["after"])
    crashes = system.stats("flaky-setup").crashes
    assert crashes == [
        "RuntimeError: background failed",
        "OSError: setup 2 failed",
        "OSError: setup 3 failed",
    ]
    assert actor.setups == 4
