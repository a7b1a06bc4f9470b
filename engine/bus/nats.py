"""``NatsBus``: the ``Bus`` on a real NATS server (nats-py), durable with JetStream if asked."""

from __future__ import annotations

import importlib.util
import logging
import ssl
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from functools import partial

import anyio
import nats.errors
import nats.js.errors
from nats.aio.client import Client
from nats.js import JetStreamContext

from humangr.contracts.subjects import Subjects
from humangr.engine.errors import (
    BusClosedError,
    BusError,
    BusTimeoutError,
    ConfigError,
    NoRespondersError,
)
from humangr.engine.redact import redact_seed_urls, redact_urls

from .base import DEFAULT_MAX_PENDING, Exhausted, Headers, Msg, Subscription, check_payload
from .exhausted import ExhaustedWatch
from .jetstream import (
    JetStreamConfig,
    PullConsumer,
    covers,
    durable_name,
    ensure_consumer,
    ensure_streams,
    event_subjects,
    stream_names,
    work_subjects,
)
from .nats_subscription import CLEANUP_TIMEOUT, NatsSubscription, NoneExhausted, from_core
from .publish_log import last_with_header, log_position, published_since
from .seeds import parse_seed_urls
from .subject import (
    matches,
    validate_inbox_prefix,
    validate_publish_subject,
    validate_subscribe_subject,
)

__all__ = ["JetStreamConfig", "NatsBus", "NatsSubscription"]

log = logging.getLogger("humangr.bus")

LEADER_WAIT = 15.0
"""How long a durable publish waits for the stream to answer again when it gets no response:
on a cluster that is the stream's leader being elected after its node died (a few seconds),
which must not turn into a failed handler, max_deliver and a dead-lettered action."""


class _NotAcknowledged(BusTimeoutError):
    """JetStream did not acknowledge a publish in time: it may not be stored (publish it
    again; with ``Nats-Msg-Id`` the stream keeps one copy)."""

    def __init__(self, subject: str, timeout: float) -> None:
        BusError.__init__(
            self,
            f"JetStream did not acknowledge {subject!r} within {timeout:g}s; "
            "the message may not be stored, publish it again",
        )
        self.subject = subject
        self.timeout = timeout


class _ConnectFailed(Exception):
    def __init__(self, cause: BaseException) -> None:
        super().__init__(str(cause))
        self.cause = cause


class NatsBus:
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

    def __init__(
        self, client: Client, servers: str, subjects: Subjects, jetstream: JetStreamConfig | None
    ) -> None:
        self.client = client
        self.servers = servers
        self.subjects = subjects
        self.jetstream_config = jetstream
        self.jetstream: JetStreamContext | None = None
        self.work_stream, self.events_stream = stream_names(subjects)
        self._stored_patterns = [
            validate_subscribe_subject(s)
            for s in (*work_subjects(subjects), *event_subjects(subjects))
        ]
        self._work_patterns = self._stored_patterns[: len(work_subjects(subjects))]
        self._stored_cache: dict[str, bool] = {}
        self._subs: set[NatsSubscription] = set()
        self._watches: set[ExhaustedWatch] = set()
        self._by_core: dict[object, NatsSubscription] = {}
        self._connecting = 0
        self._connect_errors = 0
        self._closed = False

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
        try:
            servers = list(parse_seed_urls(url))
        except ConfigError as exc:  # the bus's callers expect a BusError for any bad URL
            raise BusError(f"cannot connect to NATS at the URL given: {exc}") from None
        if inbox_prefix is not None:
            try:
                validate_inbox_prefix(inbox_prefix)
            except ValueError as exc:
                raise ConfigError(
                    f"{exc}; use letters, digits, _ and - (e.g. _INBOX_agent)"
                ) from None
        if creds_file is not None:
            if not await anyio.Path(creds_file).is_file():
                raise ConfigError(f"NATS creds file {creds_file} does not exist")
            if importlib.util.find_spec("nkeys") is None:
                raise ConfigError(
                    "a NATS creds file needs the nkeys package: pip install 'nats-py[nkeys]'"
                )
        shown = redact_seed_urls(servers)
        bus = cls(Client(), shown, subjects or Subjects(), jetstream)
        bus._connecting = len(servers)
        cause: BaseException | None = None
        try:
            with anyio.fail_after(connect_timeout * len(servers) + 1):
                await bus.client.connect(
                    servers,
                    name=name,
                    user=user,
                    password=password,
                    token=token,
                    user_credentials=creds_file,
                    tls=tls,
                    connect_timeout=connect_timeout,  # type: ignore[arg-type]
                    reconnect_time_wait=reconnect_time_wait,  # type: ignore[arg-type]
                    max_reconnect_attempts=max_reconnect_attempts,
                    error_cb=bus._on_error,
                    disconnected_cb=bus._on_disconnected,
                    reconnected_cb=bus._on_reconnected,
                    closed_cb=bus._on_closed,
                    inbox_prefix=inbox_prefix or "_INBOX",
                )
        except _ConnectFailed as exc:
            cause = exc.cause
        except (nats.errors.Error, OSError, ValueError, TimeoutError) as exc:
            cause = exc
        finally:
            bus._connecting = 0
        if cause is not None:
            bus._closed = True
            with anyio.move_on_after(CLEANUP_TIMEOUT, shield=True):
                await bus.client.close()
            what = redact_urls(str(cause)) or type(cause).__name__
            raise BusError(
                f"cannot connect to NATS at {shown}: {what}; check the URL, the "
                "credentials and that nats-server is running"
            ) from cause
        log.info("connected to NATS at %s", bus.connected_url)
        if jetstream is not None:
            bus.jetstream = bus.client.jetstream(timeout=jetstream.publish_timeout)
            try:
                await ensure_streams(bus.jetstream, bus.subjects, jetstream)
            except BaseException:
                await bus.close()
                raise
        return bus

    @property
    def connected_url(self) -> str | None:
        """The server this bus is connected to now (without credentials), if any."""
        url = self.client.connected_url
        return None if url is None else f"{url.scheme}://{url.hostname}:{url.port}"

    async def _on_error(self, exc: Exception) -> None:
        if self._connecting:
            self._connect_errors += 1
            if self._connect_errors >= self._connecting:
                raise _ConnectFailed(exc)
            return
        try:
            if isinstance(exc, nats.errors.SlowConsumerError):
                sub = self._by_core.get(exc.sub)
                if sub is not None:
                    sub.count_dropped(1)
                return
            problem = redact_urls(str(exc)) or type(exc).__name__
            log.warning("NATS error on %s: %s", self.servers, problem)
        except Exception:
            log.exception("the NATS error callback failed")

    async def _on_disconnected(self) -> None:
        if not self._closed:
            log.warning("disconnected from NATS at %s; reconnecting", self.servers)

    async def _on_reconnected(self) -> None:
        log.warning("reconnected to NATS at %s", self.connected_url)

    async def _on_closed(self) -> None:
        if not self._closed:
            log.error("NATS connection to %s closed for good; create a new bus", self.servers)

    def _check_open(self) -> None:
        if self._closed or self.client.is_closed:
            raise BusClosedError("the bus is closed; create a new one")

    def stores(self, subject: str) -> bool:
        """Whether a publish on ``subject`` is stored by JetStream and acknowledged (so its
        publish returning says it is stored); ``False`` on core NATS."""
        return self.jetstream is not None and self._stored(subject)

    def _stored(self, subject: str) -> bool:
        stored = self._stored_cache.get(subject)
        if stored is None:
            tokens = tuple(subject.split("."))
            stored = any(matches(p, tokens) for p in self._stored_patterns)
            if len(self._stored_cache) > 10_000:
                self._stored_cache.clear()
            self._stored_cache[subject] = stored
        return stored

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
                await self._publish_durable(self.jetstream, subject, payload, fields)
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

    async def _publish_durable(
        self, js: JetStreamContext, subject: str, payload: bytes, headers: dict[str, str] | None
    ) -> None:
        assert self.jetstream_config is not None
        timeout = self.jetstream_config.publish_timeout
        waited_until = anyio.current_time() + LEADER_WAIT
        delay = 0.1
        while True:
            try:
                ack = await js.publish(subject, payload, timeout=timeout, headers=headers)
                break
            except nats.js.errors.NoStreamResponseError as exc:
                # no stream answered: its leader is being elected (a cluster lost a node), or
                # it was deleted; wait a bounded time for the first before saying the second
                if anyio.current_time() + delay > waited_until:
                    raise BusError(
                        f"no JetStream stream stored {subject!r} (none answered for "
                        f"{LEADER_WAIT:g}s); was the stream deleted? reconnect the bus to "
                        "recreate it"
                    ) from exc
                await anyio.sleep(delay)
                delay = min(delay * 2, 1.0)
            except nats.errors.TimeoutError as exc:
                raise _NotAcknowledged(subject, timeout) from exc
            except nats.js.errors.APIError as exc:
                raise BusError(f"JetStream refused {subject!r}: {exc.description or exc}") from exc
        if ack.duplicate:
            log.debug("JetStream dropped a duplicate on %s (stream %s)", subject, ack.stream)

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

    async def flush(self, timeout: float = 5.0) -> None:
        self._check_open()
        try:
            await self.client.flush(timeout)  # type: ignore[arg-type]
        except nats.errors.ConnectionClosedError as exc:
            raise BusClosedError("the bus connection is closed; create a new bus") from exc
        except (nats.errors.TimeoutError, nats.errors.ConnectionReconnectingError) as exc:
            raise BusError(
                f"flush not confirmed within {timeout:g}s: {exc or 'timeout'}; "
                "is the server reachable?"
            ) from exc

    async def close(self) -> None:
        """End every subscription, flush what was published, close the connection."""
        if self._closed:
            return
        self._closed = True
        for sub in list(self._subs):
            await sub.unsubscribe()
        for watch in list(self._watches):
            await watch.close()
        with anyio.move_on_after(CLEANUP_TIMEOUT, shield=True):
            await self.client.close()

    async def __aenter__(self) -> NatsBus:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.close()
