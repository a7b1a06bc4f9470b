"""``MeteredLLM``: any ``LLMClient`` with its calls counted and timed and its tokens recorded."""

from __future__ import annotations

import time

import anyio

from humangr.engine.metrics import Metrics

from .base import LLMClient, LLMReply, LLMRequest
from .errors import LLMReplyInvalid

__all__ = ["MeteredLLM", "metered"]


class MeteredLLM:
    """Wraps an ``LLMClient``: every call feeds ``humangr_llm_calls_total{outcome}``
    (``ok``, ``invalid``, ``error``, ``cancelled``), ``humangr_llm_latency_seconds`` and
    ``humangr_llm_tokens_total{kind}``. Replies and errors pass through unchanged."""

    def __init__(self, inner: LLMClient, metrics: Metrics) -> None:
        self.inner = inner
        self.metrics = metrics

    def __repr__(self) -> str:
        return f"MeteredLLM({self.inner!r})"

    async def complete(self, request: LLMRequest) -> LLMReply:
        started = time.perf_counter()
        outcome = "error"
        usage = None
        try:
            reply = await self.inner.complete(request)
            outcome, usage = "ok", reply.usage
            return reply
        except LLMReplyInvalid as exc:
            outcome, usage = "invalid", exc.usage
            raise
        except anyio.get_cancelled_exc_class():
            outcome = "cancelled"
            raise
        finally:
            self.metrics.observe_llm_call(outcome, time.perf_counter() - started, usage)


def metered(llm: LLMClient, metrics: Metrics) -> LLMClient:
    """``llm`` itself when it already records its calls (it has a ``metrics`` set, as
    ``AnthropicLLM(metrics=...)`` or a ``MeteredLLM``), else ``llm`` wrapped in a ``MeteredLLM``."""
    if getattr(llm, "metrics", None) is not None:
        return llm
    return MeteredLLM(llm, metrics)
