"""Pulling from a durable JetStream consumer into a subscription's buffer, and acknowledging
what was pulled (ack, nak, term, in progress)."""

from __future__ import annotations

import contextlib
import json
import logging
from collections.abc import Awaitable, Callable
from typing import Protocol

import anyio
import nats.errors
from nats.aio.client import Client
from nats.aio.msg import Msg as NatsMsg
from nats.aio.subscription import Subscription as NatsSubscription

from humangr.engine.backoff import Backoff
from humangr.engine.errors import BusClosedError, BusError

from .base import Msg
from .jetstream_config import JetStreamConfig

__all__ = ["JetStreamAcker", "PullConsumer", "PullSink", "from_jetstream"]

_RECOVER = Backoff(0.1, cap=5.0)
"""Waits between tries to restore a consumer whose pull failed."""
log = logging.getLogger("humangr.bus")


class JetStreamAcker:
    """Acknowledges one JetStream message; after ack, nak or term further calls do nothing."""

    __slots__ = ("_done", "_msg")

    def __init__(self, msg: NatsMsg) -> None:
        self._msg = msg
        self._done = False

    async def _send(self, call: Callable[[], Awaitable[None]]) -> None:
        if self._done:
            return
        self._done = True
        try:
            await call()
        except nats.errors.ConnectionClosedError as exc:
            raise BusClosedError("the bus is closed; the message will be redelivered") from exc

    async def ack(self) -> None:
        await self._send(self._msg.ack)

    async def nak(self, delay: float | None = None) -> None:
        await self._send(lambda: self._msg.nak(delay=delay))

    async def term(self) -> None:
        await self._send(self._msg.term)

    async def in_progress(self) -> None:
        if not self._done:
            try:
                await self._msg.in_progress()
            except nats.errors.ConnectionClosedError as exc:
                raise BusClosedError("the bus is closed") from exc


def from_jetstream(msg: NatsMsg, max_deliver: int | None = None) -> Msg:
    """A bus ``Msg`` for a JetStream message, with its acknowledger and delivery counts."""
    data = msg.data if type(msg.data) is bytes else bytes(msg.data)
    return Msg(
        msg.subject,
        data,
        dict(msg.headers) if msg.headers else None,
        None,
        acker=JetStreamAcker(msg),
        delivered=msg.metadata.num_delivered,
        max_deliver=max_deliver,
        sequence=msg.metadata.sequence.stream,
    )


class PullSink(Protocol):
    """Where pulled messages go: a bounded buffer that never waits."""

    def offer(self, msg: Msg) -> bool:
        """Buffer ``msg`` if there is room; ``False`` if there is none (it is not kept)."""
        ...


class PullConsumer:
    """Pulls from one durable consumer into a sink, driven by the subscriber's iteration.

    No task of its own: the iterating task calls ``wait()`` when its buffer is empty, which
    sends a pull request for at most ``room`` messages (expiring after ``poll_interval``) if
    none is open, and returns when a message arrived or the request ended. Messages are handed
    to the sink as they arrive, not when the batch fills.
    """

    def __init__(
        self,
        client: Client,
        stream: str,
        consumer: str,
        sink: PullSink,
        config: JetStreamConfig,
        reensure: Callable[[], Awaitable[None]],
    ) -> None:
        self.consumer = consumer
        self._client = client
        self._next = f"$JS.API.CONSUMER.MSG.NEXT.{stream}.{consumer}"
        self._inbox = client.new_inbox()
        self._sink = sink
        self._config = config
        self._reensure = reensure
        self._inbox_sub: NatsSubscription | None = None
        self._open_until = 0.0
        self._outstanding = 0
        self._problem: str | None = None
        self._failures = 0
        self._changed = anyio.Event()

    async def open(self) -> None:
        self._inbox_sub = await self._client.subscribe(self._inbox, cb=self._on_msg)

    async def close(self) -> None:
        self._changed.set()
        if self._inbox_sub is not None:
            sub, self._inbox_sub = self._inbox_sub, None
            with anyio.move_on_after(5.0, shield=True):
                try:
                    await sub.unsubscribe()
                except nats.errors.Error as exc:
                    log.debug("closing pull consumer %s: %s", self.consumer, exc)

    async def _on_msg(self, msg: NatsMsg) -> None:
        status = msg.headers.get("Status") if msg.headers else None
        if status is None:
            self._outstanding -= 1
            if self._outstanding <= 0:
                self._open_until = 0.0
            if not self._sink.offer(from_jetstream(msg, self._config.max_deliver)):
                with contextlib.suppress(nats.errors.Error):
                    await msg.nak()
        elif status != "100":
            if status not in ("404", "408"):
                description = msg.headers.get("Description", "") if msg.headers else ""
                self._problem = f"status {status} {description}".strip()
            self._open_until = 0.0
        self._changed.set()

    async def wait(self, room: int) -> None:
        """Return once a message was delivered or the open pull request ended."""
        changed = self._changed = anyio.Event()
        now = anyio.current_time()
        if now >= self._open_until:
            if self._problem is not None:
                await self._recover()
                return
            if not self._client.is_connected:
                if self._client.is_closed:
                    raise BusClosedError("the bus connection is closed; create a new bus")
                await anyio.sleep(min(self._config.poll_interval, 0.5))
                return
            batch = max(1, min(room, self._config.fetch_batch))
            expires = int(self._config.poll_interval * 1e9)
            request = json.dumps({"batch": batch, "expires": expires}).encode()
            try:
                await self._client.publish(self._next, request, reply=self._inbox)
            except nats.errors.ConnectionClosedError as exc:
                raise BusClosedError("the bus connection is closed; create a new bus") from exc
            self._outstanding = batch
            self._open_until = now + self._config.poll_interval + 2.0
        with anyio.move_on_after(self._open_until - now):
            await changed.wait()

    async def _recover(self) -> None:
        log.warning(
            "pull from consumer %s failed (%s); retrying in %.1fs",
            self.consumer,
            self._problem,
            _RECOVER.delay(self._failures),
        )
        self._problem = None
        await _RECOVER.sleep(self._failures)
        self._failures += 1
        try:
            await self._reensure()
        except BusError as exc:
            log.warning("could not restore consumer %s: %s", self.consumer, exc)
            return
        self._failures = 0
