"""The state of one layer task in progress at a ``LayerActor``: its deadline scope and finished
runs (``Running``), the request its runs share (``SharedPrompt``), and whether the first runs
agree so adaptive redundancy skips the third (``runs_agree``)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import anyio

from humangr.contracts import LayerRunResult
from humangr.engine.llm import LLMRequest

__all__ = ["Running", "SharedPrompt", "runs_agree"]


@dataclass(slots=True)
class SharedPrompt:
    """The request the runs of one task share, rendered by the first run that needs it (a
    rendering that fails fails each run as an ``error`` run, as it did rendered per run)."""

    request: LLMRequest | None = None


@dataclass(slots=True)
class Running:
    """A task in progress: its scope carries the layer's deadline; ``cancel`` is a
    ``CancelAction``, after which no report is sent. ``results`` holds the finished runs."""

    scope: anyio.CancelScope
    by_cancel: bool = False
    results: dict[int, LayerRunResult] = field(default_factory=dict)

    def cancel(self) -> None:
        """Cancel the task's runs: its report is not sent."""
        self.by_cancel = True
        self.scope.cancel()


def runs_agree(runs: Sequence[LayerRunResult]) -> bool:
    """Whether every run is valid, there are at least two, and all have one status and veto."""
    valid = [r for r in runs if r.error is None]
    return len(valid) == len(runs) >= 2 and len({(r.status, r.veto_level) for r in valid}) == 1
