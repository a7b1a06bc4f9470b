"""``NatsBus``: the ``Bus`` on a real NATS server (nats-py), durable with JetStream if asked."""

from __future__ import annotations

import logging
import ssl
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from functools import partial

import nats.errors
from nats.aio.client import Client

from humangr.contracts.subjects import Subjects
from humangr.engine.errors import BusClosedError, BusError, BusTimeoutError, NoRespondersError
from humangr.engine.redact import redact_seed_urls

from .base import DEFAULT_MAX_PENDING, Exhausted, Headers, Msg, Subscription, check_payload
from .exhausted import ExhaustedWatch
from .jetstream import JetStreamConfig, PullConsumer, covers, durable_name, ensure_consumer
from .nats_connection import NatsConnection, checked_servers
from .nats_publish import LEADER_WAIT as LEADER_WAIT
from .nats_publish import publish_durable
from .nats_subscription import CLEANUP_TIMEOUT, NatsSubscription, NoneExhausted, from_core
from .publish_log import last_with_header, log_position, published_since
from .subject import matches, validate_publish_subject, validate_subscribe_subject

__all__ = ["JetStreamConfig", "NatsBus", "NatsSubscription"]

log = logging.getLogger("humangr.bus")


class NatsBus(NatsConnection):
    """A ``Bus`` on NATS. Create it with ``await NatsBus.connect(url, ...)``.

    With ``jetstream=JetStreamConfig(...)`` the WORK and EVENTS streams of ``subjects`` are
    created on connect; publishing on a stored subject waits for JetStream's ack (and honours
    ``Nats-Msg-Id``), and a queue-group subscription to a work subject pulls from a durable
    consumer shared by the group, yielding messages to ack, nak or term; a message that
    exhausts its deliveries is claimed by one ``watch_exhausted()`` of all the processes
    that watch (the Supervisor's: see ``ExhaustedWatch``). Other subscriptions,
    and publishes with a ``reply`` subject, stay core NATS; ``request`` on a stored subject is
    refused (the stream's ack would be the answer).
    """

    @classmethod
    async def connect(
        cls,
        url: str | Sequence[str],
        *,
        name: str = "humangr",
        user: str | None = None,
        password: str | None = None,
        token: str | None = None,
        creds_file: str | None = None,
        tls: ssl.SSLContext | None = None,
        jetstream: JetStreamConfig | None = None,
        subjects: Subjects | None = None,
        connect_timeout: float = 5.0,
        reconnect_time_wait: float = 2.0,
        max_reconnect_attempts: int = -1,
        inbox_prefix: str | None = None,
    ) -> NatsBus:
        """Connect to NATS (failing fast with ``BusError`` if no server of ``url`` answers).

        ``url`` is one URL or a cluster's seed URLs (a sequence, or comma-separated:
        ``parse_seed_urls``; a bad entry is a ``BusError`` naming it): the first that answers
        is used, and a lost connection moves to any of them or of the servers the cluster
        announces.

        Once connected, a lost connection is retried every ``reconnect_time_wait`` seconds,
        ``max_reconnect_attempts`` times (-1: forever), logged under ``humangr.bus``.
        ``inbox_prefix`` is where replies to this connection's requests arrive (default
        ``_INBOX``); a server that scopes replies per user wants its own (``inbox_prefix_for``).
        """
        servers = await checked_servers(url, inbox_prefix=inbox_prefix, creds_file=creds_file)
        bus = cls(Client(), redact_seed_urls(servers), subjects or Subjects(), jetstream)
        await bus._open(
            servers,
            name=name,
            user=user,
            password=password,
            token=token,
            creds_file=creds_file,
            tls=tls,
            connect_timeout=connect_timeout,
            reconnect_time_wait=reconnect_time_wait,
            max_reconnect_attempts=max_reconnect_attempts,
            inbox_prefix=inbox_prefix,
        )
        return bus

    async def publish(
        self,
        subject: str,
        data: bytes,
        *,
        headers: Headers | None = None,
        reply: str | None = None,
    ) -> None:
        self._check_open()
        payload = check_payload(data)
        validate_publish_subject(subject)
        fields = dict(headers) if headers else None
        try:
            if self.jetstream is not None and reply is None and self._stored(subject):
                assert self.jetstream_config is not None
                timeout = self.jetstream_config.publish_timeout
                await publish_durable(self.jetstream, subject, payload, fields, timeout)
            else:
                await self.client.publish(subject, payload, reply=reply or "", headers=fields)
        except nats.errors.ConnectionClosedError as exc:
            raise BusClosedError("the bus connection is closed; create a new bus") from exc
        except nats.errors.MaxPayloadError as exc:
            raise BusError(
                f"payload of {len(payload)} bytes on {subject!r} exceeds the "
                f"server's max_payload of {self.client.max_payload}"
            ) from exc
        except nats.errors.OutboundBufferLimitError as exc:
            raise BusError(
                f"cannot publish on {subject!r}: disconnected and the outbound "
                "buffer is full; retry once reconnected"
            ) from exc
        except nats.errors.BadHeaderError as exc:
            raise ValueError(f"invalid header on {subject!r}: {exc}") from exc

    @asynccontextmanager
    async def subscribe(
        self,
        subject: str,
        *,
        queue: str | None = None,
        max_pending: int = DEFAULT_MAX_PENDING,
    ) -> AsyncIterator[Subscription]:
        self._check_open()
        pattern = validate_subscribe_subject(subject)
        config = self.jetstream_config
        durable = (
            config is not None
            and queue is not None
            and any(covers(work, pattern) for work in self._work_patterns)
        )
        sub = NatsSubscription(
            subject,
            queue,
            max_pending,
            on_close=self._forget,
            pull_batch=config.fetch_batch if durable and config else None,
        )
        self._subs.add(sub)
        try:
            if durable and queue is not None:
                await self._open_pull(sub, queue)
            else:
                await self._open_core(sub)
            yield sub
        finally:
            await sub.unsubscribe()
            sub.close_receiver()

    async def _open_core(self, sub: NatsSubscription) -> None:
        try:
            core = await self.client.subscribe(sub.subject, queue=sub.queue or "", cb=sub.on_core)
        except nats.errors.ConnectionClosedError as exc:
            raise BusClosedError("the bus connection is closed; create a new bus") from exc
        sub.core = core
        self._by_core[core] = sub
        try:
            # nats-py may send a flush's PING ahead of a SUB still in its write buffer; the
            # second round trip proves the server has registered the subscription.
            for _ in range(2):
                await self.client.flush(CLEANUP_TIMEOUT)  # type: ignore[arg-type]
        except (nats.errors.TimeoutError, nats.errors.ConnectionReconnectingError) as exc:
            log.warning(
                "subscription to %s not confirmed by the server (%s); it is sent again "
                "on reconnect",
                sub.subject,
                exc,
            )

    async def _ensure_consumer(self, consumer: str, subject: str) -> None:
        assert self.jetstream is not None
        assert self.jetstream_config is not None
        await ensure_consumer(
            self.jetstream, self.work_stream, consumer, subject, self.jetstream_config
        )

    async def _open_pull(self, sub: NatsSubscription, queue: str) -> None:
        assert self.jetstream_config is not None
        consumer = durable_name(queue, sub.subject)
        await self._ensure_consumer(consumer, sub.subject)
        sub.consumer = consumer
        sub.pull = PullConsumer(
            self.client,
            self.work_stream,
            consumer,
            sub,
            self.jetstream_config,
            reensure=partial(self._ensure_consumer, consumer, sub.subject),
        )
        try:
            await sub.pull.open()
        except nats.errors.ConnectionClosedError as exc:
            raise BusClosedError("the bus connection is closed; create a new bus") from exc

    @asynccontextmanager
    async def watch_exhausted(self) -> AsyncIterator[AsyncIterator[Exhausted]]:
        """Until the block ends, claim the work messages of every consumer that exhaust their
        deliveries (iterate what it yields: each ``Exhausted`` is removed from the stream for
        this caller alone to report). Open it before the consumers pull; only a user that may
        read and delete any work message can (the Supervisor). Nothing without JetStream."""
        self._check_open()
        if self.jetstream_config is None:
            yield NoneExhausted()
            return
        watch = ExhaustedWatch(self.client, self.work_stream, self.jetstream_config.publish_timeout)
        self._watches.add(watch)
        try:
            await watch.open()
            yield watch
        finally:
            self._watches.discard(watch)
            await watch.close()
            watch.close_receiver()

    def _forget(self, sub: NatsSubscription) -> None:
        self._subs.discard(sub)
        if sub.core is not None:
            self._by_core.pop(sub.core, None)

    async def request(
        self,
        subject: str,
        data: bytes,
        *,
        headers: Headers | None = None,
        timeout: float = 5.0,
    ) -> Msg:
        self._check_open()
        payload = check_payload(data)
        validate_publish_subject(subject)
        if self.jetstream is not None and self._stored(subject):
            raise BusError(
                f"{subject!r} is stored by JetStream, whose ack would answer a "
                "request; publish it and subscribe to the reply subject instead"
            )
        try:
            reply = await self.client.request(
                subject, payload, timeout=timeout, headers=dict(headers) if headers else None
            )
        except nats.errors.NoRespondersError as exc:
            raise NoRespondersError(subject) from exc
        except nats.errors.TimeoutError as exc:
            if self._closed:
                raise BusClosedError("the bus closed while waiting for a reply") from exc
            raise BusTimeoutError(subject, timeout) from exc
        except nats.errors.ConnectionClosedError as exc:
            raise BusClosedError("the bus connection is closed; create a new bus") from exc
        except nats.errors.BadHeaderError as exc:
            raise ValueError(f"invalid header on {subject!r}: {exc}") from exc
        return from_core(reply)

    async def log_position(self, subject: str) -> int | None:
        """The position of the stream that keeps ``subject`` (``None`` if none keeps it):
        record it before publishing, to ask ``was_published`` afterwards."""
        stream = self._log_stream(subject)
        if stream is None or self.jetstream is None:
            return None
        return await log_position(self.jetstream, stream)

    async def was_published(self, subject: str, msg_id: str, *, since: int) -> bool | None:
        """Whether a message with ``Nats-Msg-Id: msg_id`` went out on ``subject`` after the
        stream position ``since`` (``None``: cannot tell — the subject is not stored)."""
        stream = self._log_stream(subject)
        if stream is None or self.jetstream is None:
            return None
        return await published_since(self.jetstream, stream, subject, msg_id, since)

    async def last_published(
        self, subject: str, header: str, value: str, *, since: int
    ) -> bytes | None:
        """The data of the latest message on ``subject`` after the stream position ``since``
        whose header ``header`` is ``value`` (``None``: none, or cannot tell)."""
        stream = self._log_stream(subject)
        if stream is None or self.jetstream is None:
            return None
        return await last_with_header(self.jetstream, stream, subject, header, value, since)

    def _log_stream(self, subject: str) -> str | None:
        tokens = tuple(subject.split("."))
        if self.jetstream is None or not any(
            matches(p, tokens) for p in self._stored_patterns[len(self._work_patterns) :]
        ):
            return None
        return self.events_stream

    async def __aenter__(self) -> NatsBus:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.close()
