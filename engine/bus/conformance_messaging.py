"""The bus conformance checks of messaging: wildcards, ordering, queue groups, request-reply,
timeouts and no responders, headers, payloads and subject validation."""

from __future__ import annotations

import os
from collections.abc import Sequence

import anyio

from humangr.engine.errors import BusTimeoutError, NoRespondersError

from .base import Bus, Subscription
from .conformance_support import _fail, _raises, _receive, _until

__all__ = [
    "check_headers",
    "check_no_responders",
    "check_ordering",
    "check_payloads",
    "check_queue_groups",
    "check_request_reply",
    "check_request_timeout",
    "check_subject_validation",
    "check_wildcards",
]


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
