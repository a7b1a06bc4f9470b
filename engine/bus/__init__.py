"""Buses: the ``Bus`` protocol and its implementations."""

from typing import TYPE_CHECKING, Any

from .base import (
    DEFAULT_MAX_PENDING,
    Acknowledger,
    Bus,
    Exhausted,
    ExhaustedSource,
    Headers,
    Msg,
    Subscription,
)
from .memory import DEFAULT_MAX_WAIT, MemoryBus

if TYPE_CHECKING:
    from .jetstream import JetStreamConfig
    from .nats import NatsBus

__all__ = [
    "DEFAULT_MAX_PENDING",
    "DEFAULT_MAX_WAIT",
    "Acknowledger",
    "Bus",
    "Exhausted",
    "ExhaustedSource",
    "Headers",
    "JetStreamConfig",
    "MemoryBus",
    "Msg",
    "NatsBus",
    "Subscription",
]


def __getattr__(name: str) -> Any:
    """``NatsBus`` and ``JetStreamConfig`` are imported on first use (they load nats-py)."""
    if name == "NatsBus":
        from .nats import NatsBus

        return NatsBus
    if name == "JetStreamConfig":
        from .jetstream import JetStreamConfig

        return JetStreamConfig
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
