"""Waiting for decisions: one subscription on ``decisions.>`` serves every waiting submitter."""

from __future__ import annotations

import logging
from dataclasses import dataclass, field

import anyio
from anyio.abc import TaskStatus

from humangr.contracts import HumanLayerReport, Outcome, Subjects, decode
from humangr.engine.bus import Bus
from humangr.engine.errors import ContractError

__all__ = ["DecisionWaiters"]

log = logging.getLogger("humangr.decisions")


@dataclass(slots=True)
class _Waiter:
    final: bool
    event: anyio.Event = field(default_factory=anyio.Event)
    report: HumanLayerReport | None = None


def _settles(report: HumanLayerReport, final: bool) -> bool:
    return not final or report.outcome is not Outcome.NEEDS_REVIEW or bool(report.resolved_by)


class DecisionWaiters:
    """Routes decisions to the submitters waiting for them, by action id.

    Register with ``expect`` *before* publishing the action, then ``wait``; a decision that
    arrives in between is kept for the waiter.
    """

    def __init__(self) -> None:
        self._waiting: dict[str, _Waiter] = {}

    def expect(self, action_id: str, *, final: bool = False) -> None:
        self._waiting[action_id] = _Waiter(final)

    async def wait(self, action_id: str, *, timeout: float) -> HumanLayerReport | None:
        """The decision, or ``None`` after ``timeout``; the registration is removed either way."""
        waiter = self._waiting[action_id]
        try:
            with anyio.move_on_after(timeout):
                await waiter.event.wait()
            return waiter.report
        finally:
            self._waiting.pop(action_id, None)

    async def run(self, bus: Bus, subjects: Subjects, *, task_status: TaskStatus[None]) -> None:
        """Listen on ``decisions.>`` until cancelled; ready once subscribed."""
        async with bus.subscribe(subjects.decisions) as decisions:
            task_status.started()
            async for msg in decisions:
                try:
                    report = decode(msg.data, HumanLayerReport)
                except ContractError as exc:
                    log.warning("undecodable decision on %s: %s", msg.subject, exc)
                    continue
                waiter = self._waiting.get(report.action_id)
                if waiter is not None and _settles(report, waiter.final):
                    waiter.report = report
                    waiter.event.set()
