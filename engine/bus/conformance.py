"""The bus conformance kit: checks that any ``Bus`` behaves like NATS, as the engine expects.

Each ``check_*`` takes a connected bus and a subject prefix of its own (so checks can share a
server) and raises ``AssertionError`` saying what misbehaved. ``check_close`` closes the bus,
so run it last or on a bus of its own.

A subscriber that falls behind is handled one of two ways, and a bus says which it does:
``"backpressure"`` (publishers wait for room: ``MemoryBus``) or ``"drop"`` (a full buffer drops
and the subscription reports how many: NATS core). ``checks_for(behaviour)`` is every check
for such a bus; ``ALL_CHECKS`` are those that hold whatever the behaviour. Usage::

    for check in checks_for("backpressure"):
        async with make_bus() as bus:
            await check(bus, f"conf.{uuid.uuid4().hex[:8]}")
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Literal

from .base import Bus
from .conformance_lifecycle import (
    check_backpressure,
    check_close,
    check_drops_reported,
    check_unsubscribe,
)
from .conformance_messaging import (
    check_headers,
    check_no_responders,
    check_ordering,
    check_payloads,
    check_queue_groups,
    check_request_reply,
    check_request_timeout,
    check_subject_validation,
    check_wildcards,
)

__all__ = [
    "ALL_CHECKS",
    "Check",
    "SlowConsumer",
    "check_backpressure",
    "check_close",
    "check_drops_reported",
    "check_headers",
    "check_no_responders",
    "check_ordering",
    "check_payloads",
    "check_queue_groups",
    "check_request_reply",
    "check_request_timeout",
    "check_subject_validation",
    "check_unsubscribe",
    "check_wildcards",
    "checks_for",
]

Check = Callable[[Bus, str], Awaitable[None]]
SlowConsumer = Literal["backpressure", "drop"]
"""What a bus does when a subscriber's buffer is full."""


ALL_CHECKS: list[Check] = [
    check_wildcards,
    check_ordering,
    check_queue_groups,
    check_request_reply,
    check_request_timeout,
    check_no_responders,
    check_headers,
    check_payloads,
    check_subject_validation,
    check_unsubscribe,
    check_close,
]
"""The checks every bus passes, whatever it does with a slow consumer; ``check_close`` is last
because it closes the bus."""

_SLOW_CONSUMER: dict[SlowConsumer, Check] = {
    "backpressure": check_backpressure,
    "drop": check_drops_reported,
}


def checks_for(slow_consumer: SlowConsumer) -> list[Check]:
    """Every check for a bus whose slow subscribers get ``"backpressure"`` or whose full
    buffers ``"drop"`` and report; ``check_close`` last."""
    if slow_consumer not in _SLOW_CONSUMER:
        raise ValueError(f"slow_consumer must be 'backpressure' or 'drop', not {slow_consumer!r}")
    return [*ALL_CHECKS[:-1], _SLOW_CONSUMER[slow_consumer], check_close]
