"""``AnthropicLLM``: the ``LLMClient`` on the official ``anthropic`` SDK (``AsyncAnthropic``)."""

from __future__ import annotations

import hashlib
import json
import logging
import os
import time
from collections.abc import Mapping
from types import TracebackType
from typing import Any

import anthropic
import anyio

from humangr.contracts import Usage
from humangr.engine.backoff import Backoff
from humangr.engine.errors import ConfigError
from humangr.engine.metrics import Metrics
from humangr.engine.redact import redact_secrets, redact_url

from .anthropic_failures import TRANSPORT_ERRORS, classify
from .anthropic_messages import message_params, message_reply, message_usage
from .anthropic_watch import AttemptWatch
from .base import LLMReply, LLMRequest
from .errors import LLMReplyInvalid, LLMTransportError
from .retry import CallAttempts, RetryAfterRefused, RetryPolicy, watching
from .warmup import (
    CacheWarmer,
    WarmTurn,
    estimate_tokens,
    min_cacheable_tokens,
    warmup_settings,
)

__all__ = ["DEFAULT_MODEL", "AnthropicLLM"]

DEFAULT_MODEL = "claude-sonnet-4-5"
log = logging.getLogger("humangr.llm")
_STREAM_RETRY = Backoff(0.5, cap=8.0, jitter=0.25)
"""The wait before retrying a stream broken mid-way: the SDK's own schedule, which it does
not apply there (the response was already handed over)."""


class AnthropicLLM:
    """Calls the Messages API. Structured replies come through a forced tool call whose
    ``input_schema`` is the schema type's JSON Schema; the system prompt carries
    ``cache_control`` on the blocks that end the shared prefix.

    Transport retries are the SDK's (``max_retries``: 408, 409, 429, 5xx/529, timeouts and
    broken connections, waiting the server's ``retry-after`` or backing off exponentially with
    jitter); ``anthropic_watch.AttemptWatch`` counts each retry and refuses a ``retry-after`` above
    ``max_retry_after``, which the SDK cannot. A streamed reply that breaks after the SDK handed
    it over (an ``overloaded_error`` event mid-stream) is beyond the SDK's retries and is
    retried here, within the same ``max_retries`` in all.

    Cache warming (``cache_warming``, on by default): when the cacheable prefix (the tools and
    the system blocks up to the last breakpoint) is estimated above the model's minimum
    cacheable length, the first call with that prefix goes alone and the others wait until its
    response has begun (see ``warmup``). That first call streams (``stream=True``) and releases
    the others at ``message_start``; with ``stream=False`` it is a plain request and releases
    them ``warmup_delay_s`` after it was sent. No call waits more than ``warmup_max_wait_s``.
    Unset, these come from ``HUMANGR_CACHE_WARMING`` (``stream``, ``delay`` or ``off``) and
    ``HUMANGR_WARMUP_DELAY_MS`` (see ``warmup.warmup_settings``).
    A streamed reply is the same ``LLMReply`` as a plain one (the SDK assembles the message).
    """

    def __init__(
        self,
        *,
        api_key: str | None = None,
        model: str | None = None,
        base_url: str | None = None,
        timeout: float = 120.0,
        max_retries: int = 2,
        max_retry_after: float = 60.0,
        metrics: Metrics | None = None,
        cache_warming: bool | None = None,
        stream: bool | None = None,
        warmup_delay_s: float | None = None,
        warmup_max_wait_s: float = 30.0,
        cache_min_tokens: int | None = None,
    ) -> None:
        key = api_key if api_key is not None else os.environ.get("ANTHROPIC_API_KEY", "")
        if not key.strip():
            raise ConfigError(
                "ANTHROPIC_API_KEY is not set: export it, pass api_key=..., or review without "
                "an LLM (--llm none) or with a script (--llm scripted:FILE)"
            )
        if timeout <= 0:
            raise ConfigError(f"the LLM timeout must be > 0 seconds, got {timeout}")
        if warmup_max_wait_s < 0:
            raise ConfigError("the warm-up's maximum wait must be >= 0 seconds")
        warmup = warmup_settings(cache_warming, stream, warmup_delay_s)
        if cache_min_tokens is not None and cache_min_tokens < 1:
            raise ConfigError(f"cache_min_tokens must be >= 1, got {cache_min_tokens}")
        self.model = model or os.environ.get("HUMANGR_MODEL") or DEFAULT_MODEL
        self.timeout = timeout
        try:
            self.retry = RetryPolicy(max_retries, max_retry_after)
        except ValueError as exc:
            raise ConfigError(f"LLM retries: {exc}") from None
        self.metrics = metrics
        self._secret = key
        self.stream = warmup.stream
        self.cache_min_tokens = cache_min_tokens
        hold = warmup_max_wait_s if warmup.stream else min(warmup_max_wait_s, warmup.delay_s)
        self.warmer = CacheWarmer(hold_s=hold) if warmup.enabled else None
        self._client = anthropic.AsyncAnthropic(
            api_key=key,
            base_url=base_url,
            timeout=timeout,
            max_retries=max_retries,
            middleware=[AttemptWatch(self.retry)],
        )

    def __repr__(self) -> str:
        base_url = redact_url(str(self._client.base_url))
        return f"AnthropicLLM(model={self.model!r}, base_url={base_url!r})"

    async def aclose(self) -> None:
        await self._client.close()

    async def __aenter__(self) -> AnthropicLLM:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()

    async def complete(self, request: LLMRequest) -> LLMReply:
        """One call, with transport retries; see ``LLMClient.complete``."""
        started = time.perf_counter()
        outcome = "error"
        usage: Usage | None = None
        try:
            params = self.params(request)
            key = self.warm_key(params)
            if key is None or self.warmer is None:
                message = await self._create(params, request.tags, None)
            else:
                async with self.warmer.turn(key) as turn:
                    message = await self._create(params, request.tags, turn)
            usage = message_usage(message)
            reply = self._reply(message, request, usage)
            outcome = "ok"
            return reply
        except LLMReplyInvalid:
            outcome = "invalid"
            raise
        except anyio.get_cancelled_exc_class():
            outcome = "cancelled"
            raise
        finally:
            self._record(outcome, time.perf_counter() - started, usage)

    def params(self, request: LLMRequest) -> dict[str, Any]:
        """The keyword arguments of ``messages.create`` for ``request``."""
        return message_params(self.model, request)

    def warm_key(self, params: Mapping[str, Any]) -> bytes | None:
        """The hash of the cacheable prefix of a call with ``params`` when it is worth warming
        (estimated at or above the model's minimum cacheable length), else ``None``."""
        system = params.get("system") or []
        last = max((i for i, b in enumerate(system) if "cache_control" in b), default=-1)
        if last < 0:
            return None
        prefix = json.dumps(
            [params["model"], params.get("tools"), system[: last + 1]],
            ensure_ascii=False,
            sort_keys=True,
        )
        minimum = self.cache_min_tokens or min_cacheable_tokens(str(params["model"]))
        if estimate_tokens(len(prefix)) < minimum:
            return None
        return hashlib.sha256(prefix.encode()).digest()

    async def _create(
        self, params: dict[str, Any], tags: Mapping[str, str], turn: WarmTurn | None
    ) -> Any:
        streamed = turn is not None and turn.leader and self.stream
        call = CallAttempts(
            on_retry=lambda reason, number: self._retrying(reason, number, tags),
            on_failure=turn.release if turn is not None else lambda: None,
        )
        with watching(call):
            while True:
                try:
                    if streamed and turn is not None:
                        return await self._stream(params, turn, call)
                    message = await self._client.messages.create(**params)
                    if turn is not None:
                        turn.started()
                    return message
                except RetryAfterRefused as exc:
                    raise LLMTransportError(
                        str(exc),
                        reason=exc.reason,
                        status=exc.status,
                        attempts=call.attempts,
                        retryable=True,
                    ) from None
                except TRANSPORT_ERRORS as exc:
                    if turn is not None:
                        turn.release()
                    failure = classify(exc, self.timeout, str(self._client.base_url))
                    error = exc
                # The SDK retried what it could; a stream broken after it was handed over
                # (``_broke_mid_stream``) is retried here, as long as attempts are left.
                if not (
                    failure.retryable
                    and _broke_mid_stream(error)
                    and call.attempts <= self.retry.max_retries
                ):
                    tail = f" (gave up after {call.attempts} attempts)" if failure.retryable else ""
                    raise LLMTransportError(
                        self._redact(failure.problem + tail),
                        reason=failure.reason,
                        status=failure.status,
                        attempts=max(call.attempts, 1),
                        retryable=failure.retryable,
                    ) from None
                self._retrying(failure.reason, call.attempts, tags)
                await _STREAM_RETRY.sleep(call.attempts - 1)

    def _retrying(self, reason: str, number: int, tags: Mapping[str, str]) -> None:
        """Count and log retry ``number`` of a call, after a failure for ``reason``."""
        log.info("LLM call failed (%s), retry %d; tags %s", reason, number, dict(tags))
        if self.metrics is not None:
            self.metrics.retries.labels(reason=reason).inc()

    async def _stream(self, params: dict[str, Any], turn: WarmTurn, call: CallAttempts) -> Any:
        """One streamed call: ``turn`` is started at ``message_start``; the SDK assembles the
        same ``Message`` a plain call returns. A second stream of one call gets the SDK
        retries that are left (``call.attempts`` counts the attempts made so far)."""
        ends: set[str] = set()
        client = self._client
        if call.attempts:
            left = max(self.retry.max_retries - call.attempts, 0)
            client = client.with_options(max_retries=left)
        async with client.messages.stream(**params) as stream:
            async for event in stream:
                if event.type == "message_start":
                    turn.started()
                if event.type in ("message_start", "message_stop"):
                    ends.add(event.type)
            if ends != {"message_start", "message_stop"}:
                raise ValueError(
                    f"the event stream ended with {sorted(ends)} seen, not a whole message"
                )
            return await stream.get_final_message()

    def _reply(self, message: Any, request: LLMRequest, usage: Usage) -> LLMReply:
        return message_reply(message, request, usage, self.model, self._redact)

    def _record(self, outcome: str, seconds: float, usage: Usage | None) -> None:
        if self.metrics is None:
            return
        self.metrics.llm_calls.labels(outcome=outcome).inc()
        self.metrics.llm_latency.observe(seconds)
        if usage is not None:
            tokens = self.metrics.llm_tokens
            tokens.labels(kind="input").inc(usage.input_tokens)
            tokens.labels(kind="output").inc(usage.output_tokens)
            tokens.labels(kind="cache_read").inc(usage.cache_read_tokens)
            tokens.labels(kind="cache_write").inc(usage.cache_write_tokens)

    def _redact(self, text: str) -> str:
        """``text`` without the API key and without any credential ``redact_secrets`` finds:
        a ``base_url`` such as ``http://user:pass@host`` or ``https://proxy/v1?key=…`` is
        named in transport errors, and an error body may echo anything."""
        if self._secret:
            text = text.replace(self._secret, "[redacted]")
        return redact_secrets(text)


def _broke_mid_stream(exc: Exception) -> bool:
    """Whether ``exc`` broke a stream the SDK had already handed over (an ``error`` event in a
    200 response, or the connection failing while it was read): the SDK did not retry it."""
    if isinstance(exc, anthropic.APIStatusError):
        return exc.status_code == 200
    return not isinstance(exc, anthropic.APIError | ValueError)
