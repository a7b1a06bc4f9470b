"""Bounded scalar types shared by the messages (``msgspec.Meta`` limits)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated

from msgspec import Meta

__all__ = [
    "MAX_DIFF_BYTES",
    "Body",
    "Count",
    "Hash",
    "LongText",
    "Millis",
    "Name",
    "Path",
    "Ratio",
    "ShortText",
    "Title",
    "Token",
    "utc_now",
]

MAX_DIFF_BYTES = 1_000_000
"""The one size limit of a diff or artifact, in UTF-8 bytes: the schema (as characters, which a
text within the byte limit never exceeds), the engine, the CLI and MCP all use it; an engine may
be configured lower, never higher."""

Token = Annotated[
    str,
    Meta(
        pattern=r"^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$",
        description="An identifier that is also a valid NATS subject token.",
    ),
]
Name = Annotated[str, Meta(min_length=1, max_length=128)]
Title = Annotated[str, Meta(min_length=1, max_length=200)]
ShortText = Annotated[str, Meta(max_length=2_000)]
LongText = Annotated[str, Meta(max_length=20_000)]
Body = Annotated[
    str,
    Meta(
        max_length=MAX_DIFF_BYTES,
        description=f"Text of at most {MAX_DIFF_BYTES:,} bytes (UTF-8).",
    ),
]
Path = Annotated[str, Meta(min_length=1, max_length=512)]
Hash = Annotated[str, Meta(pattern=r"^[0-9a-f]{64}$")]
Count = Annotated[int, Meta(ge=0)]
Millis = Annotated[float, Meta(ge=0)]
Ratio = Annotated[float, Meta(ge=0.0, le=1.0)]


def utc_now() -> datetime:
    """The current time, timezone-aware in UTC."""
    return datetime.now(UTC)
