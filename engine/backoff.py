"""Exponential backoff: how long to wait before the next try of something that failed.

One ``Backoff`` value says the schedule (``base`` seconds first, multiplied by ``factor`` per
try, never more than ``cap``, optionally shortened by random ``jitter`` so that many clients
failing together do not retry together); the loop that retries keeps its own count of tries
and asks ``delay(attempt)`` or ``await sleep(attempt)``::

    RECOVER = Backoff(0.1, cap=5.0)
    for attempt in itertools.count():
        try:
            return await connect()
        except BusError:
            await RECOVER.sleep(attempt)  # 0.1, 0.2, 0.4 … 5.0, 5.0 …
"""

from __future__ import annotations

import math
import random
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass
from typing import TypeVar

import anyio

__all__ = ["Backoff"]

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Backoff:
    """Wait ``base * factor ** attempt`` seconds before retry ``attempt`` (0-based), at most
    ``cap``; with ``jitter`` (0 to 1) a random fraction up to that much is taken off each wait,
    so a wait lies in ``[delay * (1 - jitter), delay]``."""

    base: float
    factor: float = 2.0
    cap: float = math.inf
    jitter: float = 0.0

    def __post_init__(self) -> None:
        if not self.base >= 0:
            raise ValueError(f"the first backoff delay must be >= 0 seconds, got {self.base}")
        if not self.factor >= 1:
            raise ValueError(f"the backoff factor must be >= 1, got {self.factor}")
        if not self.cap >= 0:
            raise ValueError(f"the backoff cap must be >= 0 seconds, got {self.cap}")
        if not 0 <= self.jitter <= 1:
            raise ValueError(f"the backoff jitter must be between 0 and 1, got {self.jitter}")

    def delay(self, attempt: int, *, rand: Callable[[], float] = random.random) -> float:
        """Seconds to wait before retry ``attempt`` (0 is the first retry); a negative
        ``attempt`` counts as 0. ``rand`` (uniform in [0, 1)) draws the jitter."""
        try:
            raw = self.base * self.factor ** max(attempt, 0)
        except OverflowError:
            raw = math.inf
        wait = min(raw, self.cap)
        if self.jitter:
            wait *= 1.0 - self.jitter * rand()
        return float(wait)

    def delays(
        self, count: int | None = None, *, rand: Callable[[], float] = random.random
    ) -> Iterator[float]:
        """The waits before retries 0, 1, 2 …: ``count`` of them, or without end."""
        attempt = 0
        while count is None or attempt < count:
            yield self.delay(attempt, rand=rand)
            attempt += 1

    async def sleep(self, attempt: int) -> float:
        """Wait before retry ``attempt``; return how long it waited. Cancellation is not
        caught: a cancelled wait raises as ``anyio.sleep`` does."""
        wait = self.delay(attempt)
        await anyio.sleep(wait)
        return wait

    async def retrying(
        self,
        call: Callable[[], Awaitable[T]],
        *,
        on: tuple[type[Exception], ...],
        within: float,
    ) -> T:
        """Await ``call()``, trying again after each of the ``on`` errors while the next try
        would still start within ``within`` seconds of the first; then the last error is
        raised. Other errors and cancellation pass through at once."""
        deadline = anyio.current_time() + within
        attempt = 0
        while True:
            try:
                return await call()
            except on:
                wait = self.delay(attempt)
                if anyio.current_time() + wait > deadline:
                    raise
            await anyio.sleep(wait)
            attempt += 1
