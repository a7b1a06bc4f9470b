"""Transport retries of Anthropic calls: the SDK retries, this module watches and bounds it.

The SDK (``AsyncAnthropic(max_retries=...)``) does the retrying itself: it decides which
failures to retry (408, 409, 429, 5xx and 529, what the server's ``x-should-retry`` says,
timeouts and broken connections), waits the server's ``retry-after-ms``/``retry-after`` or
else backs off exponentially with jitter (0.5 s doubling to 8 s), and tells the server which
retry each request is (``x-stainless-retry-count``). ``AttemptWatch``, a middleware the SDK
(``anthropic_watch``) runs around each HTTP attempt, adds what the SDK cannot do:

- every retry is counted by reason (``humangr_retries_total``) and logged with the call's tags
  (``CallAttempts.on_retry``), and the attempts of a call are counted for its error;
- a failed attempt releases the calls waiting on it (``CallAttempts.on_failure``: the
  cache-warming turn), at once rather than after the SDK's last retry;
- a ``retry-after`` longer than ``RetryPolicy.max_retry_after`` is refused
  (``RetryAfterRefused``): the SDK would sleep whatever the server asks, up to ~50 days, with
  the decision it holds up waiting.
"""

from __future__ import annotations

import email.utils
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass

__all__ = [
    "CallAttempts",
    "RetryAfterRefused",
    "RetryPolicy",
    "current_call",
    "parse_retry_after",
    "retry_reason",
    "status_reason",
    "watching",
]


def retry_reason(status: int) -> str | None:
    """The retry reason (metric label) of an HTTP status the SDK retries, or ``None`` when it
    does not retry it."""
    if status == 429:
        return "rate_limited"
    if status == 529:
        return "overloaded"
    if status == 408:
        return "timeout"
    if status == 409:
        return "conflict"
    if status >= 500:
        return "server_error"
    return None


def status_reason(status: int, headers: Mapping[str, str]) -> str | None:
    """``retry_reason`` of a response, overruled by its ``x-should-retry`` header as the SDK
    is: ``true`` retries any status (``server_requested`` when it has no reason of its own),
    ``false`` none."""
    hint = headers.get("x-should-retry")
    if hint == "true":
        return retry_reason(status) or "server_requested"
    if hint == "false":
        return None
    return retry_reason(status)


def parse_retry_after(headers: Mapping[str, str], *, now: float | None = None) -> float | None:
    """Seconds to wait from ``retry-after-ms`` or ``retry-after`` (seconds or an HTTP date)."""
    ms = headers.get("retry-after-ms")
    if ms is not None:
        try:
            return max(0.0, float(ms) / 1000)
        except ValueError:
            pass
    value = headers.get("retry-after")
    if value is None:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        parsed = email.utils.parsedate_tz(value)
        if parsed is None:
            return None
        current = time.time() if now is None else now
        return max(0.0, float(email.utils.mktime_tz(parsed)) - current)


@dataclass(frozen=True, slots=True)
class RetryPolicy:
    """``max_retries`` retries after the first attempt (done by the SDK); a server asking to
    wait more than ``max_retry_after`` seconds before one is refused instead."""

    max_retries: int = 2
    max_retry_after: float = 60.0

    def __post_init__(self) -> None:
        if self.max_retries < 0:
            raise ValueError(f"max_retries must be >= 0, got {self.max_retries}")
        if not self.max_retry_after >= 0:
            raise ValueError(f"max_retry_after must be >= 0 seconds, got {self.max_retry_after}")

    def allows(self, retry_after: float | None) -> bool:
        """Whether a retry the server asks to delay by ``retry_after`` seconds is waited for."""
        return retry_after is None or retry_after <= self.max_retry_after


class RetryAfterRefused(Exception):
    """The API answered ``status`` and asked to wait ``wait`` seconds before a retry, more than
    ``cap`` (``max_retry_after``): the call fails now instead."""

    def __init__(self, status: int, reason: str, wait: float, cap: float) -> None:
        super().__init__(
            f"Anthropic API answered HTTP {status} and asked to wait {wait:g}s before retrying, "
            f"longer than the {cap:g}s this client waits (max_retry_after); lower the load or "
            "raise max_retry_after"
        )
        self.status = status
        self.reason = reason
        self.wait = wait


@dataclass(slots=True)
class CallAttempts:
    """One call's HTTP attempts as ``AttemptWatch`` sees them: how many, why the last failed,
    and what to do on a retry (``on_retry(reason, retry_number)``) and on a failed attempt."""

    on_retry: Callable[[str, int], None]
    on_failure: Callable[[], None] = lambda: None
    attempts: int = 0
    last_failure: str | None = None

    def failed(self, reason: str) -> None:
        self.last_failure = reason
        self.on_failure()


_CURRENT: ContextVar[CallAttempts | None] = ContextVar("humangr_llm_call", default=None)


@contextmanager
def watching(call: CallAttempts) -> Iterator[CallAttempts]:
    """Make ``call`` the one whose attempts ``AttemptWatch`` records in this task."""
    token = _CURRENT.set(call)
    try:
        yield call
    finally:
        _CURRENT.reset(token)


def current_call() -> CallAttempts | None:
    """The call whose attempts are being recorded in this task (``watching``), if any."""
    return _CURRENT.get()
