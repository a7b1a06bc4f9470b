"""``StrictLLM``: the enforcer's view of an ``LLMClient`` — one deadline per attempt, and
exactly one JSON object per structured reply (anything more is ``LLMReplyInvalid``, repaired)."""

from __future__ import annotations

from collections.abc import Callable

import anyio

from humangr.engine.llm import LLMClient, LLMReply, LLMReplyInvalid, LLMRequest, LLMTransportError
from humangr.engine.llm.schema import schema_name

from .parse import reply_problems

__all__ = ["StrictLLM"]


class StrictLLM:
    """Wraps an ``LLMClient`` for the enforcer: a deadline per attempt, and a structured reply
    that is more than one JSON object (prose beside the tool call, text around the JSON,
    unknown fields) becomes ``LLMReplyInvalid`` so that it is repaired."""

    def __init__(
        self,
        inner: LLMClient,
        *,
        timeout: float,
        on_reject: Callable[[str], None] = lambda gate: None,
    ) -> None:
        self.inner = inner
        self.timeout = timeout
        self.on_reject = on_reject

    async def complete(self, request: LLMRequest) -> LLMReply:
        reply: LLMReply | None = None
        with anyio.move_on_after(self.timeout):
            try:
                reply = await self.inner.complete(request)
            except LLMReplyInvalid as exc:
                problems = reply_problems(exc.raw)
                self.on_reject("json" if problems else "schema")
                if not problems:
                    raise
                raise LLMReplyInvalid(
                    exc.schema_name,
                    [*exc.errors, *problems],
                    raw=exc.raw,
                    usage=exc.usage,
                    model=exc.model,
                ) from None
        if reply is None:
            raise LLMTransportError(
                f"no reply within {self.timeout:g}s (limits.timeout_sec)",
                reason="timeout",
                retryable=True,
            )
        if request.schema is not None:
            problems = reply_problems(reply.raw, reply.text)
            if problems:
                self.on_reject("json")
                raise LLMReplyInvalid(
                    schema_name(request.schema),
                    problems,
                    raw=reply.raw,
                    usage=reply.usage,
                    model=reply.model,
                )
        return reply
