"""The connection under a ``NatsBus``: the options checked before connecting, nats-py's client
connected with its callbacks (logged under ``humangr.bus``), what a failed connection says, and
which of the bus's streams keeps a subject."""

from __future__ import annotations

import importlib.util
import logging
import ssl
from collections.abc import Sequence

import anyio
import nats.errors
from nats.aio.client import Client
from nats.js import JetStreamContext

from humangr.contracts.subjects import Subjects
from humangr.engine.errors import BusClosedError, BusError, ConfigError
from humangr.engine.redact import redact_urls

from .exhausted import ExhaustedWatch
from .jetstream import (
    JetStreamConfig,
    ensure_streams,
    event_subjects,
    stream_names,
    work_subjects,
)
from .nats_subscription import CLEANUP_TIMEOUT, NatsSubscription
from .seeds import parse_seed_urls
from .subject import matches, validate_inbox_prefix, validate_subscribe_subject

__all__ = ["NatsConnection", "checked_servers"]

log = logging.getLogger("humangr.bus")


class _ConnectFailed(Exception):
    def __init__(self, cause: BaseException) -> None:
        super().__init__(str(cause))
        self.cause = cause


async def checked_servers(
    url: str | Sequence[str], *, inbox_prefix: str | None, creds_file: str | None
) -> list[str]:
    """The servers of ``url`` (``NatsBus.connect``'s), once they, ``inbox_prefix`` and
    ``creds_file`` are checked: ``BusError`` for a bad URL, ``ConfigError`` for the others."""
    try:
        servers = list(parse_seed_urls(url))
    except ConfigError as exc:  # the bus's callers expect a BusError for any bad URL
        raise BusError(f"cannot connect to NATS at the URL given: {exc}") from None
    if inbox_prefix is not None:
        try:
            validate_inbox_prefix(inbox_prefix)
        except ValueError as exc:
            raise ConfigError(f"{exc}; use letters, digits, _ and - (e.g. _INBOX_agent)") from None
    if creds_file is not None:
        if not await anyio.Path(creds_file).is_file():
            raise ConfigError(f"NATS creds file {creds_file} does not exist")
        if importlib.util.find_spec("nkeys") is None:
            raise ConfigError(
                "a NATS creds file needs the nkeys package: pip install 'nats-py[nkeys]'"
            )
    return servers


class NatsConnection:
    """The connection and the streams of a ``NatsBus`` (``NatsBus.connect`` opens it)."""

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

    async def _open(
        self,
        servers: list[str],
        *,
        name: str,
        user: str | None,
        password: str | None,
        token: str | None,
        creds_file: str | None,
        tls: ssl.SSLContext | None,
        connect_timeout: float,
        reconnect_time_wait: float,
        max_reconnect_attempts: int,
        inbox_prefix: str | None,
    ) -> None:
        """Connect the client to the first of ``servers`` that answers and create the
        streams if JetStream is asked for; ``BusError`` saying why if no server answers."""
        self._connecting = len(servers)
        cause: BaseException | None = None
        try:
            with anyio.fail_after(connect_timeout * len(servers) + 1):
                await self.client.connect(
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
                    error_cb=self._on_error,
                    disconnected_cb=self._on_disconnected,
                    reconnected_cb=self._on_reconnected,
                    closed_cb=self._on_closed,
                    inbox_prefix=inbox_prefix or "_INBOX",
                )
        except _ConnectFailed as exc:
            cause = exc.cause
        except (nats.errors.Error, OSError, ValueError, TimeoutError) as exc:
            cause = exc
        finally:
            self._connecting = 0
        if cause is not None:
            self._closed = True
            with anyio.move_on_after(CLEANUP_TIMEOUT, shield=True):
                await self.client.close()
            what = redact_urls(str(cause)) or type(cause).__name__
            raise BusError(
                f"cannot connect to NATS at {self.servers}: {what}; check the URL, the "
                "credentials and that nats-server is running"
            ) from cause
        log.info("connected to NATS at %s", self.connected_url)
        if self.jetstream_config is not None:
            self.jetstream = self.client.jetstream(timeout=self.jetstream_config.publish_timeout)
            try:
                await ensure_streams(self.jetstream, self.subjects, self.jetstream_config)
            except BaseException:
                await self.close()
                raise

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
