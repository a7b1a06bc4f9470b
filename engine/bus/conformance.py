"""The bus conformance kit: checks that any ``Bus`` behaves like NATS, as the engine expects.

Each ``check_*`` takes a connected bus and a subject prefix of its own (so checks can share a
server) and raises ``AssertionError`` saying what misbehaved. ``check_close`` closes the bus,
so run it last or on a bus of its own.

A subscriber that falls behind is handled one of two ways, and a bus says which it does:
``"backpressure"`` (publishers wait for room: ``MemoryBus``) or ``"drop"`` (a full buffer drops
and the subscription reports how many: NATS core). ``checks_for(behaviour)`` is every check
for such a bus; ``ALL_CHECKS`` are those that hold whatever the behaviour. Usage::

    for check in checks_for("backpressure"):
        async with make_bus() as bus:
            await check(bus, f"conf.{uuid.uuid4().hex[:8]}")
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from contextlib import asynccontextmanager
from typing import Literal

import anyio
from anyio.abc import TaskGroup

from humangr.engine.errors import (
    BusClosedError,
    BusTimeoutError,
    NoRespondersError,
    SlowConsumerError,
)

from .base import Bus, Msg, Subscription

__all__ = [
    "ALL_CHECKS",
    "Check",
    "SlowConsumer",
    "check_backpressure",
    "check_close",
    "check_drops_reported",
    "check_headers",
    "check_no_responders",
    "check_ordering",
    "check_payloads",
    "check_queue_groups",
    "check_request_reply",
    "check_request_timeout",
    "check_subject_validation",
    "check_unsubscribe",
    "check_wildcards",
    "checks_for",
]

Check = Callable[[Bus, str], Awaitable[None]]
SlowConsumer = Literal["backpressure", "drop"]
"""What a bus does when a subscriber's buffer is full."""
DEADLINE = 10.0


def _fail(message: str) -> AssertionError:
    return AssertionError(message)


async def _receive(sub: Subscription, count: int, what: str) -> list[Msg]:
    got: list[Msg] = []
    with anyio.move_on_after(DEADLINE):
        async for msg in sub:
            got.append(msg)
            if len(got) == count:
                return got
        raise _fail(
            f"{what}: subscription to {sub.subject!r} ended after {len(got)} of {count} messages"
        )
    raise _fail(
        f"{what}: got {len(got)} of {count} messages on {sub.subject!r} within {DEADLINE:g}s"
    )


async def _until(condition: Callable[[], bool], what: str) -> None:
    with anyio.move_on_after(DEADLINE):
        while not condition():  # noqa: ASYNC110 - polling bus state that has no event
            await anyio.sleep(0.005)
        return
    raise _fail(f"{what} (waited {DEADLINE:g}s)")


@asynccontextmanager
async def _tasks() -> AsyncIterator[TaskGroup]:
    """A task group whose one failure (a check's ``AssertionError``) comes out as itself."""
    try:
        async with anyio.create_task_group() as tg:
            yield tg
    except BaseExceptionGroup as group:
        if len(group.exceptions) == 1:
            raise group.exceptions[0] from None
        raise


async def _raises(
    kind: type[BaseException], call: Callable[[], Awaitable[object]], what: str
) -> BaseException:
    try:
        await call()
    except kind as exc:
        return exc
    except Exception as exc:
        raise _fail(f"{what}: expected {kind.__name__}, got {type(exc).__name__}: {exc}") from exc
    raise _fail(f"{what}: expected {kind.__name__}, nothing was raised")


async def check_wildcards(bus: Bus, prefix: str) -> None:
    """``*`` matches exactly one token, ``>`` one or more trailing tokens, others nothing."""
    p = prefix
    expected = {
        f"{p}.a.*": [f"{p}.a.bb", f"{p}.a.b"],
        f"{p}.a.>": [f"{p}.a.b.c", f"{p}.a.bb", f"{p}.a.b"],
        f"{p}.*.b": [f"{p}.x.b", f"{p}.a.b"],
        f"{p}.a.b": [f"{p}.a.b"],
        f"{p}.>": [f"{p}.a", f"{p}.a.b.c", f"{p}.x.b", f"{p}.a.bb", f"{p}.b.a", f"{p}.a.b"],
    }
    published = [f"{p}.a", f"{p}.a.b.c", f"{p}.x.b", f"{p}.a.bb", f"{p}.b.a", f"{p}.a.b"]
    async with (
        bus.subscribe(f"{p}.a.*") as s1,
        bus.subscribe(f"{p}.a.>") as s2,
        bus.subscribe(f"{p}.*.b") as s3,
        bus.subscribe(f"{p}.a.b") as s4,
        bus.subscribe(f"{p}.>") as s5,
    ):
        for subject in published:
            await bus.publish(subject, b"end" if subject == published[-1] else b"x")
        for sub in (s1, s2, s3, s4, s5):
            want = expected[sub.subject]
            got = [m.subject for m in await _receive(sub, len(want), "wildcards")]
            if got != want:
                raise _fail(f"subscription {sub.subject!r} received {got}, expected {want}")


async def check_ordering(bus: Bus, prefix: str, count: int = 1000) -> None:
    """Messages of one publisher arrive in the order published, across subjects too."""
    async with bus.subscribe(f"{prefix}.order.>") as sub:
        for i in range(count):
            await bus.publish(f"{prefix}.order.{'ab'[i % 2]}", str(i).encode())
        got = [int(m.data) for m in await _receive(sub, count, "ordering")]
    if got != list(range(count)):
        first = next(i for i, (a, b) in enumerate(zip(got, range(count), strict=True)) if a != b)
        raise _fail(f"messages out of order from position {first}: {got[first : first + 5]}…")


async def check_queue_groups(bus: Bus, prefix: str, count: int = 200) -> None:
    """Each message goes to exactly one member of a queue group, and to every plain subscriber."""
    subject = f"{prefix}.work"
    a: list[bytes] = []
    b: list[bytes] = []
    plain: list[bytes] = []
    other: list[bytes] = []

    async def collect(sub: Subscription, into: list[bytes]) -> None:
        async for msg in sub:
            into.append(msg.data)

    async with (
        bus.subscribe(subject, queue="workers") as m1,
        bus.subscribe(subject, queue="workers") as m2,
        bus.subscribe(subject, queue="others") as m3,
        bus.subscribe(subject) as m4,
        anyio.create_task_group() as tg,
    ):
        for sub, into in ((m1, a), (m2, b), (m3, other), (m4, plain)):
            tg.start_soon(collect, sub, into)
        sent = [str(i).encode() for i in range(count)]
        for data in sent:
            await bus.publish(subject, data)
        await _until(
            lambda: len(a) + len(b) >= count and len(plain) >= count and len(other) >= count,
            f"queue group got {len(a) + len(b)}, plain {len(plain)}, "
            f"other group {len(other)} of {count}",
        )
        tg.cancel_scope.cancel()
    if sorted(a + b) != sorted(sent) or len(a) + len(b) != count:
        raise _fail(
            f"queue group members got {len(a)} + {len(b)} messages; every one of the "
            f"{count} must go to exactly one member"
        )
    if not a or not b:
        raise _fail(f"queue group members got {len(a)} and {len(b)} of {count}: one got none")
    if sorted(plain) != sorted(sent) or sorted(other) != sorted(sent):
        raise _fail("a plain subscriber and a second queue group must each get every message")


async def check_request_reply(bus: Bus, prefix: str) -> None:
    """A request gets the responder's reply, with headers both ways."""
    subject = f"{prefix}.svc"

    async def serve(sub: Subscription) -> None:
        async for msg in sub:
            if msg.reply is None:
                raise _fail(f"a request on {subject!r} arrived without a reply subject")
            await bus.publish(
                msg.reply, b"pong:" + msg.data, headers={"X-Echo": msg.header("X-Req") or "none"}
            )

    async with bus.subscribe(subject) as sub, anyio.create_task_group() as tg:
        tg.start_soon(serve, sub)
        for n in range(3):
            reply = await bus.request(subject, f"ping{n}".encode(), headers={"X-Req": str(n)})
            if reply.data != f"pong:ping{n}".encode() or reply.header("X-Echo") != str(n):
                raise _fail(f"request {n} got {reply.data!r} with headers {reply.headers}")
        tg.cancel_scope.cancel()


async def check_request_timeout(bus: Bus, prefix: str) -> None:
    """A request nobody answers (but somebody hears) raises ``BusTimeoutError``."""
    async with bus.subscribe(f"{prefix}.silent"):
        exc = await _raises(
            BusTimeoutError,
            lambda: bus.request(f"{prefix}.silent", b"?", timeout=0.2),
            "silent responder",
        )
    if not isinstance(exc, TimeoutError):
        raise _fail("BusTimeoutError must also be a TimeoutError")


async def check_no_responders(bus: Bus, prefix: str) -> None:
    """A request on a subject nobody listens on raises ``NoRespondersError`` without waiting."""
    await _raises(
        NoRespondersError,
        lambda: bus.request(f"{prefix}.nobody", b"?", timeout=5.0),
        "request with no responders",
    )
    async with bus.subscribe(f"{prefix}.gone"):
        pass
    await _raises(
        NoRespondersError,
        lambda: bus.request(f"{prefix}.gone", b"?", timeout=5.0),
        "request after the only subscriber left its subscribe block",
    )


async def check_headers(bus: Bus, prefix: str) -> None:
    """Headers arrive as sent; no headers and empty headers both arrive as ``None``."""
    sent: list[dict[str, str] | None] = [
        {"X-Trace": "abc-123", "Nats-Msg-Id": "id:1", "Content-Type": "application/json"},
        None,
        {},
        {"X-One": "1"},
    ]
    async with bus.subscribe(f"{prefix}.hdr") as sub:
        for headers in sent:
            await bus.publish(f"{prefix}.hdr", b"h", headers=headers)
        got = await _receive(sub, len(sent), "headers")
    for headers, msg in zip(sent, got, strict=True):
        want = headers or None
        have = None if msg.headers is None else dict(msg.headers)
        if have != want:
            raise _fail(f"published headers {headers!r}, received {msg.headers!r}")
    if got[0].header("X-Trace") != "abc-123" or got[1].header("X-Trace") is not None:
        raise _fail("Msg.header() does not return the header's value (or None when absent)")


async def check_payloads(bus: Bus, prefix: str) -> None:
    """Payloads arrive byte for byte as ``bytes``: empty, binary, large, bytes-like."""
    big = os.urandom(64 * 1024)
    sent: Sequence[bytes] = [
        b"",
        b"\x00",
        bytes(range(256)),
        b"\r\nPUB x 1\r\n",
        big,
        bytearray(b"ba"),  # type: ignore[list-item]
        memoryview(b"mv"),  # type: ignore[list-item]
    ]
    async with bus.subscribe(f"{prefix}.data") as sub:
        for data in sent:
            await bus.publish(f"{prefix}.data", data)
        got = await _receive(sub, len(sent), "payloads")
    for data, msg in zip(sent, got, strict=True):
        if type(msg.data) is not bytes or msg.data != bytes(data):
            raise _fail(
                f"published {len(bytes(data))} bytes, received {type(msg.data).__name__} "
                f"of {len(msg.data)} bytes that differ"
            )
    await _raises(
        TypeError,
        lambda: bus.publish(f"{prefix}.data", "text"),  # type: ignore[arg-type]
        "publishing a str",
    )


async def check_subject_validation(bus: Bus, prefix: str) -> None:
    """Invalid subjects are refused with ``ValueError``, on publish and on subscribe."""
    for subject in (f"{prefix}.*", f"{prefix}.>", "", f"{prefix}..x", f"{prefix}.a b"):
        await _raises(
            ValueError,
            lambda s=subject: bus.publish(s, b""),  # type: ignore[misc]
            f"publishing on {subject!r}",
        )
    for subject in (f"{prefix}.>.x", f"{prefix}.a*", ""):

        async def enter(s: str = subject) -> None:
            async with bus.subscribe(s):
                pass

        await _raises(ValueError, enter, f"subscribing to {subject!r}")

    async def zero() -> None:
        async with bus.subscribe(f"{prefix}.x", max_pending=0):
            pass

    await _raises(ValueError, zero, "subscribing with max_pending=0")


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
        with anyio.move_on_after(DEADLINE):
            got = [msg.data async for msg in sub]
        if got != [b"0", b"1", b"2"]:
            raise _fail(
                f"after unsubscribe() iteration gave {got}, expected the 3 buffered "
                "messages and then the end"
            )
        with anyio.move_on_after(DEADLINE):
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
        with anyio.move_on_after(DEADLINE):
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


ALL_CHECKS: list[Check] = [
    check_wildcards,
    check_ordering,
    check_queue_groups,
    check_request_reply,
    check_request_timeout,
    check_no_responders,
    check_headers,
    check_payloads,
    check_subject_validation,
    check_unsubscribe,
    check_close,
]
"""The checks every bus passes, whatever it does with a slow consumer; ``check_close`` is last
because it closes the bus."""

_SLOW_CONSUMER: dict[SlowConsumer, Check] = {
    "backpressure": check_backpressure,
    "drop": check_drops_reported,
}


def checks_for(slow_consumer: SlowConsumer) -> list[Check]:
    """Every check for a bus whose slow subscribers get ``"backpressure"`` or whose full
    buffers ``"drop"`` and report; ``check_close`` last."""
    if slow_consumer not in _SLOW_CONSUMER:
        raise ValueError(f"slow_consumer must be 'backpressure' or 'drop', not {slow_consumer!r}")
    return [*ALL_CHECKS[:-1], _SLOW_CONSUMER[slow_consumer], check_close]
