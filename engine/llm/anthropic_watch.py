"""The SDK middleware behind ``retry``: it records each HTTP attempt of an Anthropic call and
bounds the server's ``retry-after`` (see ``humangr.engine.llm.retry``). Imported with the SDK
only, so a process without an LLM never loads it."""

from __future__ import annotations

from typing import Any

import anthropic

from .retry import RetryAfterRefused, RetryPolicy, current_call, parse_retry_after, status_reason

__all__ = ["AttemptWatch"]


class AttemptWatch(anthropic.Middleware):
    """The SDK middleware that records each attempt on the current ``CallAttempts`` and
    refuses a ``retry-after`` beyond ``policy.max_retry_after`` (see the module docstring)."""

    def __init__(self, policy: RetryPolicy) -> None:
        self.policy = policy

    async def handle_async(
        self, request: anthropic.APIRequest, call_next: anthropic.AsyncCallNext
    ) -> anthropic.AsyncAPIResponse[Any]:
        call = current_call()
        if call is None:
            return await call_next(request)
        call.attempts += 1
        if request.retries_taken > 0:
            call.on_retry(call.last_failure or "unknown", request.retries_taken)
        try:
            response = await call_next(request)
        except anthropic.APITimeoutError:
            call.failed("timeout")
            raise
        except anthropic.APIConnectionError:
            call.failed("connection")
            raise
        http = response.http_response
        if http.is_success:
            return response
        status = http.status_code
        reason = status_reason(status, http.headers)
        call.failed(reason or f"http_{status}")
        wait = parse_retry_after(http.headers)
        retrying = reason is not None and request.retries_taken < self.policy.max_retries
        if retrying and not self.policy.allows(wait):
            await http.aclose()
            raise RetryAfterRefused(status, reason or "", wait or 0.0, self.policy.max_retry_after)
        return response
