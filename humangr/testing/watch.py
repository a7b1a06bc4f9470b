"""Watching what an engine sends its layers, for tests that a decision needed no layer."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import anyio

from humangr.actors.review.layer import LayerActor
from humangr.actors.roles import Engine
from humangr.contracts import LayerTask, Subjects, decode
from humangr.engine.bus import Bus

__all__ = ["layer_tasks"]


@asynccontextmanager
async def layer_tasks(
    bus: Bus, subjects: Subjects, *, settle_s: float = 0.2, engine: Engine | None = None
) -> AsyncIterator[list[LayerTask]]:
    """Every layer task published on ``bus`` under ``subjects`` while the block runs (and
    ``settle_s`` after it, for a task still in flight) — and, with ``engine``, every task its
    Supervisor hands to the engine's own layer actors in process (no bus message)."""
    seen: list[LayerTask] = []
    local = [a for a in (engine.system.actors if engine else ()) if isinstance(a, LayerActor)]
    async with bus.subscribe(subjects.layer_tasks) as sub, anyio.create_task_group() as tg:

        async def collect() -> None:
            async for msg in sub:
                seen.append(decode(msg.data, LayerTask))

        tg.start_soon(collect)
        for actor in local:
            actor.watchers.append(seen.append)
        try:
            yield seen
            await anyio.sleep(settle_s)
        finally:
            for actor in local:
                actor.watchers.remove(seen.append)
        tg.cancel_scope.cancel()
