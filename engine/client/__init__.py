"""The agent's side of HUMANGR: ``connect`` (async), ``connect_sync``, ``review`` and ``guard``.

Light on purpose: the embedded engine (``humangr.engine.runtime``) and nats-py are imported only
when a client needs them."""

from __future__ import annotations

from .client import Client, as_action, connect
from .guard import Guard, NeedsReview
from .options import ConnectOptions
from .render import call_action
from .sync import SyncClient, connect_sync

__all__ = [
    "Client",
    "ConnectOptions",
    "Guard",
    "NeedsReview",
    "SyncClient",
    "as_action",
    "call_action",
    "connect",
    "connect_sync",
]
