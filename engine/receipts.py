"""How a submitter learns that its submission was stored (``DecisionWaiters.submit``).

On JetStream the stream acknowledges the publish: the submission is stored, or the publish
raises. On core NATS (and ``MemoryBus``) nothing is stored and a message can be lost on the
way (a slow Supervisor's connection is cut by the server, which drops what was pending): the
submission is sent as a request, and the Supervisor answers it with a ``SubmitReceipt`` as soon
as it takes it from its mailbox (or, where a JetStream stream keeps the subject but the client
does not use JetStream, the stream answers with its acknowledgement). Each submission carries
``Nats-Msg-Id: submit:<action id>``, so a stream keeps one copy of a submission sent again.
No receipt (nobody listening, or none in time) means the submission may be lost: it is sent
again, with backoff, until a receipt comes, the decision or a refusal arrives, or the
submitter's deadline passes, which raises ``ReviewTimeout`` saying that it was not stored.
A ``SubmitWindow`` bounds the bytes one submitter has in flight without a receipt, so a flood
waits at the submitter instead of overflowing the server or the Supervisor.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import anyio
import msgspec

from humangr.contracts import SubmitReceipt, decode
from humangr.engine.backoff import Backoff
from humangr.engine.bus import Bus, Headers
from humangr.engine.errors import BusTimeoutError, ContractError, NoRespondersError

__all__ = [
    "RECEIPT_TIMEOUT_S",
    "SUBMIT_WINDOW_BYTES",
    "SubmitWindow",
    "receipt_problem",
    "request_receipt",
    "stored_by_bus",
]

log = logging.getLogger("humangr.client")

RECEIPT_TIMEOUT_S = 10.0
"""Longest wait for one receipt before the submission is sent again."""
SUBMIT_WINDOW_BYTES = 16 * 1024 * 1024
"""Bytes of submissions one submitter may have sent without a receipt (one submission larger
than this is sent alone)."""
RESEND = Backoff(0.2, cap=5.0)
"""Waits before a submission without a receipt is sent again."""


class _ApiError(msgspec.Struct):
    code: int = 0
    description: str = ""


class _PubAck(msgspec.Struct):
    """JetStream's answer to a publish with a reply subject on a subject a stream keeps."""

    stream: str = ""
    seq: int = 0
    duplicate: bool = False
    error: _ApiError | None = None


def receipt_problem(data: bytes) -> str | None:
    """``None`` if ``data`` says the submission was received: a Supervisor's
    ``SubmitReceipt``, or the acknowledgement of a JetStream stream that stored it (a client
    without JetStream publishing into a deployment with it); else what it says instead."""
    try:
        decode(data, SubmitReceipt)
        return None
    except ContractError as exc:
        not_receipt = f"the answer was no receipt ({exc})"
    try:
        ack = msgspec.json.decode(data, type=_PubAck)
    except (msgspec.DecodeError, msgspec.ValidationError):
        return not_receipt
    if ack.error is not None:
        return f"JetStream did not store it: {ack.error.description or ack.error.code}"
    return None if ack.stream and ack.seq > 0 else not_receipt


def stored_by_bus(bus: Bus, subject: str) -> bool:
    """Whether ``bus`` stores what is published on ``subject`` and acknowledges it (a
    ``NatsBus`` with JetStream on a work subject): its publish alone says it was stored. A bus
    that wraps another (``inner``) stores what the one it wraps stores."""
    layer: object = bus
    for _ in range(8):
        stores = getattr(layer, "stores", None)
        if callable(stores):
            return bool(stores(subject))
        layer = getattr(layer, "inner", None)
        if layer is None:
            break
    return False


class SubmitWindow:
    """At most ``limit`` bytes of submissions sent and not yet received (backpressure)."""

    def __init__(self, limit: int = SUBMIT_WINDOW_BYTES) -> None:
        self.limit = limit
        self.used = 0
        self._freed = anyio.Event()

    @asynccontextmanager
    async def hold(self, size: int) -> AsyncIterator[None]:
        """Wait for room for ``size`` bytes and hold it for the block."""
        while self.used and self.used + size > self.limit:
            await self._freed.wait()
        self.used += size
        try:
            yield
        finally:
            self.used -= size
            freed, self._freed = self._freed, anyio.Event()
            freed.set()


async def request_receipt(
    bus: Bus,
    subject: str,
    data: bytes,
    settled: anyio.Event,
    timeout: float,
    headers: Headers | None = None,
) -> str | None:
    """Send ``data`` on ``subject`` as a request; ``None`` once a ``SubmitReceipt`` answers it
    (or ``settled`` is set: the decision or a refusal came first), else why not (nobody
    listens, no receipt within ``timeout``, an answer that is no receipt). Other bus errors
    (closed, a payload past the server's limit) are raised: sending again cannot help."""
    outcome: list[str | None] = []
    async with anyio.create_task_group() as tg:

        async def ask() -> None:
            try:
                reply = await bus.request(subject, data, headers=headers, timeout=timeout)
            except NoRespondersError:
                outcome.append("no Supervisor listens on it")
            except BusTimeoutError:
                outcome.append(f"no receipt within {timeout:g}s")
            else:
                outcome.append(receipt_problem(reply.data))
            tg.cancel_scope.cancel()

        async def decided() -> None:
            await settled.wait()
            outcome.append(None)
            tg.cancel_scope.cancel()

        tg.start_soon(ask)
        tg.start_soon(decided)
    return outcome[0] if outcome else None
