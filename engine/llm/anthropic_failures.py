"""How ``AnthropicLLM`` reads a failed call: HTTP statuses, timeouts, broken connections and
streams, malformed replies."""

from __future__ import annotations

import importlib
import importlib.util
from dataclasses import dataclass
from typing import Any

import anthropic

from .retry import parse_retry_after, retry_reason, status_reason

__all__ = ["STREAM_ERRORS", "TRANSPORT_ERRORS", "Failure", "classify"]

_http: Any = importlib.import_module(
    "httpx2" if importlib.util.find_spec("httpx2") is not None else "httpx"
)
"""The SDK's HTTP library (``httpx2`` in recent SDKs): a stream that breaks while it is read
raises its errors, not the SDK's."""
STREAM_ERRORS = {"overloaded_error": 529, "rate_limit_error": 429, "api_error": 500}
"""The HTTP status an ``error`` event in a stream stands for (the response itself was 200)."""
TRANSPORT_ERRORS: tuple[type[Exception], ...] = (anthropic.APIError, ValueError, _http.HTTPError)
"""What a call may raise besides cancellation: the SDK's errors, malformed replies, and the
HTTP library's errors while a stream is read."""


@dataclass(frozen=True, slots=True)
class Failure:
    """A classified transport failure."""

    problem: str
    reason: str
    retryable: bool
    status: int | None = None
    retry_after: float | None = None


def classify(exc: Exception, timeout: float, base_url: str) -> Failure:
    """What a failed call means: its message, metric reason, whether to retry, status."""
    if isinstance(exc, anthropic.APIStatusError) and exc.status_code == 200:
        status = STREAM_ERRORS.get(_error_type(exc.body), 0)
        return Failure(
            f"the Anthropic API broke off a streamed reply: {_api_message(exc)}",
            retry_reason(status) or "stream_error",
            status != 0,
            status or None,
        )
    if isinstance(exc, anthropic.APIStatusError):
        status = exc.status_code
        reason = status_reason(status, exc.response.headers)
        return Failure(
            f"Anthropic API answered HTTP {status}: {_api_message(exc)}; {_advice(status)}",
            reason or f"http_{status}",
            reason is not None,
            status,
            parse_retry_after(exc.response.headers),
        )
    if isinstance(exc, anthropic.APITimeoutError | _http.TimeoutException):
        return Failure(
            f"the Anthropic API did not answer within {timeout:g}s; raise the timeout "
            "or check the endpoint",
            "timeout",
            True,
        )
    if isinstance(exc, anthropic.APIConnectionError | _http.HTTPError):
        message = exc.message if isinstance(exc, anthropic.APIConnectionError) else str(exc)
        return Failure(
            f"cannot reach the Anthropic API at {base_url}: {message[:300]}; "
            "check the network and base_url",
            "connection",
            True,
        )
    return Failure(
        f"the Anthropic API sent a malformed reply ({type(exc).__name__}: "
        f"{str(exc)[:300]}); is base_url right?",
        "malformed",
        False,
    )


def _error_type(body: object) -> str:
    if isinstance(body, dict) and isinstance(body.get("error"), dict):
        return str(body["error"].get("type", ""))
    return ""


def _api_message(exc: anthropic.APIStatusError) -> str:
    body = exc.body
    if isinstance(body, dict) and isinstance(body.get("error"), dict):
        error = body["error"]
        return f"{error.get('type', 'error')}: {str(error.get('message', ''))[:300]}"
    return str(exc.message)[:300]


def _advice(status: int) -> str:
    if status in (401, 403):
        return "check ANTHROPIC_API_KEY and its permissions"
    if status == 429:
        return "rate limited; lower the concurrency or raise the limit"
    if status == 529 or status >= 500:
        return "the API is overloaded or failing; try again later"
    if status == 404:
        return "check the model name (HUMANGR_MODEL) and base_url"
    return "the request was refused; check the model and the request size"
