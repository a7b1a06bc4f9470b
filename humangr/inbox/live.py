"""Live updates of the inbox: what the pages learn by server-sent events.

One ``Hub`` per inbox listens to ``hl.reviews.pending`` (a review arrives) and
``hl.decisions.>`` (a human or the deadline decided one), and also asks the Supervisor for the
pending list every ``poll_s`` seconds — that catches what a core NATS subscription can miss and
what another process did to a ``--state`` file. Each browser gets a bounded queue; a browser
that falls that far behind is dropped (its page reconnects and reloads the list).
"""

from __future__ import annotations

import json
import logging
from collections import deque
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Literal

import anyio
from anyio.abc import TaskStatus
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream

from humangr.contracts import HumanLayerReport, ReviewRequested, decode
from humangr.engine.bus import Subscription
from humangr.engine.errors import (
    BusClosedError,
    ContractError,
    EngineError,
    SignatureError,
    SlowConsumerError,
)
from humangr.engine.metrics import Metrics
from humangr.reviewing import Channel, list_reviews

__all__ = ["Hub", "LiveEvent", "TooManyClients", "TooManyStreams"]

log = logging.getLogger("humangr.inbox")
Kind = Literal["review", "decided"]


class TooManyClients(EngineError):
    """The inbox already streams to as many browsers as it allows."""


class TooManyStreams(TooManyClients):
    """This reviewer already has as many live pages open as one reviewer may."""


@dataclass(frozen=True, slots=True)
class LiveEvent:
    """A review arrived (``review``) or left the pending list (``decided``)."""

    kind: Kind
    action_id: str
    outcome: str = ""

    def sse(self) -> bytes:
        """The event in the ``text/event-stream`` format."""
        data = json.dumps({"action_id": self.action_id, "outcome": self.outcome})
        return f"event: {self.kind}\ndata: {data}\n\n".encode()


class Hub:
    """Fans the inbox's events out to every connected browser."""

    def __init__(
        self,
        channel: Channel,
        metrics: Metrics,
        *,
        poll_s: float = 5.0,
        queue_size: int = 32,
        max_clients: int = 100,
        max_per_reviewer: int = 8,
        recent: int = 50,
    ) -> None:
        self.channel = channel
        self.metrics = metrics
        self.poll_s = poll_s
        self.queue_size = queue_size
        self.max_clients = max_clients
        self.max_per_reviewer = max_per_reviewer
        self._by_reviewer: dict[str, int] = {}
        self.recent: deque[HumanLayerReport] = deque(maxlen=recent)
        """Final decisions seen since the inbox started, newest first."""
        self._clients: set[MemoryObjectSendStream[LiveEvent]] = set()
        self._pending: set[str] | None = None

    async def run(self, *, task_status: TaskStatus[None] = anyio.TASK_STATUS_IGNORED) -> None:
        """Listen and poll until cancelled; every browser's stream ends when it stops."""
        bus, subjects = self.channel.bus, self.channel.subjects
        try:
            async with (
                bus.subscribe(subjects.reviews_pending) as pending,
                bus.subscribe(subjects.decisions) as decisions,
                anyio.create_task_group() as tg,
            ):
                await bus.flush()
                tg.start_soon(self._listen, pending, self._on_request)
                tg.start_soon(self._listen, decisions, self._on_decision)
                tg.start_soon(self._poll)
                task_status.started()
        finally:
            for client in list(self._clients):
                client.close()
            self._clients.clear()
            self.metrics.inbox_live_clients.set(0)

    @asynccontextmanager
    async def events(
        self, reviewer: str = ""
    ) -> AsyncIterator[MemoryObjectReceiveStream[LiveEvent]]:
        """A browser's bounded queue of events while the block runs; ``TooManyStreams`` if
        ``reviewer`` has ``max_per_reviewer`` pages open already (one reviewer cannot take
        every slot), ``TooManyClients`` if the inbox is full."""
        open_now = self._by_reviewer.get(reviewer, 0)
        if open_now >= self.max_per_reviewer:
            raise TooManyStreams(
                f"you have {open_now} live pages open, the most one reviewer may; close one "
                "(or reload it) to follow the reviews here"
            )
        if len(self._clients) >= self.max_clients:
            raise TooManyClients(f"the inbox streams to {self.max_clients} pages already")
        send, receive = anyio.create_memory_object_stream[LiveEvent](self.queue_size)
        self._clients.add(send)
        self._by_reviewer[reviewer] = open_now + 1
        self.metrics.inbox_live_clients.set(len(self._clients))
        try:
            with receive:
                yield receive
        finally:
            self._clients.discard(send)
            left = self._by_reviewer.get(reviewer, 1) - 1
            if left > 0:
                self._by_reviewer[reviewer] = left
            else:
                self._by_reviewer.pop(reviewer, None)
            send.close()
            self.metrics.inbox_live_clients.set(len(self._clients))

    def publish(self, event: LiveEvent) -> None:
        """Queue ``event`` for every browser; one whose queue is full is dropped."""
        for client in list(self._clients):
            try:
                client.send_nowait(event)
            except anyio.WouldBlock:
                log.info("a page fell %d events behind; dropped (it reconnects)", self.queue_size)
                self.metrics.inbox_live_dropped.inc()
                self._clients.discard(client)
                client.close()
            except (anyio.BrokenResourceError, anyio.ClosedResourceError):
                self._clients.discard(client)
        self.metrics.inbox_live_clients.set(len(self._clients))

    async def _listen(self, sub: Subscription, handle: Callable[[bytes], None]) -> None:
        while True:
            try:
                msg = await sub.__anext__()
            except StopAsyncIteration:
                return
            except SlowConsumerError as exc:
                log.warning("the inbox missed events (%s); the next poll catches up", exc)
                continue
            try:
                handle(msg.data)
            except ContractError as exc:
                log.debug("inbox: skipped a message on %s: %s", msg.subject, exc)

    def _on_request(self, data: bytes) -> None:
        request = decode(data, ReviewRequested)
        if self._pending is not None:
            self._pending.add(request.action_id)
        self.publish(LiveEvent("review", request.action_id))

    def _on_decision(self, data: bytes) -> None:
        try:  # verified against the channel's keys, or marked "unsigned: not verified"
            report = self.channel.shown(decode(data, HumanLayerReport))
        except SignatureError as exc:
            log.warning("inbox: skipped a decision no trusted key signed: %s", exc)
            return
        if not report.resolved_by:
            return
        kept = [r for r in self.recent if r.action_id != report.action_id]
        self.recent.clear()
        self.recent.extend([report, *kept])
        if self._pending is not None:
            self._pending.discard(report.action_id)
        self.publish(LiveEvent("decided", report.action_id, report.outcome.value))

    async def _poll(self) -> None:
        failing = False
        while True:
            try:
                listing = await list_reviews(self.channel, limit=1_000)
            except BusClosedError:
                raise
            except EngineError as exc:
                if not failing:
                    log.warning("the inbox cannot list the pending reviews: %s", exc)
                failing = True
            else:
                failing = False
                self._compare({review.action_id for review in listing.reviews})
            await anyio.sleep(self.poll_s)

    def _compare(self, now: set[str]) -> None:
        before, self._pending = self._pending, now
        if before is None:
            return
        for action_id in sorted(now - before):
            self.publish(LiveEvent("review", action_id))
        for action_id in sorted(before - now):
            self.publish(LiveEvent("decided", action_id))
