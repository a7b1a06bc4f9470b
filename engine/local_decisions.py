"""Decisions handed over inside one process: a Supervisor's decisions given to the listeners
of its own process (the embedded engine's waiters) before they are published."""

from __future__ import annotations

import logging
from collections.abc import Callable

from humangr.contracts import HumanLayerReport

__all__ = ["LocalDecisions"]

log = logging.getLogger("humangr.decisions")


class LocalDecisions:
    """The decisions a Supervisor of this process records, handed to listeners of this
    process as the signed objects themselves (the embedded engine's own waiters), before they
    are published: no encoding, no decoding, no signature check of bytes that never left the
    process. A listener's error is logged and never reaches the Supervisor."""

    def __init__(self) -> None:
        self._listeners: list[Callable[[HumanLayerReport], None]] = []
        self.reaches_all: Callable[[HumanLayerReport], bool] | None = None
        """Whether the listeners are all that would receive ``report`` from the bus (the
        embedded engine's waiters, alone on its ``MemoryBus``): then the Supervisor does
        not publish it as well, for that publish would deliver it to them a second time."""

    def listen(self, listener: Callable[[HumanLayerReport], None]) -> Callable[[], None]:
        """Hand each decision to ``listener`` from now on; call the result to stop."""
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener) if listener in self._listeners else None

    def __call__(self, report: HumanLayerReport) -> bool:
        """Hand ``report`` to each listener; ``True`` when they had it and are all that
        would receive it from the bus (``reaches_all``): it need not be published."""
        told = bool(self._listeners)
        for listener in tuple(self._listeners):
            try:
                listener(report)
            except Exception:
                told = False
                log.exception("a listener of local decisions failed on %s", report.action_id)
        if not told or self.reaches_all is None:
            return False
        try:
            return self.reaches_all(report)
        except Exception:  # cannot tell (a closed bus): publish, which says what is wrong
            return False
