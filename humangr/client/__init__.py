"""The agent's side of HUMANGR: ``connect`` (async), ``connect_sync``, ``review`` and ``guard``.

Light on purpose: the embedded engine (``humangr.actors.roles``) and nats-py are imported only
when a client needs them."""

from __future__ import annotations

from .client import Client, as_action, connect
from .guard import Guard, NeedsReview, ToolOptions
from .options import ConnectOptions
from .sync import SyncClient, connect_sync
from .tool_call import ArgumentError, PreparedCall, prepare_call, tool_action

__all__ = [
    "ArgumentError",
    "Client",
    "ConnectOptions",
    "Guard",
    "NeedsReview",
    "PreparedCall",
    "SyncClient",
    "ToolOptions",
    "as_action",
    "connect",
    "connect_sync",
    "prepare_call",
    "tool_action",
]
