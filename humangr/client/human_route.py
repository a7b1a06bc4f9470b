"""The human route of a client's engine: which commands reach its reviews (said in the one
WARNING a wait for a human logs, and in ``ReviewTimeout``), and, for the embedded engine with a
state file (``connect(state=...)``), how a resolution made by another process reaches the
agent that waits for it.

``humangr resolve --state PATH`` runs a Supervisor of its own on the file: it writes the final
decision there and publishes it on its own in-process bus, which the waiting agent does not
hear. So the client polls the file — only for the actions it waits on with ``final=True``,
every ``POLL_S`` — and publishes a final decision it finds on its engine's bus, where the
waiters check it like any other: the action hash, and the signature against the engine's key.
A final decision signed by any other key fails the wait (``SignatureError``), never approves.
"""

from __future__ import annotations

import logging
import shlex
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import anyio
from anyio.abc import TaskStatus

from humangr.contracts import DEFAULT_PREFIX, Subjects, encode
from humangr.engine.errors import BusClosedError, StateError
from humangr.engine.redact import REDACTED, redact_seed_urls

if TYPE_CHECKING:
    from humangr.engine.bus import Bus
    from humangr.engine.state.reviews import ReviewState

    from .options import Settings

__all__ = ["MAX_POLLED", "POLL_S", "HumanRoute", "StatePoller", "bare_urls", "route_of"]

log = logging.getLogger("humangr.client")

POLL_S = 0.5
"""Seconds between two reads of the state file for the final decisions awaited."""
MAX_POLLED = 1_000
"""Actions read per poll at most (the oldest waits first)."""


@dataclass(frozen=True, slots=True)
class HumanRoute:
    """Where a human reaches the reviews of one client's engine: the ``--state PATH`` or
    ``--nats URL`` options of the reviewer commands, or ``None`` when nothing can (the
    embedded engine without a state file)."""

    where: str | None

    @property
    def reachable(self) -> bool:
        """Whether a human can resolve this engine's reviews at all."""
        return self.where is not None

    def resolve_command(self, action_id: str) -> str:
        """The command that approves ``action_id`` (``--reject`` refuses it)."""
        return (
            f'humangr resolve {action_id} {self.where} --approve --reason "<why, 20+ characters>"'
        )

    def waiting(self, action_id: str) -> str:
        """The WARNING logged once when a review starts waiting for a human."""
        if self.where is None:
            return (
                f"{action_id} needs a human review, and no human can reach this embedded "
                "engine's reviews (they are in memory): it waits until the review deadline "
                "and is then rejected; connect(state='reviews.db') keeps them where "
                "`humangr resolve --state reviews.db` reaches them"
            )
        return (
            f"{action_id} waits for a human: `{self.resolve_command(action_id)}` (or "
            f"--reject), `humangr show {action_id} {self.where}` to read it first, or "
            f"`humangr inbox {self.where}`"
        )

    def timeout_hint(self, action_id: str, *, final: bool, embedded: bool) -> str:
        """What ``ReviewTimeout`` says to do, naming only commands that reach this engine."""
        if not final:
            if embedded:
                return (
                    "the embedded engine did not decide in time: give a longer timeout= or "
                    "shorter layer deadlines (ReviewConfig.layer_deadline_s)"
                )
            return "is the engine running (`humangr serve`), on the same subject prefix?"
        if self.where is None:
            return (
                "no human can reach the reviews of an embedded engine without a state file: "
                "connect(state='reviews.db') keeps them where `humangr resolve --state "
                "reviews.db` resolves them, or guard(on_needs_review='raise') stops at once"
            )
        return (
            f"a human decides with `humangr show {action_id} {self.where}` and "
            f"`{self.resolve_command(action_id)}` (or --reject); or wait longer (timeout=)"
        )


def bare_urls(urls: str | Sequence[str]) -> str:
    """NATS seed URLs as a command line takes them (comma-separated), each without its
    user-info: credentials come from the environment, never from a printed command."""
    return redact_seed_urls(urls).replace(f"{REDACTED}@", "").replace(", ", ",")


def route_of(settings: Settings) -> HumanRoute:
    """The human route of the engine ``settings`` connect to. Credentials never appear: the
    URL is shown without its user-info."""
    prefix = "" if settings.prefix == DEFAULT_PREFIX else f" --prefix {settings.prefix}"
    if settings.embedded:
        if settings.state is None:
            return HumanRoute(None)
        return HumanRoute(f"--state {shlex.quote(str(settings.state))}{prefix}")
    if settings.url:
        return HumanRoute(f"--nats {shlex.quote(bare_urls(settings.url))}{prefix}")
    return HumanRoute(f"--nats <the engine's NATS URL>{prefix}")


class StatePoller:
    """Reads the state file for the final decisions of the actions awaited and publishes each
    one found on the engine's bus (see the module docstring). Bounded: at most
    ``MAX_POLLED`` actions a poll, each until its decision is found or it stops waiting."""

    def __init__(self, state: ReviewState, bus: Bus, subjects: Subjects, path: Path) -> None:
        self.state = state
        self.bus = bus
        self.subjects = subjects
        self.path = path
        self.awaited: dict[str, None] = {}
        """The actions waiting for a human's final decision, oldest first."""

    def watch(self, action_id: str) -> None:
        """Look for ``action_id``'s final decision from now on."""
        self.awaited[action_id] = None

    def unwatch(self, action_id: str) -> None:
        """Stop looking (the wait ended)."""
        self.awaited.pop(action_id, None)

    async def run(self, *, task_status: TaskStatus[None] = anyio.TASK_STATUS_IGNORED) -> None:
        """Poll until cancelled."""
        from humangr.engine.state.reviews import final_key

        task_status.started()
        while True:
            await anyio.sleep(POLL_S)
            for action_id in list(self.awaited)[:MAX_POLLED]:
                try:
                    record = await self.state.decision(final_key(action_id))
                except StateError as exc:  # damaged: quarantined; the wait times out, unapproved
                    log.warning("%s: its final decision cannot be read: %s", action_id, exc)
                    self.unwatch(action_id)
                    continue
                if record is None:
                    continue
                report = record.report
                if report.action_id != action_id:
                    continue  # ``decisions`` checks this; never deliver another action's
                self.unwatch(action_id)
                try:
                    await self.bus.publish(self.subjects.decision(report.agent_id), encode(report))
                except BusClosedError:
                    return
