"""The kit's stand-in Messages API: ``FakeAnthropic`` and its replies
(``humangr.standins.messages_api``)."""

from humangr.standins.messages_api import (
    ApiError,
    FakeAnthropic,
    FakeUsage,
    Hangup,
    Interrupted,
    Latency,
    Raw,
    RecordedRequest,
    Reply,
    Slow,
    Text,
    ToolUse,
)

__all__ = [
    "ApiError",
    "FakeAnthropic",
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
