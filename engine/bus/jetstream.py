"""JetStream for ``NatsBus``: durable work streams, pull consumers and their acknowledgements.

The WORK stream (work-queue retention) stores action submissions, layer tasks, agent requests,
work orders and pipeline starts until a consumer acks them; the EVENTS stream keeps decisions
for a while and drops a second decision with the same ``Nats-Msg-Id`` inside the duplicate
window. The naming and matching helpers here are pure functions.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Literal, ParamSpec, Protocol, TypeVar

import anyio
import nats.errors
import nats.js.errors
from nats.aio.client import Client
from nats.aio.msg import Msg as NatsMsg
from nats.aio.subscription import Subscription as NatsSubscription
from nats.js import JetStreamContext
from nats.js.api import (
    AckPolicy,
    ConsumerConfig,
    DeliverPolicy,
    RetentionPolicy,
    StorageType,
    StreamConfig,
    StreamInfo,
)

from humangr.contracts.subjects import Subjects
from humangr.engine.backoff import Backoff
from humangr.engine.errors import BusClosedError, BusError, ConfigError, ReplicaMismatch

from .base import Msg

__all__ = [
    "JetStreamAcker",
    "JetStreamConfig",
    "PullConsumer",
    "PullSink",
    "check_replicas",
    "covers",
    "durable_name",
    "ensure_consumer",
    "ensure_streams",
    "event_subjects",
    "from_jetstream",
    "stream_names",
    "through_election",
    "work_subjects",
]

T = TypeVar("T")
P = ParamSpec("P")

_RECOVER = Backoff(0.1, cap=5.0)
"""Waits between tries to restore a consumer whose pull failed."""
log = logging.getLogger("humangr.bus")


@dataclass(frozen=True, slots=True)
class JetStreamConfig:
    """Durability settings of ``NatsBus`` in JetStream mode (times in seconds)."""

    ack_wait: float = 60.0
    """How long a consumer may hold a message unacked before it is redelivered."""
    max_deliver: int = 5
    """Deliveries of one message before JetStream stops redelivering it."""
    duplicate_window: float = 120.0
    """Window in which a second message with the same ``Nats-Msg-Id`` is dropped."""
    replicas: int = 1
    """Replicas of each stream on a cluster. An existing stream with another count is refused
    (``ReplicaMismatch``), never changed, unless ``update_streams``."""
    storage: Literal["file", "memory"] = "file"
    events_max_age: float = 7 * 24 * 3600.0
    """How long decision events are kept."""
    fetch_batch: int = 32
    """Most messages one pull subscription holds fetched but not yet taken."""
    poll_interval: float = 1.0
    """Expiry of one pull request; bounds how long a closed subscription's pull lingers."""
    publish_timeout: float = 5.0
    update_streams: bool = False
    """Change the replica count of existing streams to ``replicas`` (``serve --update-streams``,
    an operator's decision) instead of refusing to start."""

    def __post_init__(self) -> None:
        for name in (
            "ack_wait",
            "duplicate_window",
            "events_max_age",
            "poll_interval",
            "publish_timeout",
        ):
            if getattr(self, name) <= 0:
                raise ConfigError(f"JetStreamConfig.{name} must be positive")
        if self.max_deliver < 1 or self.fetch_batch < 1 or self.replicas < 1:
            raise ConfigError("JetStreamConfig max_deliver, fetch_batch and replicas must be >= 1")
        if self.storage not in ("file", "memory"):
            raise ConfigError(
                f"JetStreamConfig.storage must be 'file' or 'memory', not {self.storage!r}"
            )


def stream_names(subjects: Subjects) -> tuple[str, str]:
    """The WORK and EVENTS stream names for a prefix, e.g. ``HL_WORK`` and ``HL_EVENTS``."""
    base = re.sub(r"[^A-Za-z0-9_-]", "_", subjects.prefix).upper()
    return f"{base}_WORK", f"{base}_EVENTS"


def work_subjects(subjects: Subjects) -> tuple[str, ...]:
    """Subjects whose messages are work: stored until one consumer acks them."""
    return (
        subjects.action_submit,
        subjects.agent_submits,
        subjects.layer_tasks,
        subjects.agent_requests,
        subjects.work_order,
        subjects.pipeline_start,
    )


def event_subjects(subjects: Subjects) -> tuple[str, ...]:
    """Subjects kept as deduplicated events."""
    return (subjects.decisions,)


def covers(pattern: tuple[str, ...], subject: tuple[str, ...]) -> bool:
    """Whether all that ``subject`` (wildcards allowed) matches is matched by ``pattern``."""
    for index, token in enumerate(subject):
        if index >= len(pattern):
            return False
        wanted = pattern[index]
        if wanted == ">":
            return True
        if token == ">" or (wanted != "*" and token != wanted):
            return False
    return len(pattern) == len(subject)


def durable_name(queue: str, subject: str) -> str:
    """A consumer name from a queue group and filter subject: readable, unique, legal."""
    readable = re.sub(r"[^A-Za-z0-9_-]", "_", f"{queue}__{subject}")[:80]
    digest = hashlib.blake2b(f"{queue}\0{subject}".encode(), digest_size=5).hexdigest()
    return f"{readable}_{digest}"


def _bus_error(action: str, exc: Exception) -> BusError:
    if isinstance(exc, nats.js.errors.ServiceUnavailableError | nats.errors.NoRespondersError):
        return BusError(
            f"{action}: JetStream is not enabled on the server; start nats-server "
            "with -js (or jetstream {} in its config)"
        )
    return BusError(f"{action}: {exc}")


async def ensure_streams(js: JetStreamContext, subjects: Subjects, config: JetStreamConfig) -> None:
    """Create the WORK and EVENTS streams, or update their limits if they exist already.

    An existing stream of the same name that stores other subjects is refused, not changed.
    """
    work, events = stream_names(subjects)
    storage = StorageType.FILE if config.storage == "file" else StorageType.MEMORY
    wanted = [
        StreamConfig(
            name=work,
            subjects=list(work_subjects(subjects)),
            retention=RetentionPolicy.WORK_QUEUE,
            storage=storage,
            num_replicas=config.replicas,
            duplicate_window=config.duplicate_window,
        ),
        StreamConfig(
            name=events,
            subjects=list(event_subjects(subjects)),
            retention=RetentionPolicy.LIMITS,
            storage=storage,
            num_replicas=config.replicas,
            duplicate_window=config.duplicate_window,
            max_age=config.events_max_age,
        ),
    ]
    for stream in wanted:
        # A role that may not change streams (only the operator and the Supervisor may: see
        # deploy/nats-server.conf) binds to a stream that is already as wanted, asking nothing.
        try:
            existing = await through_election(js.stream_info, str(stream.name))
            if _unchanged(existing, stream):
                continue
            check_replicas(f"JetStream stream {stream.name}", existing.config, stream, config)
        except nats.js.errors.NotFoundError:
            pass
        except (nats.errors.Error, OSError) as exc:
            raise _bus_error(f"cannot read JetStream stream {stream.name}", exc) from exc
        try:
            await through_election(js.add_stream, stream)
            continue
        except nats.js.errors.BadRequestError as exc:
            if exc.err_code != 10058:  # stream name already in use with another configuration
                raise _bus_error(f"cannot create JetStream stream {stream.name}", exc) from exc
        except (nats.errors.Error, OSError) as exc:
            raise _bus_error(f"cannot create JetStream stream {stream.name}", exc) from exc
        try:
            info = await through_election(js.stream_info, str(stream.name))
            # an older release's stream lacks some subjects (hl.actions.submit.*): added
            if not set(info.config.subjects or []) <= set(stream.subjects or []):
                raise BusError(
                    f"JetStream stream {stream.name} exists with subjects {info.config.subjects}, "
                    f"not {stream.subjects}; use another subject prefix or delete the stream"
                )
            check_replicas(f"JetStream stream {stream.name}", info.config, stream, config)
            await through_election(js.update_stream, stream)
        except (nats.errors.Error, OSError) as exc:
            raise _bus_error(
                f"cannot update JetStream stream {stream.name} (only the operator and the "
                "Supervisor may change a stream: start the Supervisor first, with the same "
                "settings)",
                exc,
            ) from exc


def check_replicas(
    what: str, have: StreamConfig, wanted: StreamConfig, config: JetStreamConfig
) -> None:
    """Refuse (``ReplicaMismatch``) to change the replica count of an existing stream, unless
    ``config.update_streams``: a process started without the cluster's setting must not
    shrink (or grow) what every other process shares."""
    ours, theirs = wanted.num_replicas or 1, have.num_replicas or 1
    if ours != theirs and not config.update_streams:
        raise ReplicaMismatch(what, theirs, ours)


def _unchanged(info: StreamInfo, wanted: StreamConfig) -> bool:
    """Whether an existing stream already has the settings ``ensure_streams`` would give it."""
    have = info.config
    return (
        sorted(have.subjects or []) == sorted(wanted.subjects or [])
        and have.retention == wanted.retention
        and have.storage == wanted.storage
        and (have.num_replicas or 1) == (wanted.num_replicas or 1)
        and (have.duplicate_window or 0) == (wanted.duplicate_window or 0)
        and (have.max_age or 0) == (wanted.max_age or 0)
    )


async def ensure_consumer(
    js: JetStreamContext, stream: str, durable: str, subject: str, config: JetStreamConfig
) -> None:
    """Create (or update) the durable pull consumer that a queue group shares."""
    consumer = ConsumerConfig(
        name=durable,
        durable_name=durable,
        filter_subject=subject,
        deliver_policy=DeliverPolicy.ALL,
        ack_policy=AckPolicy.EXPLICIT,
        ack_wait=config.ack_wait,
        max_deliver=config.max_deliver,
    )
    try:
        await _add_consumer(js, stream, consumer)
    except nats.js.errors.BadRequestError as exc:
        if exc.err_code == 10100:
            raise BusError(
                f"cannot consume {subject!r} from work stream {stream}: another queue group "
                f"already consumes overlapping subjects ({exc.description}); on a work queue "
                "each subject has one consumer group (delete a stale durable consumer with "
                "`nats consumer rm`)"
            ) from exc
        raise _bus_error(f"cannot create consumer {durable} on {stream}", exc) from exc
    except (nats.errors.Error, OSError) as exc:
        raise _bus_error(f"cannot create consumer {durable} on {stream}", exc) from exc


ELECTION_WAIT = 15.0
"""How long a JetStream API call is tried again while the cluster does not answer in time (a
node rejoined and a stream's leader is being elected): a process starting then waits, not exits."""

_ELECTION = Backoff(0.2, cap=2.0)


async def through_election(call: Callable[P, Awaitable[T]], *args: P.args, **kw: P.kwargs) -> T:
    """``call(*args)``, tried again on a timeout or no responder for up to ``ELECTION_WAIT`` s."""
    return await _ELECTION.retrying(
        lambda: call(*args, **kw),
        on=(nats.errors.TimeoutError, nats.errors.NoRespondersError),
        within=ELECTION_WAIT,
    )


async def _add_consumer(js: JetStreamContext, stream: str, consumer: ConsumerConfig) -> None:
    await through_election(js.add_consumer, stream, consumer)


class JetStreamAcker:
    """Acknowledges one JetStream message; after ack, nak or term further calls do nothing."""

    __slots__ = ("_done", "_msg")

    def __init__(self, msg: NatsMsg) -> None:
        self._msg = msg
        self._done = False

    async def _send(self, call: Callable[[], Awaitable[None]]) -> None:
        if self._done:
            return
        self._done = True
        try:
            await call()
        except nats.errors.ConnectionClosedError as exc:
            raise BusClosedError("the bus is closed; the message will be redelivered") from exc

    async def ack(self) -> None:
        await self._send(self._msg.ack)

    async def nak(self, delay: float | None = None) -> None:
        await self._send(lambda: self._msg.nak(delay=delay))

    async def term(self) -> None:
        await self._send(self._msg.term)

    async def in_progress(self) -> None:
        if not self._done:
            try:
                await self._msg.in_progress()
            except nats.errors.ConnectionClosedError as exc:
                raise BusClosedError("the bus is closed") from exc


def from_jetstream(msg: NatsMsg, max_deliver: int | None = None) -> Msg:
    """A bus ``Msg`` for a JetStream message, with its acknowledger and delivery counts."""
    data = msg.data if type(msg.data) is bytes else bytes(msg.data)
    return Msg(
        msg.subject,
        data,
        dict(msg.headers) if msg.headers else None,
        None,
        acker=JetStreamAcker(msg),
        delivered=msg.metadata.num_delivered,
        max_deliver=max_deliver,
        sequence=msg.metadata.sequence.stream,
    )


class PullSink(Protocol):
    """Where pulled messages go: a bounded buffer that never waits."""

    def offer(self, msg: Msg) -> bool:
        """Buffer ``msg`` if there is room; ``False`` if there is none (it is not kept)."""
        ...


class PullConsumer:
    """Pulls from one durable consumer into a sink, driven by the subscriber's iteration.

    No task of its own: the iterating task calls ``wait()`` when its buffer is empty, which
    sends a pull request for at most ``room`` messages (expiring after ``poll_interval``) if
    none is open, and returns when a message arrived or the request ended. Messages are handed
    to the sink as they arrive, not when the batch fills.
    """

    def __init__(
        self,
        client: Client,
        stream: str,
        consumer: str,
        sink: PullSink,
        config: JetStreamConfig,
        reensure: Callable[[], Awaitable[None]],
    ) -> None:
        self.consumer = consumer
        self._client = client
        self._next = f"$JS.API.CONSUMER.MSG.NEXT.{stream}.{consumer}"
        self._inbox = client.new_inbox()
        self._sink = sink
        self._config = config
        self._reensure = reensure
        self._inbox_sub: NatsSubscription | None = None
        self._open_until = 0.0
        self._outstanding = 0
        self._problem: str | None = None
        self._failures = 0
        self._changed = anyio.Event()

    async def open(self) -> None:
        self._inbox_sub = await self._client.subscribe(self._inbox, cb=self._on_msg)

    async def close(self) -> None:
        self._changed.set()
        if self._inbox_sub is not None:
            sub, self._inbox_sub = self._inbox_sub, None
            with anyio.move_on_after(5.0, shield=True):
                try:
                    await sub.unsubscribe()
                except nats.errors.Error as exc:
                    log.debug("closing pull consumer %s: %s", self.consumer, exc)

    async def _on_msg(self, msg: NatsMsg) -> None:
        status = msg.headers.get("Status") if msg.headers else None
        if status is None:
            self._outstanding -= 1
            if self._outstanding <= 0:
                self._open_until = 0.0
            if not self._sink.offer(from_jetstream(msg, self._config.max_deliver)):
                with contextlib.suppress(nats.errors.Error):
                    await msg.nak()
        elif status != "100":
            if status not in ("404", "408"):
                description = msg.headers.get("Description", "") if msg.headers else ""
                self._problem = f"status {status} {description}".strip()
            self._open_until = 0.0
        self._changed.set()

    async def wait(self, room: int) -> None:
        """Return once a message was delivered or the open pull request ended."""
        changed = self._changed = anyio.Event()
        now = anyio.current_time()
        if now >= self._open_until:
            if self._problem is not None:
                await self._recover()
                return
            if not self._client.is_connected:
                if self._client.is_closed:
                    raise BusClosedError("the bus connection is closed; create a new bus")
                await anyio.sleep(min(self._config.poll_interval, 0.5))
                return
            batch = max(1, min(room, self._config.fetch_batch))
            expires = int(self._config.poll_interval * 1e9)
            request = json.dumps({"batch": batch, "expires": expires}).encode()
            try:
                await self._client.publish(self._next, request, reply=self._inbox)
            except nats.errors.ConnectionClosedError as exc:
                raise BusClosedError("the bus connection is closed; create a new bus") from exc
            self._outstanding = batch
            self._open_until = now + self._config.poll_interval + 2.0
        with anyio.move_on_after(self._open_until - now):
            await changed.wait()

    async def _recover(self) -> None:
        log.warning(
            "pull from consumer %s failed (%s); retrying in %.1fs",
            self.consumer,
            self._problem,
            _RECOVER.delay(self._failures),
        )
        self._problem = None
        await _RECOVER.sleep(self._failures)
        self._failures += 1
        try:
            await self._reensure()
        except BusError as exc:
            log.warning("could not restore consumer %s: %s", self.consumer, exc)
            return
        self._failures = 0
