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
    """A message an actor refused, with why (``hl.dlq``)."""

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

    @classmethod
    def of(
        cls,
        subject: str,
        error: str,
        raw: bytes,
        *,
        actor: str = "",
        deliveries: int = 1,
        correlation_id: str = "",
    ) -> DeadLetter:
        """A dead letter for ``raw``, truncated to the bounded size, the error cut to fit."""
        return cls(
            subject=subject[:512] or "?",
            error=error[:2_000],
            raw=raw[:DEAD_LETTER_MAX_BYTES],
            raw_size=len(raw),
            actor=actor[:128],
            deliveries=deliveries,
            correlation_id=correlation_id[:128],
        )
