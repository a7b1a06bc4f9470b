"""The conformance kit over both buses: ``MemoryBus`` and ``NatsBus`` on a real server; each
with its own answer to a slow consumer (backpressure in memory, drop and report on NATS core)."""

from __future__ import annotations

import uuid
from typing import Any

import pytest

from humangr.engine.bus import (
    DEFAULT_MAX_PENDING,
    Bus,
    Headers,
    MemoryBus,
    Msg,
    conformance_support,
)
from humangr.engine.bus.conformance import (
    ALL_CHECKS,
    Check,
    check_backpressure,
    check_close,
    check_drops_reported,
    check_headers,
    check_no_responders,
    check_queue_groups,
    checks_for,
)
from humangr.engine.errors import BusTimeoutError, NoRespondersError


@pytest.mark.anyio
@pytest.mark.parametrize("check", ALL_CHECKS, ids=lambda check: check.__name__)
async def test_conformance(bus: Bus, check: Check) -> None:
    await check(bus, f"conf.{uuid.uuid4().hex[:10]}")


@pytest.mark.anyio
async def test_memory_bus_applies_backpressure_to_a_slow_consumer() -> None:
    async with MemoryBus() as bus:
        await check_backpressure(bus, f"conf.{uuid.uuid4().hex[:10]}")


@pytest.mark.anyio
@pytest.mark.nats
async def test_nats_core_drops_and_reports_for_a_slow_consumer(nats_url: str) -> None:
    from humangr.engine.bus.nats import NatsBus

    async with await NatsBus.connect(nats_url) as bus:
        await check_drops_reported(bus, f"conf.{uuid.uuid4().hex[:10]}")


def test_checks_for_each_slow_consumer_behaviour() -> None:
    assert checks_for("backpressure") == [*ALL_CHECKS[:-1], check_backpressure, check_close]
    assert checks_for("drop") == [*ALL_CHECKS[:-1], check_drops_reported, check_close]
    with pytest.raises(ValueError, match="backpressure"):
        checks_for("block")  # type: ignore[arg-type]


@pytest.mark.anyio
async def test_a_bus_that_drops_fails_the_backpressure_check_and_passes_the_drop_check() -> None:
    async with MemoryBus(max_wait=0) as bus:
        with pytest.raises(AssertionError, match="did not wait"):
            await check_backpressure(bus, f"conf.{uuid.uuid4().hex[:10]}")
    async with MemoryBus(max_wait=0) as bus:
        await check_drops_reported(bus, f"conf.{uuid.uuid4().hex[:10]}")


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


class _DropsSilently(MemoryBus):
    """Drops what finds a full buffer and counts nothing."""

    async def _deliver(self, msg: Msg) -> None:
        for sub in self._route(msg.subject)[0]:
            sub.offer(msg)


@pytest.mark.anyio
@pytest.mark.parametrize(
    ("broken", "check"),
    [
        (_NoHeaders, check_headers),
        (_NoQueueGroups, check_queue_groups),
        (_TimesOutInstead, check_no_responders),
        (_NeverCloses, check_close),
        (_DropsSilently, check_drops_reported),
        (_DropsSilently, check_backpressure),
    ],
    ids=lambda value: getattr(value, "__name__", str(value)),
)
async def test_the_kit_catches_a_broken_bus(
    broken: type[MemoryBus], check: Check, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(conformance_support, "DEADLINE", 0.5)
    async with broken() as bus:
        with pytest.raises(AssertionError):
            await check(bus, f"conf.{uuid.uuid4().hex[:10]}")
