"""A served engine (the test kit's, on the MemoryBus or a real nats-server) and a client talking to
it the way an agent would: on NATS through its own connection, trusting the engine's key."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any

from humangr.client import Client, connect
from humangr.contracts import Decision, Outcome
from humangr.testing import HumangrTestEngine, humangr

AWS_KEY = "AKIAZ3MHALXQ4TESTKEY"


@dataclass
class Served:
    kit: HumangrTestEngine
    hg: Client


@asynccontextmanager
async def served(nats_url: str | None, **kit_options: Any) -> AsyncIterator[Served]:
    """The kit's engine and a client of it: over ``nats_url`` (a unique prefix), else over the
    kit's own MemoryBus."""
    async with humangr(nats_url=nats_url, **kit_options) as kit:
        key = kit.engine.public_key
        if nats_url is None:
            client = connect(bus=kit.bus, prefix=kit.subjects.prefix, public_key=key)
        else:
            client = connect(nats_url, prefix=kit.subjects.prefix, public_key=key)
        async with client as hg:
            yield Served(kit, hg)


async def first_needing_review(kit: HumangrTestEngine) -> Decision:
    """The first ``needs_review`` decision the engine publishes."""
    async for decision in kit.decisions():
        if decision.outcome is Outcome.NEEDS_REVIEW and not decision.resolved_by:
            return decision
    raise AssertionError("the engine stopped before a needs_review decision")
