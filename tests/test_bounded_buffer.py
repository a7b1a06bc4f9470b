"""``BoundedBuffer``, the buffer behind every subscription: a message meant for a consumer that
was cancelled before it took it is never lost, and a consumer waiting takes no room."""

from __future__ import annotations

import anyio
import anyio.lowlevel
import pytest

from humangr.engine.bus import Msg
from humangr.engine.bus.buffer import BoundedBuffer

pytestmark = pytest.mark.anyio


def msg(n: int) -> Msg:
    return Msg(subject="buf.test", data=str(n).encode())


async def settle() -> None:
    for _ in range(5):
        await anyio.lowlevel.checkpoint()


async def test_a_message_woken_for_a_cancelled_consumer_goes_to_the_next() -> None:
    buffer = BoundedBuffer("buf.test", 4)
    got: list[bytes] = []
    taken = anyio.Event()

    async def consume() -> None:
        got.append((await buffer.__anext__()).data)
        taken.set()

    async with anyio.create_task_group() as tg:
        first = anyio.CancelScope()

        async def cancelled_consumer() -> None:
            with first:
                await buffer.__anext__()
                raise AssertionError("the cancelled consumer took a message")

        tg.start_soon(cancelled_consumer)
        await settle()
        tg.start_soon(consume)
        await settle()
        assert buffer.deliver(msg(1))
        first.cancel()  # woken for the message, cancelled before it ran
        with anyio.fail_after(5):
            await taken.wait()
    assert got == [b"1"]
    assert buffer.pending == 0


async def test_a_waiting_consumer_takes_no_room() -> None:
    buffer = BoundedBuffer("buf.test", 2)
    got: list[bytes] = []
    async with anyio.create_task_group() as tg:

        async def consume() -> None:
            got.append((await buffer.__anext__()).data)

        tg.start_soon(consume)
        await settle()
        assert [buffer.deliver(msg(n)) for n in range(4)] == [True, True, True, False]
        assert buffer.dropped == 1
    assert got == [b"0"]
    assert buffer.pending == 2


async def test_closing_the_sender_delivers_what_is_buffered_then_ends() -> None:
    buffer = BoundedBuffer("buf.test", 3)
    assert buffer.deliver(msg(1))
    assert buffer.deliver(msg(2))
    buffer.close_sender()
    assert not buffer.deliver(msg(3))
    assert buffer.dropped == 0
    with anyio.fail_after(5):
        assert [m.data async for m in buffer] == [b"1", b"2"]


async def test_closing_the_receiver_wakes_a_waiting_consumer_and_ends() -> None:
    buffer = BoundedBuffer("buf.test", 3)
    ended = anyio.Event()

    async def consume() -> None:
        async for _ in buffer:
            raise AssertionError("nothing was delivered")
        ended.set()

    async with anyio.create_task_group() as tg:
        tg.start_soon(consume)
        await settle()
        buffer.close_receiver()
        with anyio.fail_after(5):
            await ended.wait()
    assert not buffer.offer(msg(1))
