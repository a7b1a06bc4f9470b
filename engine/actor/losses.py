"""Messages an actor never handled: each loss becomes a dead letter, nothing goes silently.

A subscription that fell behind (``SlowConsumerError``: NATS core dropped messages for a full
mailbox, or a ``MemoryBus`` publish gave up waiting for room) is one letter naming the subject
and, in ``lost``, how many messages were lost. A durable message that exhausted its deliveries
without a handler ever finishing it (its worker died, or hung past the ack wait, every time)
is one letter naming its subject, delivery count and stream sequence: the bus removed it from
the stream for this actor, of all those sharing the consumer in any process, to report.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from humangr.contracts import DeadLetter
from humangr.engine.bus import Exhausted, ExhaustedSource
from humangr.engine.errors import BusClosedError, SlowConsumerError

from .base import Route
from .letters import payload_correlation

if TYPE_CHECKING:
    from .delivery import Delivery

__all__ = ["exhausted_letter", "report_exhausted", "report_slow_consumer"]

log = logging.getLogger("humangr.actor")


async def report_slow_consumer(
    delivery: Delivery, route: Route[Any], exc: SlowConsumerError
) -> None:
    """Dead-letter the messages a slow subscription lost: subject, count, why."""
    log.error("actor %s: %s", delivery.actor_name, exc)
    delivery.stats.lost += exc.dropped
    delivery.system.metrics.messages_lost.labels(route.subject).inc(exc.dropped)
    letter = DeadLetter.of(
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
    return DeadLetter.of(
        record.subject,
        error,
        actor=actor,
        deliveries=record.deliveries,
        correlation_id=payload_correlation(record.data),
        raw_size=len(record.data),
        stream_sequence=record.sequence,
    )


async def report_exhausted(delivery: Delivery, route: Route[Any], sub: ExhaustedSource) -> None:
    """Dead-letter, until the subscription ends, each message that exhausted its deliveries
    and that this subscription claimed."""
    try:
        async for record in sub.exhausted():
            letter = exhausted_letter(record, delivery.actor_name)
            if await delivery.publish_letter(route, letter, "max_deliver"):
                delivery.system.metrics.max_deliver_dead_letters.labels(route.subject).inc()
            else:
                log.error(
                    "message %d of stream %s (%s) exhausted its deliveries and was removed, "
                    "but its dead letter was lost",
                    record.sequence,
                    record.stream,
                    record.subject,
                )
    except BusClosedError:
        return
