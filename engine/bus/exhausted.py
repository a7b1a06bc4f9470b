"""Durable messages JetStream gave up on, each claimed and reported exactly once.

When a message has been delivered ``max_deliver`` times without an ack (its handler hung past
the ack wait, or its worker died, every time), JetStream stops redelivering it and publishes an
advisory on ``$JS.EVENT.ADVISORY.CONSUMER.MAX_DELIVERIES.<stream>.<consumer>`` — and a
work-queue stream keeps the message for ever.

Only a process that may read and delete any message of the work stream claims them: the
Supervisor (and the all-in-one ``serve``). Its ``ExhaustedWatch`` listens to the advisories of
every consumer of the stream (``<stream>.*``), so the work roles need neither the advisories
nor ``$JS.API.STREAM.MSG.GET|DELETE`` — rights that would let a hostile worker read or delete
every agent's queued submissions (deploy/nats-server.conf). The watch must listen before the
consumers pull: the server sends the advisory once, when a pull request of that consumer is
waiting; an advisory sent while no watch listens is missed, and its message stays in the
stream (``nats stream get``).

The rule that makes one report out of many watches (several Supervisors): a watch checks that
the message is of the consumer's subject, reads it by its stream sequence, then deletes it;
the stream deletes a sequence once, so exactly one delete succeeds, and only the watch whose
delete succeeded yields the message (``Exhausted``) to be reported. A message acked or claimed
before the read is gone and yields nothing. The claim is made when the reporter takes the
advisory, just before it publishes the letter; a process that dies between its delete and
that publish loses the letter (the window of one publish).
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

from humangr.engine.backoff import Backoff
from humangr.engine.errors import BusClosedError, BusError

from .base import Exhausted
from .subject import matches, validate_subscribe_subject

__all__ = ["ADVISORY_PREFIX", "ExhaustedWatch", "advisory_subject"]

log = logging.getLogger("humangr.bus")

ADVISORY_PREFIX = "$JS.EVENT.ADVISORY.CONSUMER.MAX_DELIVERIES"
_ADVISORY_TYPE = "io.nats.jetstream.advisory.v1.max_deliver"
_ADVISORY_MAX_BYTES = 8_192
_PENDING = 1_024
"""Advisories waiting to be claimed; one past that is logged and its message stays stored."""
_FILTERS_CACHED = 256
"""Consumers whose subjects a watch remembers (the cache is emptied when full)."""
_ATTEMPTS = 4
_CLAIM_RETRY = Backoff(0.2)
"""Waits between tries to claim one message (0.2 s to 1.6 s)."""
_GONE = frozenset({10037, 10043, 10057})
"""JetStream error codes of a message that is no longer in the stream."""
_NO_CONSUMER = 10014


def advisory_subject(stream: str, consumer: str) -> str:
    """The subject of the MAX_DELIVERIES advisories of one consumer (``*``: of every one)."""
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


class _ConsumerConfig(msgspec.Struct):
    filter_subject: str = ""
    filter_subjects: list[str] = msgspec.field(default_factory=list)


class _ConsumerReply(msgspec.Struct):
    config: _ConsumerConfig | None = None
    error: _ApiError | None = None


_advisory = msgspec.json.Decoder(_Advisory)
_get_reply = msgspec.json.Decoder(_GetReply)
_delete_reply = msgspec.json.Decoder(_DeleteReply)
_consumer_reply = msgspec.json.Decoder(_ConsumerReply)


class _Gone(Exception):
    """The message (or its consumer) is no longer there: acked, or claimed by another watch."""


_Heard = tuple[int, int, str]
"""An advisory waiting to be claimed: stream sequence, deliveries, consumer."""


class ExhaustedWatch:
    """Hears the MAX_DELIVERIES advisories of every consumer of one stream; iterating claims
    the messages they name and yields those this watch removed (see the module docstring)."""

    def __init__(self, client: Client, stream: str, timeout: float) -> None:
        self.stream = stream
        self.subject = advisory_subject(stream, "*")
        self._client = client
        self._timeout = timeout
        self._filters: dict[str, tuple[tuple[str, ...], ...]] = {}
        self._core: CoreSubscription | None = None
        self._send: MemoryObjectSendStream[_Heard]
        self._receive: MemoryObjectReceiveStream[_Heard]
        self._send, self._receive = anyio.create_memory_object_stream[_Heard](_PENDING)

    async def open(self) -> None:
        """Listen, and make sure the server has the subscription before the first pull."""
        try:
            self._core = await self._client.subscribe(self.subject, cb=self._on_advisory)
        except nats.errors.ConnectionClosedError as exc:
            raise BusClosedError("the bus connection is closed; create a new bus") from exc
        try:
            for _ in range(2):  # see NatsBus._open_core: two round trips prove the SUB arrived
                await self._client.flush(self._timeout)  # type: ignore[arg-type]
        except (nats.errors.TimeoutError, nats.errors.ConnectionReconnectingError) as exc:
            log.warning("advisories of %s not confirmed by the server: %s", self.stream, exc)

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
            log.warning("ignored a malformed advisory on %s: %s", msg.subject, exc)
            return
        named = msg.subject.rpartition(".")[2]
        if (advisory.type, advisory.stream, advisory.consumer) != (
            _ADVISORY_TYPE,
            self.stream,
            named,
        ):
            log.warning("ignored an advisory on %s about another consumer", msg.subject)
            return
        try:
            self._send.send_nowait((advisory.stream_seq, advisory.deliveries, named))
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
                sequence, deliveries, consumer = await self._receive.receive()
            except (anyio.EndOfStream, anyio.ClosedResourceError):
                raise StopAsyncIteration from None
            claimed = await self._claim(sequence, deliveries, consumer)
            if claimed is not None:
                return claimed

    async def _claim(self, sequence: int, deliveries: int, consumer: str) -> Exhausted | None:
        """Read the message, then delete it: the one whose delete succeeds owns it."""
        problem = ""
        for attempt in range(_ATTEMPTS):
            try:
                patterns = await self._consumer_filters(consumer)
                stored = await self._get(sequence)
                tokens = tuple(stored.subject.split("."))
                if not any(matches(pattern, tokens) for pattern in patterns):
                    log.warning(
                        "ignored an advisory naming message %d of %s, on %s: not the "
                        "subject of consumer %s",
                        sequence,
                        self.stream,
                        stored.subject,
                        consumer,
                    )
                    return None
                await self._delete(sequence)
            except _Gone:
                return None
            except nats.errors.ConnectionClosedError as exc:
                raise BusClosedError("the bus connection is closed; create a new bus") from exc
            except (nats.errors.Error, BusError) as exc:
                problem = str(exc) or type(exc).__name__
                await _CLAIM_RETRY.sleep(attempt)
                continue
            return Exhausted(
                stored.subject, stored.data, deliveries, self.stream, sequence, consumer
            )
        log.error(
            "message %d of stream %s exhausted its deliveries but could not be claimed (%s); "
            "it stays in the stream: may this user publish $JS.API.STREAM.MSG.GET/DELETE.%s "
            "and $JS.API.CONSUMER.INFO.%s.*?",
            sequence,
            self.stream,
            problem,
            self.stream,
            self.stream,
        )
        return None

    async def _request(self, subject: str, fields: dict[str, object] | None) -> bytes:
        request = b"" if fields is None else msgspec.json.encode(fields)
        reply = await self._client.request(subject, request, timeout=self._timeout)
        return reply.data

    async def _consumer_filters(self, consumer: str) -> tuple[tuple[str, ...], ...]:
        """The subjects ``consumer`` pulls (asked of the server once, then remembered)."""
        known = self._filters.get(consumer)
        if known is not None:
            return known
        data = await self._request(f"$JS.API.CONSUMER.INFO.{self.stream}.{consumer}", None)
        try:
            answer = _consumer_reply.decode(data)
        except (msgspec.ValidationError, msgspec.DecodeError) as exc:
            raise BusError(f"unreadable reply to a consumer info: {exc}") from exc
        if answer.config is None:
            if answer.error is not None and (
                answer.error.err_code == _NO_CONSUMER or answer.error.code == 404
            ):
                log.warning(
                    "ignored an advisory about consumer %s of %s: no such consumer",
                    consumer,
                    self.stream,
                )
                raise _Gone
            what = "no answer" if answer.error is None else answer.error.description
            raise BusError(f"cannot read consumer {consumer}: {what or 'error'}")
        filters = answer.config.filter_subjects or [answer.config.filter_subject]
        try:
            patterns = tuple(validate_subscribe_subject(f) for f in filters if f)
        except ValueError as exc:
            raise BusError(f"consumer {consumer} has an invalid filter: {exc}") from exc
        if len(self._filters) >= _FILTERS_CACHED:
            self._filters.clear()
        self._filters[consumer] = patterns
        return patterns

    async def _get(self, sequence: int) -> _Stored:
        data = await self._request(f"$JS.API.STREAM.MSG.GET.{self.stream}", {"seq": sequence})
        try:
            answer = _get_reply.decode(data)
        except (msgspec.ValidationError, msgspec.DecodeError) as exc:
            raise BusError(f"unreadable reply to a message get: {exc}") from exc
        if answer.message is not None and answer.message.seq == sequence:
            return answer.message
        _raise(answer.error, "get", sequence)

    async def _delete(self, sequence: int) -> None:
        data = await self._request(
            f"$JS.API.STREAM.MSG.DELETE.{self.stream}", {"seq": sequence, "no_erase": True}
        )
        try:
            answer = _delete_reply.decode(data)
        except (msgspec.ValidationError, msgspec.DecodeError) as exc:
            raise BusError(f"unreadable reply to a message delete: {exc}") from exc
        if not answer.success:
            _raise(answer.error, "delete", sequence)


def _raise(error: _ApiError | None, verb: str, sequence: int) -> NoReturn:
    if error is not None and (error.err_code in _GONE or error.code == 404):
        raise _Gone
    what = "no answer" if error is None else error.description or f"error {error.err_code}"
    raise BusError(f"cannot {verb} message {sequence}: {what}")
