"""Local checks run once per action and shared by every layer actor of the process."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable

import anyio

from humangr.contracts import ActionContext, Finding, LayerID, canonical_json

from .registry import run_checks

__all__ = ["SharedChecks"]

THREAD_THRESHOLD_BYTES = 32_768
"""Diffs larger than this are checked in a worker thread so the event loop keeps serving."""


class SharedChecks:
    """The findings of every layer for an action, computed by the first layer that asks.

    Layer actors of one process receive the same action at nearly the same time; the first
    runs the checks for all layers (the diff is parsed once), the others wait for that result.
    """

    def __init__(
        self,
        size: int = 256,
        *,
        run: Callable[[ActionContext], dict[LayerID, list[Finding]]] = run_checks,
        thread_threshold: int = THREAD_THRESHOLD_BYTES,
    ) -> None:
        self._size = size
        self._run = run
        self._thread_threshold = thread_threshold
        self._done: OrderedDict[str, dict[LayerID, list[Finding]]] = OrderedDict()
        self._running: dict[str, anyio.Event] = {}

    async def findings(self, key: str, action: ActionContext, layer: LayerID) -> list[Finding]:
        """The local-check findings of ``layer`` for ``action`` (``key``: its action hash)."""
        while True:
            done = self._done.get(key)
            if done is not None:
                return done.get(layer, [])
            running = self._running.get(key)
            if running is None:
                break
            await running.wait()
        event = self._running[key] = anyio.Event()
        try:
            size = len(action.code_diff or "") + (
                len(canonical_json(action.tool_call.arguments)) if action.tool_call else 0
            )
            if size > self._thread_threshold:
                result = await anyio.to_thread.run_sync(self._run, action)
            else:
                result = self._run(action)
            self._done[key] = result
            while len(self._done) > self._size:
                self._done.popitem(last=False)
        finally:
            del self._running[key]
            event.set()
        return result.get(layer, [])
