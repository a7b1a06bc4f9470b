"""``Recorder``: what a test engine has seen on the bus — decisions, review requests, dead letters.

The kit subscribes once, when it starts, so nothing published afterwards can be missed; waits
and iterators read from the record instead of racing their own subscriptions.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

import anyio
from anyio.abc import TaskStatus

from humangr.contracts import (
    DeadLetter,
    HumanLayerReport,
    ReviewRequested,
    Subjects,
    decode,
)
from humangr.engine.bus import Bus, Msg
from humangr.engine.decisions import check_decision, settles
from humangr.engine.errors import ContractError, EngineError

__all__ = ["KitError", "KitTimeout", "Malformed", "Recorder", "describe"]

T = TypeVar("T")


class KitError(EngineError):
    """A test-kit call could not do what was asked: an unknown action, nothing to resolve, a
    message the engine refused, or an engine that has stopped."""


class KitTimeout(KitError, TimeoutError):
    """What a test waited for did not happen in time."""


@dataclass(frozen=True, slots=True)
class Malformed:
    """A message on a recorded subject that did not decode (kept, never dropped silently)."""

    subject: str
    error: str


@dataclass(slots=True)
class Recorder:
    """Everything published on ``decisions.>``, ``reviews.pending`` and ``dlq`` since the start."""

    decisions: list[HumanLayerReport] = field(default_factory=list)
    by_action: dict[str, list[HumanLayerReport]] = field(default_factory=dict)
    requests: dict[str, ReviewRequested] = field(default_factory=dict)
    dead_letters: list[DeadLetter] = field(default_factory=list)
    malformed: list[Malformed] = field(default_factory=list)
    closed: bool = False
    _event: anyio.Event = field(default_factory=anyio.Event)

    async def run(self, bus: Bus, subjects: Subjects, *, task_status: TaskStatus[None]) -> None:
        """Subscribe to the recorded subjects; ready once all are subscribed."""
        feeds: list[tuple[str, Callable[[Msg], None]]] = [
            (subjects.decisions, self._on_decision),
            (subjects.reviews_pending, self._on_request),
            (subjects.dlq, self._on_dead_letter),
        ]
        async with anyio.create_task_group() as tg:
            for subject, handle in feeds:
                await tg.start(self._follow, bus, subject, handle)
            task_status.started()

    async def _follow(
        self,
        bus: Bus,
        subject: str,
        handle: Callable[[Msg], None],
        *,
        task_status: TaskStatus[None],
    ) -> None:
        async with bus.subscribe(subject) as sub:
            task_status.started()
            async for msg in sub:
                handle(msg)
                self.notify()

    def _decode(self, msg: Msg, type_: type[T]) -> T | None:
        try:
            return decode(msg.data, type_)
        except ContractError as exc:
            self.malformed.append(Malformed(msg.subject, str(exc)))
            return None

    def _on_decision(self, msg: Msg) -> None:
        report = self._decode(msg, HumanLayerReport)
        if report is not None:
            self.decisions.append(report)
            self.by_action.setdefault(report.action_id, []).append(report)

    def _on_request(self, msg: Msg) -> None:
        request = self._decode(msg, ReviewRequested)
        if request is not None:
            self.requests[request.action_id] = request

    def _on_dead_letter(self, msg: Msg) -> None:
        letter = self._decode(msg, DeadLetter)
        if letter is not None:
            self.dead_letters.append(letter)

    def notify(self) -> None:
        event, self._event = self._event, anyio.Event()
        event.set()

    def close(self) -> None:
        self.closed = True
        self.notify()

    async def changed(self) -> None:
        """Wait for the next recorded message; ``KitError`` once the engine has stopped."""
        if self.closed:
            raise KitError("the test engine has stopped")
        await self._event.wait()

    async def wait_for(self, find: Callable[[], T | None]) -> T:
        """Wait until ``find`` returns something (it may raise to give up)."""
        while True:
            found = find()
            if found is not None:
                return found
            await self.changed()

    def first(
        self, action_id: str, *, final: bool, action_hash: str | None = None
    ) -> HumanLayerReport | None:
        """The action's first decision; with ``final`` the first that no human still owes.

        With ``action_hash``, a decision on another hash raises ``DecisionMismatch``: it does
        not apply to the action submitted."""
        for report in self.by_action.get(action_id, ()):
            if action_hash is not None:
                check_decision(report, action_id, action_hash)
            if settles(report, final):
                return report
        return None

    def refusal(self, subject: str, correlation_id: str, since: int) -> DeadLetter | None:
        """A dead letter recorded after index ``since`` refusing the message on ``subject``
        about ``correlation_id`` (an action id)."""
        marker = correlation_id.encode()
        for letter in self.dead_letters[since:]:
            if letter.subject == subject and (
                letter.correlation_id == correlation_id or (marker and marker in letter.raw)
            ):
                return letter
        return None

    async def follow(self, start: int, agent_id: str | None) -> AsyncIterator[HumanLayerReport]:
        """Decisions from index ``start`` on, as they come; ends when the engine stops."""
        index = start
        while True:
            while index < len(self.decisions):
                report = self.decisions[index]
                index += 1
                if agent_id is None or report.agent_id == agent_id:
                    yield report
            if self.closed:
                return
            await self._event.wait()


def describe(values: Any, limit: int = 5) -> str:
    """A short, readable list for error messages."""
    items = [str(v) for v in values]
    more = f" and {len(items) - limit} more" if len(items) > limit else ""
    return (", ".join(items[:limit]) + more) or "none"
