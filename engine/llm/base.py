"""The ``LLMClient`` protocol and its request and reply types."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol, runtime_checkable

from humangr.contracts import Usage

__all__ = [
    "MATCH_TAGS",
    "MAX_CACHE_BREAKPOINTS",
    "LLMClient",
    "LLMReply",
    "LLMRequest",
    "Message",
    "SystemBlock",
]

MAX_CACHE_BREAKPOINTS = 4
"""The Messages API accepts at most four ``cache_control`` breakpoints per request."""

MATCH_TAGS = frozenset(
    {"layer", "agent", "variant", "mode", "task_id", "project_id", "action_id", "run", "repair"}
)
"""Tag names a ``ScriptedLLM`` script may match on (requests may carry other tags too)."""


@dataclass(frozen=True, slots=True)
class SystemBlock:
    """One block of the system prompt. ``cache=True`` ends the cacheable shared prefix."""

    text: str
    cache: bool = False


@dataclass(frozen=True, slots=True)
class Message:
    """One conversational turn."""

    role: Literal["user", "assistant"]
    content: str


@dataclass(frozen=True, slots=True, kw_only=True)
class LLMRequest:
    """Everything one LLM call needs.

    ``system`` lists the shared, cacheable prefix first (its last block has ``cache=True``) and
    the call-specific part after it. ``schema`` is a msgspec type: the reply is then structured
    and decoded into it. ``tags`` (e.g. ``{"layer": "HL4", "action_id": ...}``) route scripted
    replies and label metrics and logs; they are never sent to the model.
    """

    system: tuple[SystemBlock, ...]
    messages: tuple[Message, ...]
    schema: type[Any] | None = None
    max_tokens: int = 4096
    temperature: float | None = None
    tags: Mapping[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not self.messages:
            raise ValueError("an LLMRequest needs at least one message")
        if self.messages[0].role != "user":
            raise ValueError("the first message of an LLMRequest must come from the user")
        if self.max_tokens < 1:
            raise ValueError(f"max_tokens must be >= 1, got {self.max_tokens}")
        breakpoints = sum(block.cache for block in self.system)
        if breakpoints > MAX_CACHE_BREAKPOINTS:
            raise ValueError(
                f"{breakpoints} cache breakpoints in the system prompt; at most "
                f"{MAX_CACHE_BREAKPOINTS} are allowed"
            )

    @property
    def shared_prefix(self) -> tuple[SystemBlock, ...]:
        """The system blocks up to and including the last cache breakpoint."""
        last = max((i for i, block in enumerate(self.system) if block.cache), default=-1)
        return self.system[: last + 1]

    def with_messages(self, *extra: Message, tags: Mapping[str, str] | None = None) -> LLMRequest:
        """A copy with ``extra`` turns appended and ``tags`` merged in (used by repairs)."""
        merged = {**self.tags, **(tags or {})}
        return LLMRequest(
            system=self.system,
            messages=(*self.messages, *extra),
            schema=self.schema,
            max_tokens=self.max_tokens,
            temperature=self.temperature,
            tags=merged,
        )


@dataclass(frozen=True, slots=True, kw_only=True)
class LLMReply:
    """What came back: ``data`` is the decoded structured value when a schema was requested,
    ``text`` the prose otherwise; ``raw`` is the reply as received (JSON or text)."""

    text: str | None
    data: Any
    raw: str
    usage: Usage
    model: str
    stop_reason: str | None = None


@runtime_checkable
class LLMClient(Protocol):
    """Anything that can answer an ``LLMRequest``.

    ``complete`` raises ``engine.errors.LLMError``: ``LLMTransportError`` when the call failed,
    ``LLMReplyInvalid`` when the reply does not match ``request.schema`` (carrying the raw
    reply, for a repair). Cancellation propagates; it is never turned into an error.
    """

    async def complete(self, request: LLMRequest) -> LLMReply: ...
