"""The bus conformance checks of buffers and endings: ``unsubscribe``, a slow consumer met with
backpressure or with drops that are reported, and ``close``."""

from __future__ import annotations

import anyio

from humangr.engine.errors import BusClosedError, SlowConsumerError

from . import conformance_support
from .base import Bus
from .conformance_support import _fail, _raises, _receive, _tasks, _until

__all__ = ["check_backpressure", "check_close", "check_drops_reported", "check_unsubscribe"]


async def check_unsubscribe(bus: Bus, prefix: str) -> None:
    """After ``unsubscribe()`` the buffered messages are still iterated, then iteration ends."""
    subject = f"{prefix}.unsub"
    async with bus.subscribe(subject) as sub:
        for i in range(3):
            await bus.publish(subject, str(i).encode())
        await _until(lambda: sub.pending == 3, f"3 messages buffered, have {sub.pending}")
        await sub.unsubscribe()
        await bus.publish(subject, b"late")
        await bus.flush()
        got: list[bytes] = []
        with anyio.move_on_after(conformance_support.DEADLINE):
            got = [msg.data async for msg in sub]
        if got != [b"0", b"1", b"2"]:
            raise _fail(
                f"after unsubscribe() iteration gave {got}, expected the 3 buffered "
                "messages and then the end"
            )
        with anyio.move_on_after(conformance_support.DEADLINE):
            again = [msg.data async for msg in sub]
            if again:
                raise _fail(f"iterating an ended subscription again gave {again}")


async def check_backpressure(bus: Bus, prefix: str, capacity: int = 5, extra: int = 7) -> None:
    """Backpressure: a publish to a full buffer waits until the subscriber takes a message;
    nothing is dropped and the messages arrive in the order published."""
    subject = f"{prefix}.slow"
    total = capacity + extra
    published = 0

    async def produce() -> None:
        nonlocal published
        for i in range(total):
            await bus.publish(subject, str(i).encode())
            published += 1

    async with bus.subscribe(subject, max_pending=capacity) as sub, _tasks() as tg:
        tg.start_soon(produce)
        await _until(lambda: sub.pending == capacity, f"buffer of {capacity} filled")
        await anyio.sleep(0.05)
        if sub.dropped or published >= total:
            raise _fail(
                f"publishing {total} messages into a full buffer of {capacity} did not wait: "
                f"{published} published, {sub.dropped} dropped"
            )
        got = [m.data for m in await _receive(sub, total, "backpressure")]
        await _until(lambda: published == total, f"all {total} published, have {published}")
    if got != [str(i).encode() for i in range(total)] or sub.dropped:
        raise _fail(f"under backpressure the subscriber got {got}, {sub.dropped} dropped")


async def check_drops_reported(bus: Bus, prefix: str, capacity: int = 5, extra: int = 7) -> None:
    """Drop and report: a full buffer drops messages; the next iteration says how many once,
    then goes on with what is buffered."""
    subject = f"{prefix}.slow"
    async with bus.subscribe(subject, max_pending=capacity) as sub:
        for i in range(capacity + extra):
            await bus.publish(subject, str(i).encode())
        await _until(
            lambda: sub.dropped == extra and sub.pending == capacity,
            f"{extra} dropped and {capacity} buffered, have {sub.dropped} dropped and "
            f"{sub.pending} buffered",
        )
        exc = await _raises(SlowConsumerError, sub.__anext__, "iterating after an overflow")
        if not isinstance(exc, SlowConsumerError) or exc.dropped != extra:
            raise _fail(f"SlowConsumerError must name {extra} dropped messages: {exc}")
        got = [m.data for m in await _receive(sub, capacity, "after a slow consumer")]
        if got != [str(i).encode() for i in range(capacity)]:
            raise _fail(f"after the overflow the buffered messages were {got}")
        await bus.publish(subject, b"next")
        nxt = await _receive(sub, 1, "after a slow consumer")
        if nxt[0].data != b"next" or sub.dropped != extra:
            raise _fail("the subscription did not continue normally after a slow consumer")


async def check_close(bus: Bus, prefix: str) -> None:
    """``close()`` ends subscriptions after their buffered messages; later calls raise."""
    subject = f"{prefix}.close"
    async with bus.subscribe(subject) as sub:
        await bus.publish(subject, b"1")
        await bus.publish(subject, b"2")
        await _until(lambda: sub.pending == 2, f"2 messages buffered, have {sub.pending}")
        await bus.close()
        got: list[bytes] = []
        with anyio.move_on_after(conformance_support.DEADLINE):
            got = [msg.data async for msg in sub]
        if got != [b"1", b"2"]:
            raise _fail(f"after close() iteration gave {got}, expected the 2 buffered messages")
    await _raises(BusClosedError, lambda: bus.publish(subject, b"x"), "publish after close")
    await _raises(
        BusClosedError, lambda: bus.request(subject, b"x", timeout=1.0), "request after close"
    )
    await _raises(BusClosedError, lambda: bus.flush(), "flush after close")

    async def enter() -> None:
        async with bus.subscribe(subject):
            pass

    await _raises(BusClosedError, enter, "subscribe after close")
    await bus.close()
