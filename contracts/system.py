"""Messages of the runtime itself."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

import msgspec
from msgspec import Meta

from .types import ShortText, utc_now

__all__ = ["DEAD_LETTER_MAX_BYTES", "DeadLetter"]

DEAD_LETTER_MAX_BYTES = 4_096


class DeadLetter(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """A message an actor refused, with why (``hl.dlq``).

    ``raw`` holds the first bytes of a message that could not be decoded, with what a secret
    detector finds redacted (``humangr.engine.letters.dead_letter`` makes letters so); it is
    empty for a message that was decoded and then refused (by a handler, or after a handler
    failed): ``correlation_id`` and ``error`` say what it was.
    ``raw_size`` is the size of the message either way.

    A letter about messages a subscriber lost without receiving them (it fell behind) says how
    many in ``lost`` and has ``deliveries`` 0; a durable message that JetStream stopped
    redelivering names its ``stream_sequence``."""

    subject: Annotated[str, Meta(min_length=1, max_length=512)]
    error: ShortText
    raw: Annotated[bytes, Meta(max_length=DEAD_LETTER_MAX_BYTES)] = b""
    raw_size: Annotated[int, Meta(ge=0)] = 0
    actor: Annotated[str, Meta(max_length=128)] = ""
    deliveries: Annotated[int, Meta(ge=0)] = 1
    received_at: datetime = msgspec.field(default_factory=utc_now)
    correlation_id: Annotated[str, Meta(max_length=128)] = ""
    """The action id (or request id) the refused message was about, so that its sender can tell
    at once that it was refused; empty when it could not be read."""
    lost: Annotated[int, Meta(ge=0)] = 0
    """How many messages on ``subject`` were lost, never delivered to ``actor`` (a slow
    consumer); 0 for a letter about one message that was delivered."""
    stream_sequence: Annotated[int, Meta(ge=0)] = 0
    """The JetStream stream sequence of a durable message; 0 for a core message."""
