"""Transport retry policy (DESIGN.md §6): which failures to retry and how long to wait."""

from __future__ import annotations

import email.utils
import random
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass

__all__ = ["RetryPolicy", "parse_retry_after", "retry_reason"]


def retry_reason(status: int) -> str | None:
    """The retry reason (metric label) of an HTTP status, or ``None`` when it is not retried."""
    if status == 429:
        return "rate_limited"
    if status == 529:
        return "overloaded"
    if status == 408:
        return "timeout"
    if status >= 500:
        return "server_error"
    return None


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
    """``max_retries`` retries after the first attempt; exponential backoff with jitter, or the
    server's ``retry-after`` (capped at ``max_retry_after``) when it sends one."""

    max_retries: int = 2
    base_delay: float = 0.5
    max_delay: float = 8.0
    max_retry_after: float = 60.0

    def __post_init__(self) -> None:
        if self.max_retries < 0:
            raise ValueError(f"max_retries must be >= 0, got {self.max_retries}")
        if self.base_delay < 0 or self.max_delay < 0 or self.max_retry_after < 0:
            raise ValueError("retry delays must be >= 0")

    def delay(
        self,
        retry_number: int,
        retry_after: float | None,
        *,
        rand: Callable[[], float] = random.random,
    ) -> float:
        """Seconds to wait before retry ``retry_number`` (1-based)."""
        if retry_after is not None:
            return min(retry_after, self.max_retry_after)
        backoff = min(self.base_delay * 2 ** (retry_number - 1), self.max_delay)
        return float(backoff * (0.5 + 0.5 * rand()))
