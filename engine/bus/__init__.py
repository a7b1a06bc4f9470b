"""Buses: the ``Bus`` protocol and its implementations."""

from .base import DEFAULT_MAX_PENDING, Acknowledger, Bus, Headers, Msg, Subscription
from .memory import MemoryBus

__all__ = [
    "DEFAULT_MAX_PENDING",
    "Acknowledger",
    "Bus",
    "Headers",
    "MemoryBus",
    "Msg",
    "Subscription",
]
