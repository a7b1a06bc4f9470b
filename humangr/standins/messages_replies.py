"""The stand-in Messages API server's scripted replies and its record of each request."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

__all__ = [
    "ApiError",
    "FakeUsage",
    "Hangup",
    "Interrupted",
    "Latency",
    "Raw",
    "RecordedRequest",
    "Reply",
    "Slow",
    "Text",
    "ToolUse",
]


@dataclass(frozen=True, slots=True)
class FakeUsage:
    input_tokens: int = 10
    output_tokens: int = 5
    cache_creation_input_tokens: int = 0
    cache_read_input_tokens: int = 0


@dataclass(frozen=True, slots=True)
class Latency:
    """How long a message reply takes: a stream begins after ``first_byte_s`` and ends at
    ``total_s``; a whole (non-streamed) reply comes at ``total_s``."""

    first_byte_s: float = 0.0
    total_s: float = 0.0

    def __post_init__(self) -> None:
        if not 0 <= self.first_byte_s <= self.total_s:
            raise ValueError("a latency needs 0 <= first_byte_s <= total_s")


@dataclass(frozen=True, slots=True)
class ToolUse:
    """A 200 reply whose content is one ``tool_use`` block (named after ``tool_choice``);
    without ``usage`` the server counts the tokens and applies its prompt cache."""

    input: Any
    name: str | None = None
    usage: FakeUsage | None = None
    model: str | None = None
    stop_reason: str = "tool_use"


@dataclass(frozen=True, slots=True)
class Text:
    """A 200 reply whose content is one text block (usage as for ``ToolUse``)."""

    text: str
    usage: FakeUsage | None = None
    model: str | None = None
    stop_reason: str = "end_turn"


@dataclass(frozen=True, slots=True)
class ApiError:
    """An error reply in the API's format: ``{"type": "error", "error": {...}}``."""

    status: int
    error_type: str
    message: str
    headers: Mapping[str, str] = field(default_factory=dict)

    @classmethod
    def rate_limited(
        cls, retry_after: float | None = None, *, retry_after_ms: float | None = None
    ) -> ApiError:
        headers = {}
        if retry_after is not None:
            headers["retry-after"] = f"{retry_after:g}"
        if retry_after_ms is not None:
            headers["retry-after-ms"] = f"{retry_after_ms:g}"
        return cls(
            429, "rate_limit_error", "Number of request tokens has exceeded your limit.", headers
        )

    @classmethod
    def overloaded(cls, retry_after: float | None = None) -> ApiError:
        headers = {} if retry_after is None else {"retry-after": f"{retry_after:g}"}
        return cls(529, "overloaded_error", "Overloaded", headers)

    @classmethod
    def server_error(cls) -> ApiError:
        return cls(500, "api_error", "Internal server error")


@dataclass(frozen=True, slots=True)
class Raw:
    """Any bytes at all, e.g. a malformed JSON body."""

    body: bytes
    status: int = 200
    content_type: str = "application/json"
    headers: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Slow:
    """Wait ``delay_s`` seconds before sending ``then`` (to trip the client's timeout)."""

    delay_s: float
    then: Reply


@dataclass(frozen=True, slots=True)
class Interrupted:
    """A reply that breaks off: a stream sends ``message_start`` and its first block's start,
    then ``error`` as an ``error`` event (``None``: the connection closes); a whole reply is
    ``error`` itself (``None``: the connection closes without an answer)."""

    error: ApiError | None = None


@dataclass(frozen=True, slots=True)
class Hangup:
    """The connection closes without a byte of reply."""


Reply = ToolUse | Text | ApiError | Raw | Slow | Interrupted | Hangup


@dataclass(slots=True)
class RecordedRequest:
    """A request as the server received it (header names lowercased). ``received_at``,
    ``began_at`` and ``ended_at`` (when its message reply began and was sent whole, if it was)
    are ``time.monotonic()`` readings; ``usage`` is what its reply reported."""

    method: str
    path: str
    headers: Mapping[str, str]
    body: bytes
    received_at: float = 0.0
    began_at: float | None = None
    ended_at: float | None = None
    usage: dict[str, int] | None = None

    @property
    def streamed(self) -> bool:
        """Whether the request asked for a stream."""
        try:
            return bool(json.loads(self.body).get("stream") is True)
        except (ValueError, AttributeError):
            return False

    def json(self) -> Any:
        return json.loads(self.body)
