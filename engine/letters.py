"""Dead letters as the engine writes them: secrets redacted from the error and the raw bytes,
every field cut to its bound."""

from __future__ import annotations

from humangr.contracts import DeadLetter
from humangr.contracts.system import DEAD_LETTER_MAX_BYTES
from humangr.engine.redact import redact_secrets

__all__ = ["dead_letter", "redacted_bytes"]

_REDACT_WINDOW = 4 * DEAD_LETTER_MAX_BYTES


def dead_letter(
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
    return DeadLetter(
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
