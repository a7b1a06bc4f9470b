"""``LargeLane``: an actor's large messages (``Actor.large_message_bytes`` or more) wait in a
lane of their own, handled ``Actor.large_concurrency`` at a time; the large core messages held
take ``Actor.large_backlog_bytes`` at most, and a copy of one held is dropped."""

from __future__ import annotations

import contextlib
import logging
from typing import Any

import anyio

from humangr.engine.bus import Msg

from .base import Actor, Route
from .delivery import Delivery, Host
from .letters import payload_correlation

__all__ = ["LargeLane"]

log = logging.getLogger("humangr.actor")


class LargeLane:
    """The large messages of one actor (``Runner``): those waiting, handled or held."""

    def __init__(self, system: Host, actor: Actor, delivery: Delivery) -> None:
        self.system = system
        self.actor = actor
        self.delivery = delivery
        self.lane = anyio.Semaphore(max(1, actor.large_concurrency))
        """Large messages handled at once (``Actor.large_concurrency``)."""
        self.held_ids: set[str] = set()
        """The ``Nats-Msg-Id`` of the large core messages held (waiting or handled): a copy sent
        again while one is held is dropped, not held twice."""
        self.held_bytes = 0
        """Bytes of the large core messages held (``Actor.large_backlog_bytes`` at most)."""

    async def backlog_full(self, route: Route[Any], msg: Msg) -> bool:
        """Refuse (a dead letter, to its sender too) a large core message that would take the
        large ones held past ``Actor.large_backlog_bytes``: a flood of them cannot exhaust the
        memory (durable ones wait on the server instead: JetStream hands out a few at a time)."""
        held, limit = self.held_bytes, self.actor.large_backlog_bytes
        if held + len(msg.data) <= limit or msg.header("Nats-Msg-Id") in self.held_ids:
            return False  # room, or a copy of one held (dropped as such)
        sender = ""
        if route.subject_sender is not None:
            with contextlib.suppress(Exception):
                sender = route.subject_sender(msg.subject) or ""
        await self.delivery.dead_letter(
            route,
            msg,
            f"not taken: this {self.actor.name} holds {held // 1_000_000} MB of large messages "
            f"waiting already (at most {limit // 1_000_000} MB); send it again later",
            correlation=payload_correlation(msg.data),
            reason="refused",
            sender=sender,
        )
        return True

    async def handle(self, route: Route[Any], msg: Msg) -> None:
        """Handle a large message in the lane of large ones (``large_concurrency`` at once);
        while it waits, a durable one is kept from redelivery with progress reports. A core
        message whose ``Nats-Msg-Id`` is held already (sent again: its receipt was lost) is
        dropped (a stream deduplicates durable ones itself)."""
        msg_id = None if msg.durable else msg.header("Nats-Msg-Id")
        if msg_id is not None:
            if msg_id in self.held_ids:
                if route.receipt:
                    self.system.metrics.count_submission("duplicate")
                log.info("actor %s: %s held already; this copy dropped", self.actor.name, msg_id)
                return
            self.held_ids.add(msg_id)
        held = 0 if msg.durable else len(msg.data)
        self.held_bytes += held
        try:
            await self._wait_and_deliver(route, msg)
        finally:
            self.held_bytes -= held
            if msg_id is not None:
                self.held_ids.discard(msg_id)

    async def _wait_and_deliver(self, route: Route[Any], msg: Msg) -> None:
        lane, interval = self.lane, self.system.policy.progress_interval
        waiting = self.system.metrics.large_waiting.labels(self.actor.name)
        waiting.inc()
        try:
            while True:
                with anyio.move_on_after(interval):
                    await lane.acquire()
                    break
                try:
                    await msg.in_progress()
                except Exception as exc:  # the server redelivers after ack_wait at worst
                    log.warning("progress of %s not reported: %s", msg.subject, exc)
        finally:
            waiting.dec()
        try:
            await self.delivery.deliver(route, msg)
        finally:
            lane.release()
