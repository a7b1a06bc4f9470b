"""The conformance kit over both buses: ``MemoryBus`` and ``NatsBus`` on a real server."""

from __future__ import annotations

import uuid
from typing import Any

import pytest

from humangr.engine.bus import DEFAULT_MAX_PENDING, Bus, Headers, MemoryBus, Msg, conformance
from humangr.engine.bus.conformance import (
    ALL_CHECKS,
    Check,
    check_close,
    check_headers,
    check_no_responders,
    check_queue_groups,
)
from humangr.engine.errors import BusTimeoutError, NoRespondersError


@pytest.mark.anyio
@pytest.mark.parametrize("check", ALL_CHECKS, ids=lambda check: check.__name__)
async def test_conformance(bus: Bus, check: Check) -> None:
    await check(bus, f"conf.{uuid.uuid4().hex[:10]}")


class _NoHeaders(MemoryBus):
    async def publish(
        self, subject: str, data: bytes, *, headers: Headers | None = None, reply: str | None = None
    ) -> None:
        await super().publish(subject, data, reply=reply)


class _NoQueueGroups(MemoryBus):
    def subscribe(
        self, subject: str, *, queue: str | None = None, max_pending: int = DEFAULT_MAX_PENDING
    ) -> Any:
        return super().subscribe(subject, max_pending=max_pending)


class _TimesOutInstead(MemoryBus):
    async def request(
        self, subject: str, data: bytes, *, headers: Headers | None = None, timeout: float = 5.0
    ) -> Msg:
        try:
            return await super().request(subject, data, headers=headers, timeout=timeout)
        except NoRespondersError:
            raise BusTimeoutError(subject, timeout) from None


class _NeverCloses(MemoryBus):
    async def close(self) -> None:
        pass


@pytest.mark.anyio
@pytest.mark.parametrize(
    ("broken", "check"),
    [
        (_NoHeaders, check_headers),
        (_NoQueueGroups, check_queue_groups),
        (_TimesOutInstead, check_no_responders),
        (_NeverCloses, check_close),
    ],
    ids=lambda value: getattr(value, "__name__", str(value)),
)
async def test_the_kit_catches_a_broken_bus(
    broken: type[MemoryBus], check: Check, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(conformance, "DEADLINE", 0.5)
    async with broken() as bus:
        with pytest.raises(AssertionError):
            await check(bus, f"conf.{uuid.uuid4().hex[:10]}")
