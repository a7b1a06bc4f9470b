"""Creating JetStream's streams and durable consumers for ``NatsBus``, tried again while a
cluster elects a stream's leader; an existing stream's replica count is never changed unasked."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import ParamSpec, TypeVar

import nats.errors
import nats.js.errors
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
from humangr.engine.errors import BusError, ReplicaMismatch

from .jetstream_config import JetStreamConfig, event_subjects, stream_names, work_subjects

__all__ = [
    "ELECTION_WAIT",
    "check_replicas",
    "ensure_consumer",
    "ensure_streams",
    "through_election",
]

T = TypeVar("T")
P = ParamSpec("P")


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
