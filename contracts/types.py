"""Bounded scalar types shared by the messages (``msgspec.Meta`` limits), and ``_Frozen``, the
strict base of the review side's messages."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import Annotated

import msgspec
from msgspec import Meta

__all__ = [
    "END",
    "MAX_DIFF_BYTES",
    "TOKEN_PATTERN",
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
    "is_token",
    "utc_now",
]

MAX_DIFF_BYTES = 1_000_000
"""The one size limit of a diff or artifact, in UTF-8 bytes: the schema (as characters, which a
text within the byte limit never exceeds), the engine, the CLI and MCP all use it; an engine may
be configured lower, never higher."""

TOKEN_PATTERN = r"[A-Za-z0-9][A-Za-z0-9_-]{0,63}"
"""An identifier that is also one NATS subject token (action, agent, report ids)."""
END = r"(?![\s\S])"
"""The end of the text, in a pattern. ``$`` also accepts a final newline (in Python, and so in
msgspec, which searches with ``re``): ``"agent\n"`` would pass as an id and reach a subject."""

Token = Annotated[
    str,
    Meta(
        pattern=f"^{TOKEN_PATTERN}{END}",
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
Hash = Annotated[str, Meta(pattern=f"^[0-9a-f]{{64}}{END}")]
Count = Annotated[int, Meta(ge=0)]
Millis = Annotated[float, Meta(ge=0)]
Ratio = Annotated[float, Meta(ge=0.0, le=1.0)]


class _Frozen(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Frozen, keyword-only, and strict: an unknown field (a misspelled ``code_diff``) is an
    error naming its JSON path, never an empty value that approves."""


def utc_now() -> datetime:
    """The current time, timezone-aware in UTC."""
    return datetime.now(UTC)


_TOKEN = re.compile(TOKEN_PATTERN)


def is_token(value: object) -> bool:
    """Whether ``value`` is a ``Token``: a string that is one identifier, nothing around it."""
    return isinstance(value, str) and _TOKEN.fullmatch(value) is not None
