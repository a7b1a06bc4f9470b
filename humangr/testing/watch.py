"""Watching what an engine sends its layers, for tests that a decision needed no layer."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import anyio

from humangr.contracts import LayerTask, Subjects, decode
from humangr.engine.bus import Bus

__all__ = ["layer_tasks"]


@asynccontextmanager
async def layer_tasks(
    bus: Bus, subjects: Subjects, *, settle_s: float = 0.2
) -> AsyncIterator[list[LayerTask]]:
    """Every layer task published on ``bus`` under ``subjects`` while the block runs (and
    ``settle_s`` after it, for a task still in flight)."""
    seen: list[LayerTask] = []
    async with bus.subscribe(subjects.layer_tasks) as sub, anyio.create_task_group() as tg:

        async def collect() -> None:
            async for msg in sub:
                seen.append(decode(msg.data, LayerTask))

        tg.start_soon(collect)
        yield seen
        await anyio.sleep(settle_s)
        tg.cancel_scope.cancel()
