"""Durable messages JetStream gave up on, each claimed and reported exactly once.

When a message has been delivered ``max_deliver`` times without an ack (its handler hung past
the ack wait, or its worker died, every time), JetStream stops redelivering it and publishes an
advisory on ``$JS.EVENT.ADVISORY.CONSUMER.MAX_DELIVERIES.<stream>.<consumer>`` — and a
work-queue stream keeps the message for ever. The server sends the advisory when a pull
request of that consumer is waiting, so a subscription listening before it pulls hears it.

Every pull subscription of a consumer, in every process, listens to that advisory. The rule
that makes one report out of many listeners: a subscription reads the message by its stream
sequence, then deletes it; the stream deletes a sequence once, so exactly one delete succeeds,
and only the subscription whose delete succeeded yields the message (``Exhausted``) to be
reported. A message acked or claimed before the read is gone and yields nothing. The claim is
made when the reporter takes the advisory, just before it publishes the letter; a process that
dies between its delete and that publish loses the letter (the window of one publish).
"""

from __future__ import annotations

import logging
from typing import Annotated, NoReturn

import anyio
import msgspec
import nats.errors
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream
from msgspec import Meta
from nats.aio.client import Client
from nats.aio.msg import Msg as NatsMsg
from nats.aio.subscription import Subscription as CoreSubscription

from humangr.engine.errors import BusClosedError, BusError

from .base import Exhausted
from .subject import matches

__all__ = ["ADVISORY_PREFIX", "ExhaustedWatch", "advisory_subject"]

log = logging.getLogger("humangr.bus")

ADVISORY_PREFIX = "$JS.EVENT.ADVISORY.CONSUMER.MAX_DELIVERIES"
_ADVISORY_TYPE = "io.nats.jetstream.advisory.v1.max_deliver"
_ADVISORY_MAX_BYTES = 8_192
_PENDING = 1_024
"""Advisories waiting to be claimed; one past that is logged and its message stays stored."""
_ATTEMPTS = 4
_GONE = frozenset({10037, 10043, 10057})
"""JetStream error codes of a message that is no longer in the stream."""


def advisory_subject(stream: str, consumer: str) -> str:
    """The subject of the MAX_DELIVERIES advisories of one consumer."""
    return f"{ADVISORY_PREFIX}.{stream}.{consumer}"


class _Advisory(msgspec.Struct):
    type: str
    stream: str
    consumer: str
    stream_seq: Annotated[int, Meta(ge=1)]
    deliveries: Annotated[int, Meta(ge=1)]


class _ApiError(msgspec.Struct):
    code: int = 0
    err_code: int = 0
    description: str = ""


class _Stored(msgspec.Struct):
    subject: str
    seq: int
    data: bytes = b""


class _GetReply(msgspec.Struct):
    message: _Stored | None = None
    error: _ApiError | None = None


class _DeleteReply(msgspec.Struct):
    success: bool = False
    error: _ApiError | None = None


_advisory = msgspec.json.Decoder(_Advisory)
_get_reply = msgspec.json.Decoder(_GetReply)
_delete_reply = msgspec.json.Decoder(_DeleteReply)


class _Gone(Exception):
    """The message is no longer in the stream: acked, or claimed by another subscription."""


class ExhaustedWatch:
    """Hears one consumer's MAX_DELIVERIES advisories; iterating claims the messages they name
    and yields those this watch removed from the stream (see the module docstring)."""

    def __init__(
        self, client: Client, stream: str, consumer: str, pattern: tuple[str, ...], timeout: float
    ) -> None:
        self.stream = stream
        self.consumer = consumer
        self.subject = advisory_subject(stream, consumer)
        self._client = client
        self._pattern = pattern
        self._timeout = timeout
        self._core: CoreSubscription | None = None
        self._send: MemoryObjectSendStream[tuple[int, int]]
        self._receive: MemoryObjectReceiveStream[tuple[int, int]]
        self._send, self._receive = anyio.create_memory_object_stream[tuple[int, int]](_PENDING)

    async def open(self) -> None:
        """Listen, and make sure the server has the subscription before the first pull."""
        self._core = await self._client.subscribe(self.subject, cb=self._on_advisory)
        try:
            for _ in range(2):  # see NatsBus._open_core: two round trips prove the SUB arrived
                await self._client.flush(self._timeout)  # type: ignore[arg-type]
        except (nats.errors.TimeoutError, nats.errors.ConnectionReconnectingError) as exc:
            log.warning("advisories of %s not confirmed by the server: %s", self.consumer, exc)

    async def close(self) -> None:
        """Stop listening; advisories already heard are still claimed by iterating."""
        self._send.close()
        core, self._core = self._core, None
        if core is not None:
            with anyio.move_on_after(5.0, shield=True):
                try:
                    await core.unsubscribe()
                except nats.errors.Error as exc:
                    log.debug("unsubscribe from %s: %s", self.subject, exc)

    def close_receiver(self) -> None:
        self._receive.close()

    async def _on_advisory(self, msg: NatsMsg) -> None:
        try:
            if len(msg.data) > _ADVISORY_MAX_BYTES:
                raise ValueError(f"{len(msg.data)} bytes")
            advisory = _advisory.decode(msg.data)
        except (msgspec.ValidationError, msgspec.DecodeError, ValueError) as exc:
            log.warning("ignored a malformed advisory on %s: %s", self.subject, exc)
            return
        if (advisory.type, advisory.stream, advisory.consumer) != (
            _ADVISORY_TYPE,
            self.stream,
            self.consumer,
        ):
            log.warning("ignored an advisory on %s about another consumer", self.subject)
            return
        try:
            self._send.send_nowait((advisory.stream_seq, advisory.deliveries))
        except anyio.WouldBlock:
            log.error(
                "message %d of stream %s exhausted its deliveries, but %d others wait to be "
                "claimed; it stays in the stream (`nats stream get %s %d`)",
                advisory.stream_seq,
                self.stream,
                _PENDING,
                self.stream,
                advisory.stream_seq,
            )
        except (anyio.ClosedResourceError, anyio.BrokenResourceError):
            pass

    def __aiter__(self) -> ExhaustedWatch:
        return self

    async def __anext__(self) -> Exhausted:
        while True:
            try:
                sequence, deliveries = await self._receive.receive()
            except (anyio.EndOfStream, anyio.ClosedResourceError):
                raise StopAsyncIteration from None
            claimed = await self._claim(sequence, deliveries)
            if claimed is not None:
                return claimed

    async def _claim(self, sequence: int, deliveries: int) -> Exhausted | None:
        """Read the message, then delete it: the one whose delete succeeds owns it."""
        problem = ""
        for attempt in range(_ATTEMPTS):
            try:
                stored = await self._get(sequence)
                if not matches(self._pattern, tuple(stored.subject.split("."))):
                    log.warning(
                        "ignored an advisory naming message %d of %s, on %s: not this "
                        "consumer's subject",
                        sequence,
                        self.stream,
                        stored.subject,
                    )
                    return None
                await self._delete(sequence)
            except _Gone:
                return None
            except nats.errors.ConnectionClosedError as exc:
                raise BusClosedError("the bus connection is closed; create a new bus") from exc
            except (nats.errors.Error, BusError) as exc:
                problem = str(exc) or type(exc).__name__
                await anyio.sleep(0.2 * 2**attempt)
                continue
            return Exhausted(
                stored.subject, stored.data, deliveries, self.stream, sequence, self.consumer
            )
        log.error(
            "message %d of stream %s exhausted its deliveries but could not be claimed (%s); "
            "it stays in the stream: may this user publish $JS.API.STREAM.MSG.GET/DELETE.%s?",
            sequence,
            self.stream,
            problem,
            self.stream,
        )
        return None

    async def _api(self, verb: str, sequence: int) -> bytes:
        fields: dict[str, object] = {"seq": sequence}
        if verb == "DELETE":
            fields["no_erase"] = True
        request = msgspec.json.encode(fields)
        reply = await self._client.request(
            f"$JS.API.STREAM.MSG.{verb}.{self.stream}", request, timeout=self._timeout
        )
        return reply.data

    async def _get(self, sequence: int) -> _Stored:
        try:
            answer = _get_reply.decode(await self._api("GET", sequence))
        except (msgspec.ValidationError, msgspec.DecodeError) as exc:
            raise BusError(f"unreadable reply to a message get: {exc}") from exc
        if answer.message is not None and answer.message.seq == sequence:
            return answer.message
        _raise(answer.error, "get", sequence)

    async def _delete(self, sequence: int) -> None:
        try:
            answer = _delete_reply.decode(await self._api("DELETE", sequence))
        except (msgspec.ValidationError, msgspec.DecodeError) as exc:
            raise BusError(f"unreadable reply to a message delete: {exc}") from exc
        if not answer.success:
            _raise(answer.error, "delete", sequence)


def _raise(error: _ApiError | None, verb: str, sequence: int) -> NoReturn:
    if error is not None and (error.err_code in _GONE or error.code == 404):
        raise _Gone
    what = "no answer" if error is None else error.description or f"error {error.err_code}"
    raise BusError(f"cannot {verb} message {sequence}: {what}")
