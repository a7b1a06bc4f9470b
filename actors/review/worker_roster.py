"""``WorkerRoster``: which layers the live layer workers can give LLM runs, from their
heartbeats (``WorkerHeartbeat`` on ``hl.workers.heartbeat``).

A layer is *local checks only* when at least one live worker serves it and none of them has an
LLM: the Supervisor then plans no run for it (nobody could serve one) and says so in the
report. A layer no live worker has announced keeps its planned runs: a missing worker is not a
mode, and its runs end late (``error``: at least ``needs_review``), never in a weaker review.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from humangr.contracts import LayerID, WorkerHeartbeat

__all__ = ["WorkerRoster", "describe_layers"]

log = logging.getLogger("humangr.supervisor")

MISSED_BEATS = 3
"""Heartbeats a worker may miss before it is forgotten."""
MAX_WORKERS = 10_000
"""Workers remembered at most (the oldest heard of go first)."""


@dataclass(frozen=True, slots=True)
class _Seen:
    beat: WorkerHeartbeat
    until: float


def describe_layers(llm: tuple[LayerID, ...], local: tuple[LayerID, ...]) -> str:
    """One line saying which layers get LLM runs and which are local checks only."""
    parts = []
    if llm:
        parts.append(f"LLM runs for {', '.join(lid.value for lid in llm)}")
    if local:
        parts.append(
            f"local checks only for {', '.join(lid.value for lid in local)} (their workers "
            "have no LLM)"
        )
    return "; ".join(parts) or "no layer worker heard of yet: LLM runs planned for every layer"


class WorkerRoster:
    """The live layer workers and what they serve, as their heartbeats say."""

    def __init__(self) -> None:
        self._seen: dict[str, _Seen] = {}
        self._said = ""

    def heard(self, beat: WorkerHeartbeat, now: float) -> None:
        """Record ``beat`` (a stopping worker is forgotten at once)."""
        self._seen.pop(beat.worker, None)
        if beat.stopping:
            return
        self._seen[beat.worker] = _Seen(beat, now + beat.interval_s * MISSED_BEATS)
        while len(self._seen) > MAX_WORKERS:
            del self._seen[next(iter(self._seen))]

    def expire(self, now: float) -> None:
        """Forget the workers not heard of for ``MISSED_BEATS`` heartbeats."""
        for worker in [w for w, seen in self._seen.items() if seen.until <= now]:
            del self._seen[worker]

    def layers(self) -> tuple[tuple[LayerID, ...], tuple[LayerID, ...]]:
        """The layers some live worker runs LLM calls for, and the layers served by live
        workers none of which has an LLM (local checks only)."""
        llm: set[LayerID] = set()
        served: set[LayerID] = set()
        for seen in self._seen.values():
            served.update(seen.beat.layers)
            if seen.beat.llm:
                llm.update(seen.beat.layers)
        order = list(LayerID)
        return (
            tuple(sorted(llm, key=order.index)),
            tuple(sorted(served - llm, key=order.index)),
        )

    def local_only(self, layers: tuple[LayerID, ...]) -> tuple[LayerID, ...]:
        """Those of ``layers`` that are local checks only (see the module docstring)."""
        local = set(self.layers()[1])
        return tuple(lid for lid in layers if lid in local)

    def mixed(self) -> tuple[LayerID, ...]:
        """Layers served both by workers with an LLM and by workers without one."""
        with_llm: set[LayerID] = set()
        without: set[LayerID] = set()
        for seen in self._seen.values():
            (with_llm if seen.beat.llm else without).update(seen.beat.layers)
        return tuple(lid for lid in LayerID if lid in with_llm and lid in without)

    def say_if_changed(self, *, quiet: bool = False) -> str | None:
        """Log which layers get LLM runs when that changed since it was last said (``quiet``:
        only note it as said); the line, or ``None`` when nothing changed."""
        llm, local = self.layers()
        line = describe_layers(llm, local)
        mixed = self.mixed()
        if mixed:
            line += (
                f"; {', '.join(lid.value for lid in mixed)} served by workers with and without "
                "an LLM: a task that reaches one without fails closed (needs_review)"
            )
        if line == self._said:
            return None
        self._said = line
        if quiet:
            return line
        degraded = bool(local or mixed)  # a layer reviewed less than configured: said loudly
        log.log(logging.WARNING if degraded else logging.INFO, "layer workers: %s", line)
        return line
