"""Messages of the runtime itself."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

import msgspec
from msgspec import Meta

from humangr.engine.redact import redact_secrets

from .types import ShortText, utc_now

__all__ = ["DEAD_LETTER_MAX_BYTES", "DeadLetter", "redacted_bytes"]

DEAD_LETTER_MAX_BYTES = 4_096
_REDACT_WINDOW = 4 * DEAD_LETTER_MAX_BYTES


class DeadLetter(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """A message an actor refused, with why (``hl.dlq``).

    ``raw`` holds the first bytes of a message that could not be decoded, with what a secret
    detector finds redacted; it is empty for a message that was decoded and then refused (by a
    handler, or after a handler failed): ``correlation_id`` and ``error`` say what it was.
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

    @classmethod
    def of(
        cls,
        subject: str,
        error: str,
        raw: bytes = b"",
        *,
        actor: str = "",
        deliveries: int = 1,
        correlation_id: str = "",
        raw_size: int | None = None,
        lost: int = 0,
        stream_sequence: int = 0,
    ) -> DeadLetter:
        """A dead letter for ``raw``: secrets redacted from it and from ``error``, both cut to
        their bounded sizes. ``raw_size`` defaults to the size of ``raw``."""
        return cls(
            subject=subject[:512] or "?",
            error=redact_secrets(error[:4_000])[:2_000],
            raw=redacted_bytes(raw),
            raw_size=len(raw) if raw_size is None else raw_size,
            actor=actor[:128],
            deliveries=deliveries,
            correlation_id=correlation_id[:128],
            lost=lost,
            stream_sequence=stream_sequence,
        )


def redacted_bytes(raw: bytes, limit: int = DEAD_LETTER_MAX_BYTES) -> bytes:
    """The first ``limit`` bytes of ``raw`` with secrets redacted; bytes that are not UTF-8
    are kept as they are. Redaction looks further than ``limit`` so that a secret crossing
    the cut is still found."""
    if not raw:
        return b""
    text = raw[:_REDACT_WINDOW].decode("utf-8", "surrogateescape")
    return redact_secrets(text).encode("utf-8", "surrogateescape")[:limit]
