"""Messages an actor never handled: each loss becomes a dead letter, nothing goes silently.

A subscription that fell behind (``SlowConsumerError``: NATS core dropped messages for a full
mailbox, or a ``MemoryBus`` publish gave up waiting for room) is one letter naming the subject
and, in ``lost``, how many messages were lost. A durable message that exhausted its deliveries
without a handler ever finishing it (its worker died, or hung past the ack wait, every time)
is one letter naming its subject, delivery count, stream sequence and consumer: the bus's
``watch_exhausted`` removed it from the stream for this system, of all the systems watching
in any process, to report. Only a system allowed to read and delete any work message watches
(``ActorSystem(claim_exhausted=True)``: the Supervisor's, or the all-in-one ``serve``); it
reports the messages of every consumer, naming the local actor when the consumer is one of
its own routes, else the consumer's queue group.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

import anyio
from anyio.abc import TaskStatus

from humangr.contracts import DeadLetter
from humangr.engine.bus import Exhausted, ExhaustedSource
from humangr.engine.errors import BusClosedError, SlowConsumerError
from humangr.engine.letters import dead_letter

from .base import Route
from .delivery import Delivery
from .letters import payload_correlation

__all__ = ["exhausted_letter", "report_exhausted", "report_slow_consumer"]

Owner = Callable[[Exhausted], tuple[Delivery, Route[Any]]]
"""The delivery and route that report an exhausted message (by its consumer)."""
_REOPEN_S = 1.0
_LETTER_S = 10.0

log = logging.getLogger("humangr.actor")


async def report_slow_consumer(
    delivery: Delivery, route: Route[Any], exc: SlowConsumerError
) -> None:
    """Dead-letter the messages a slow subscription lost: subject, count, why."""
    log.error("actor %s: %s", delivery.actor_name, exc)
    delivery.stats.lost += exc.dropped
    delivery.system.metrics.messages_lost.labels(route.subject).inc(exc.dropped)
    letter = dead_letter(
        route.subject, str(exc), actor=delivery.actor_name, deliveries=0, lost=exc.dropped
    )
    await delivery.publish_letter(route, letter, "lost")


def exhausted_letter(record: Exhausted, actor: str) -> DeadLetter:
    """The dead letter of a durable message that exhausted its deliveries (no raw bytes: its
    correlation id, when the payload names one, says what it was)."""
    error = (
        f"not acknowledged after {record.deliveries} deliveries (max_deliver): its handler "
        "never finished within the ack wait, or its worker stopped, every time; removed from "
        f"stream {record.stream} (sequence {record.sequence}, consumer {record.consumer})"
    )
    return dead_letter(
        record.subject,
        error,
        actor=actor,
        deliveries=record.deliveries,
        correlation_id=payload_correlation(record.data),
        raw_size=len(record.data),
        stream_sequence=record.sequence,
    )


async def report_exhausted(
    bus: ExhaustedSource, owner: Owner, *, task_status: TaskStatus[None] = anyio.TASK_STATUS_IGNORED
) -> None:
    """Watch ``bus`` (ready once the watch listens, before any consumer pulls) and
    dead-letter, until cancelled or the bus closes, each exhausted message the watch claimed,
    through the delivery and route ``owner`` names for its consumer. A failing watch is
    opened again (logged): advisories sent meanwhile are missed, their messages stay stored."""
    started = False
    while True:
        try:
            async with bus.watch_exhausted() as records:
                if not started:
                    started = True
                    task_status.started()
                async for record in records:
                    # claimed, so removed: its letter must go out (bounded, even when cancelled)
                    with anyio.move_on_after(_LETTER_S, shield=True):
                        await _report(record, *owner(record))
            return
        except BusClosedError:
            if not started:
                raise
            return
        except Exception as exc:
            if not started:
                raise
            log.error("the watch of exhausted messages failed (%s); opening it again", exc)
            await anyio.sleep(_REOPEN_S)


async def _report(record: Exhausted, delivery: Delivery, route: Route[Any]) -> None:
    letter = exhausted_letter(record, delivery.actor_name)
    # an agent's submission (its own subject, by the server's permissions): it is told too
    sender = delivery.system.subjects.submitter(record.subject) or ""
    if await delivery.publish_letter(route, letter, "max_deliver", sender=sender):
        delivery.system.metrics.max_deliver_dead_letters.labels(route.subject).inc()
    else:
        log.error(
            "message %d of stream %s (%s) exhausted its deliveries and was removed, "
            "but its dead letter was lost",
            record.sequence,
            record.stream,
            record.subject,
        )
