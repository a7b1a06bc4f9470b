"""``MemoryBus`` backpressure: publishers wait for room instead of dropping, within a bound, and
nothing that could deadlock the engine ever waits."""

from __future__ import annotations

import math

import anyio
import anyio.lowlevel
import pytest

from humangr.engine.bus import MemoryBus, Msg, Subscription
from humangr.engine.errors import BusTimeoutError, ConfigError, SlowConsumerError

pytestmark = pytest.mark.anyio


async def take(sub: Subscription, count: int) -> list[bytes]:
    got: list[bytes] = []
    with anyio.fail_after(5):
        async for msg in sub:
            got.append(msg.data)
            if len(got) == count:
                return got
    raise AssertionError(f"subscription ended after {got}")


async def test_a_publisher_waits_for_room_then_goes_on() -> None:
    async with MemoryBus() as bus, bus.subscribe("bp.one", max_pending=2) as sub:
        await bus.publish("bp.one", b"0")
        await bus.publish("bp.one", b"1")
        done = anyio.Event()

        async def third() -> None:
            await bus.publish("bp.one", b"2")
            done.set()

        async with anyio.create_task_group() as tg:
            tg.start_soon(third)
            await anyio.sleep(0.05)
            assert not done.is_set(), "the publish must wait while the buffer is full"
            assert await take(sub, 1) == [b"0"]
            with anyio.fail_after(5):
                await done.wait()
        assert await take(sub, 2) == [b"1", b"2"]
        assert sub.dropped == 0


async def test_the_wait_is_bounded_and_what_it_gives_up_on_is_reported() -> None:
    async with MemoryBus(max_wait=0.2) as bus, bus.subscribe("bp.stuck", max_pending=1) as sub:
        await bus.publish("bp.stuck", b"kept")
        started = anyio.current_time()
        with anyio.fail_after(5):
            await bus.publish("bp.stuck", b"lost")
        assert anyio.current_time() - started >= 0.2
        assert (sub.dropped, sub.pending) == (1, 1)
        with pytest.raises(SlowConsumerError) as caught:
            await sub.__anext__()
        assert caught.value.dropped == 1
        assert caught.value.waited == 0.2
        assert "stayed full for the 0.2s publishers wait" in str(caught.value)
        assert await take(sub, 1) == [b"kept"]


async def test_other_subscribers_are_served_while_one_is_full() -> None:
    async with (
        MemoryBus(max_wait=0.3) as bus,
        bus.subscribe("bp.fan", max_pending=1) as slow,
        bus.subscribe("bp.fan") as fast,
    ):
        await bus.publish("bp.fan", b"a")
        await bus.publish("bp.fan", b"b")
        assert await take(fast, 2) == [b"a", b"b"]
        assert (slow.dropped, slow.pending) == (1, 1)


async def test_a_queue_group_waits_for_the_first_member_with_room() -> None:
    async with (
        MemoryBus() as bus,
        bus.subscribe("bp.q", queue="workers", max_pending=1) as one,
        bus.subscribe("bp.q", queue="workers", max_pending=1) as two,
    ):
        await bus.publish("bp.q", b"a")
        await bus.publish("bp.q", b"b")
        assert (one.pending, two.pending) == (1, 1), "each member takes one while it has room"
        done = anyio.Event()

        async def third() -> None:
            await bus.publish("bp.q", b"c")
            done.set()

        async with anyio.create_task_group() as tg:
            tg.start_soon(third)
            await anyio.sleep(0.05)
            assert not done.is_set()
            first = await take(two, 1)
            with anyio.fail_after(5):
                await done.wait()
        assert first[0] in (b"a", b"b")
        assert await take(two, 1) == [b"c"], "the member that made room gets the message"
        assert one.dropped == two.dropped == 0


async def test_replies_to_a_request_inbox_never_wait() -> None:
    async with MemoryBus(max_wait=30) as bus, bus.subscribe("bp.svc") as service:
        replies: list[float] = []

        async def answer_three_times() -> None:
            async for msg in service:
                assert msg.reply is not None
                for n in range(3):
                    started = anyio.current_time()
                    await bus.publish(msg.reply, f"reply {n}".encode())
                    replies.append(anyio.current_time() - started)
                return

        async with anyio.create_task_group() as tg:
            tg.start_soon(answer_three_times)
            with anyio.fail_after(5):
                reply = await bus.request("bp.svc", b"?", timeout=5)
        assert reply.data == b"reply 0"
        assert len(replies) == 3
        assert max(replies) < 1, "a second reply to a full inbox must not wait"


async def test_waiting_for_a_full_responder_counts_against_the_request_timeout() -> None:
    async with MemoryBus() as bus, bus.subscribe("bp.busy", max_pending=1):
        await bus.publish("bp.busy", b"fills the buffer")
        with anyio.fail_after(5), pytest.raises(BusTimeoutError):
            await bus.request("bp.busy", b"?", timeout=0.2)


async def test_unsubscribing_or_closing_releases_waiting_publishers() -> None:
    async with MemoryBus() as bus:
        async with bus.subscribe("bp.gone", max_pending=1) as sub:
            await bus.publish("bp.gone", b"a")
            async with anyio.create_task_group() as tg:
                tg.start_soon(bus.publish, "bp.gone", b"b")
                await anyio.sleep(0.05)
                await sub.unsubscribe()
            assert sub.dropped == 0, "a subscriber that left lost nothing it asked for"
        async with bus.subscribe("bp.closed", max_pending=1) as sub:
            await bus.publish("bp.closed", b"a")
            with anyio.fail_after(5):
                async with anyio.create_task_group() as tg:
                    tg.start_soon(bus.publish, "bp.closed", b"b")
                    await anyio.sleep(0.05)
                    await bus.close()
            assert [m.data async for m in sub] == [b"a"]


async def test_a_waiting_publish_can_be_cancelled() -> None:
    async with MemoryBus() as bus, bus.subscribe("bp.cancel", max_pending=1) as sub:
        await bus.publish("bp.cancel", b"a")
        with anyio.move_on_after(0.1) as scope:
            await bus.publish("bp.cancel", b"b")
        assert scope.cancelled_caught, "cancellation reaches the waiting publisher"
        assert (sub.dropped, sub.pending) == (0, 1), "a cancelled publish is not a loss"
        assert await take(sub, 1) == [b"a"]


@pytest.mark.parametrize("max_wait", [-1.0, math.nan, math.inf])
def test_max_wait_must_be_a_finite_number_of_seconds(max_wait: float) -> None:
    with pytest.raises(ConfigError, match="max_wait"):
        MemoryBus(max_wait=max_wait)


async def test_many_publishers_into_one_slow_subscriber_lose_nothing() -> None:
    received: list[Msg] = []
    async with MemoryBus() as bus, bus.subscribe("bp.many", max_pending=3) as sub:

        async def publisher(name: str) -> None:
            for i in range(50):
                await bus.publish("bp.many", f"{name}:{i}".encode())

        async def consumer() -> None:
            async for msg in sub:
                received.append(msg)
                await anyio.lowlevel.checkpoint()
                if len(received) == 200:
                    return

        with anyio.fail_after(10):
            async with anyio.create_task_group() as tg:
                tg.start_soon(consumer)
                for name in "abcd":
                    tg.start_soon(publisher, name)
        assert sub.dropped == 0
    for name in "abcd":
        mine = [m.data for m in received if m.data.startswith(f"{name}:".encode())]
        assert mine == [f"{name}:{i}".encode() for i in range(50)], "per-publisher order kept"
