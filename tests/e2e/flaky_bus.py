"""``FlakyBus``: a real ``Bus`` in front of another, whose first publishes on chosen subjects
fail as a JetStream publish timeout does (a ``BusError``). A test double through the protocol,
not a patch of the bus."""

from __future__ import annotations

from contextlib import AbstractAsyncContextManager

from humangr.engine.bus import Bus, Headers, Msg, Subscription
from humangr.engine.bus.base import DEFAULT_MAX_PENDING
from humangr.engine.bus.subject import matches, validate_subscribe_subject
from humangr.engine.errors import BusError


class FlakyBus:
    def __init__(self, inner: Bus) -> None:
        self.inner = inner
        self.pattern: tuple[str, ...] = ()
        self.failures = 0
        self.failed = 0

    def fail(self, pattern: str, failures: int) -> None:
        """Make the next ``failures`` publishes on subjects matching ``pattern`` fail."""
        self.pattern = tuple(validate_subscribe_subject(pattern))
        self.failures = failures

    async def publish(
        self,
        subject: str,
        data: bytes,
        *,
        headers: Headers | None = None,
        reply: str | None = None,
    ) -> None:
        if self.failed < self.failures and matches(self.pattern, tuple(subject.split("."))):
            self.failed += 1
            raise BusError(f"JetStream did not acknowledge {subject!r} (failure {self.failed})")
        await self.inner.publish(subject, data, headers=headers, reply=reply)

    def subscribe(
        self, subject: str, *, queue: str | None = None, max_pending: int = DEFAULT_MAX_PENDING
    ) -> AbstractAsyncContextManager[Subscription]:
        return self.inner.subscribe(subject, queue=queue, max_pending=max_pending)

    async def request(
        self, subject: str, data: bytes, *, headers: Headers | None = None, timeout: float = 5.0
    ) -> Msg:
        return await self.inner.request(subject, data, headers=headers, timeout=timeout)

    async def flush(self, timeout: float = 5.0) -> None:
        await self.inner.flush(timeout)

    async def close(self) -> None:
        await self.inner.close()
