"""Messages about the engine's own processes: a submission's receipt, a layer worker's
heartbeat."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

import msgspec
from msgspec import Meta

from .enums import LayerID
from .types import utc_now

__all__ = ["HEARTBEAT_INTERVAL_S", "SubmitReceipt", "WorkerHeartbeat"]

HEARTBEAT_INTERVAL_S = 5.0
"""How often a layer worker announces itself; the Supervisor forgets a worker not heard of
for three intervals."""


class SubmitReceipt(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """The Supervisor's answer to a submission sent as a request (core NATS, ``MemoryBus``):
    it holds the submission and will publish a decision or a dead letter for it. On JetStream
    the stream's own acknowledgement says that the submission is stored instead."""

    subject: Annotated[str, Meta(min_length=1, max_length=512)]
    """The subject the submission arrived on."""
    size: Annotated[int, Meta(ge=0)] = 0
    """The submission's size in bytes, as received."""
    actor: Annotated[str, Meta(max_length=128)] = ""


class WorkerHeartbeat(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """A layer worker process says what it can serve (``hl.workers.heartbeat``), at start and
    every ``HEARTBEAT_INTERVAL_S``: the Supervisor plans LLM runs only for layers that some
    worker can run them on."""

    worker: Annotated[str, Meta(min_length=1, max_length=128)]
    """This worker process's id (random per start)."""
    layers: Annotated[list[LayerID], Meta(max_length=7)] = []
    """The layers it serves."""
    llm: bool = False
    """Whether it has an LLM configured: without one it serves local checks only."""
    model: Annotated[str, Meta(max_length=128)] = ""
    """The model its LLM calls use, when known."""
    interval_s: Annotated[float, Meta(gt=0, le=3600)] = HEARTBEAT_INTERVAL_S
    """When to expect the next heartbeat."""
    stopping: bool = False
    """The last heartbeat of a worker that stops: forget it now."""
    sent_at: datetime = msgspec.field(default_factory=utc_now)
    signer: Annotated[str, Meta(max_length=64)] | None = None
    """The worker's public key (the one its layer reports are signed with)."""
    signature: Annotated[str, Meta(max_length=128)] | None = None
    """ed25519 signature by ``signer`` over every other field: a heartbeat of a key the
    Supervisor does not trust is ignored, so nobody else can make a layer local checks only."""
