"""``MemoryBus``: an in-process bus with NATS semantics and backpressure, for tests and the
embedded default."""

from __future__ import annotations

import math
import secrets
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager
from functools import partial

import anyio

from humangr.engine.errors import BusClosedError, BusTimeoutError, ConfigError, NoRespondersError

from .base import DEFAULT_MAX_PENDING, Headers, Msg, Subscription, check_payload
from .buffer import BoundedBuffer
from .subject import matches, validate_publish_subject, validate_subscribe_subject

__all__ = ["DEFAULT_MAX_WAIT", "MemoryBus", "MemorySubscription"]

DEFAULT_MAX_WAIT = 30.0
"""Longest a ``MemoryBus`` publish waits for room in a full subscriber buffer, in seconds."""


class MemorySubscription(BoundedBuffer):
    """A subscription of a ``MemoryBus``: a bounded buffer drained before awaiting, which wakes
    the publishers waiting for room each time a message is taken."""

    def __init__(self, bus: MemoryBus, subject: str, queue: str | None, max_pending: int) -> None:
        super().__init__(subject, max_pending)
        self.queue = queue
        self.pattern = validate_subscribe_subject(subject)
        self.literal = "*" not in self.pattern and ">" not in self.pattern
        self._bus = bus
        self._room: set[anyio.Event] = set()
        self.closed = False

    async def __anext__(self) -> Msg:
        msg = await super().__anext__()
        if self._room:
            self._wake()
        return msg

    def _wake(self) -> None:
        for event in self._room:
            event.set()
        self._room.clear()

    def watch_room(self, event: anyio.Event) -> None:
        """Set ``event`` when a message is taken from the buffer or the subscription ends."""
        self._room.add(event)

    def unwatch_room(self, event: anyio.Event) -> None:
        self._room.discard(event)

    async def unsubscribe(self) -> None:
        if not self.closed:
            self.closed = True
            self._bus._remove(self)
            self.close_sender()
            self._wake()


_Route = tuple[list[MemorySubscription], dict[str, list[MemorySubscription]]]
"""Plain subscribers, and queue-group members by group, of one published subject."""
_Targets = Callable[[], Sequence[MemorySubscription]]
_INBOX_PREFIX = "_INBOX."
_MAX_ROUTES = 10_000


def _add(route: _Route, sub: MemorySubscription) -> None:
    plain, groups = route
    if sub.queue is None:
        plain.append(sub)
    else:
        groups.setdefault(sub.queue, []).append(sub)


def _discard(route: _Route, sub: MemorySubscription) -> None:
    plain, groups = route
    if sub.queue is None:
        if sub in plain:
            plain.remove(sub)
        return
    members = groups.get(sub.queue)
    if members is not None and sub in members:
        members.remove(sub)
        if not members:
            del groups[sub.queue]


def _alive(sub: MemorySubscription) -> Sequence[MemorySubscription]:
    return () if sub.closed else (sub,)


class MemoryBus:
    """An in-process ``Bus``: subject wildcards, queue groups, bounded buffers, request/reply.

    Backpressure, not loss: a message goes into each matching subscription's buffer at once if
    it has room; a publish to a full buffer waits for room, at most ``max_wait``
    seconds. Only then does that subscriber lose the message: its next iteration raises
    ``SlowConsumerError`` with the count, which the actor system dead-letters. A queue group's
    message goes to a member with room, or to the first member to make some.

    Two publishes never wait, so that backpressure cannot deadlock the engine: a reply to a
    request inbox (``_INBOX.``) that finds it full is dropped (the request has taken its one
    reply), and a bus made with ``max_wait=0`` drops at once as NATS core does. A handler that
    publishes into its own actor's full mailbox waits like any publisher; if every handler of
    the actor does so, nothing drains the mailbox and ``max_wait`` ends the wait with that
    message dead-lettered as lost.
    """

    def __init__(self, *, max_wait: float = DEFAULT_MAX_WAIT) -> None:
        if not (max_wait >= 0 and math.isfinite(max_wait)):
            raise ConfigError(f"MemoryBus max_wait must be a number of seconds >= 0: {max_wait}")
        self.max_wait = max_wait
        self._subs: list[MemorySubscription] = []
        self._routes: dict[str, _Route] = {}
        self._turns: dict[str, int] = {}
        self._closed = False

    def _check_open(self) -> None:
        if self._closed:
            raise BusClosedError("the bus is closed; create a new one")

    def _route(self, subject: str) -> _Route:
        route = self._routes.get(subject)
        if route is None:
            validate_publish_subject(subject)
            tokens = tuple(subject.split("."))
            route = ([], {})
            for sub in self._subs:
                if matches(sub.pattern, tokens):
                    _add(route, sub)
            if not subject.startswith(_INBOX_PREFIX):
                if len(self._routes) > _MAX_ROUTES:
                    self._routes.clear()
                self._routes[subject] = route
        return route

    def receivers(self, subject: str) -> int:
        """How many would receive a message published on ``subject`` now: each plain
        subscription, and one member of each queue group."""
        self._check_open()
        plain, groups = self._route(subject)
        return len(plain) + len(groups)

    def only_receiver(self, subject: str, sub: Subscription) -> bool:
        """Whether ``sub`` alone would receive a message published on ``subject`` now."""
        self._check_open()
        plain, groups = self._route(subject)
        return not groups and len(plain) == 1 and plain[0] is sub

    def _affected(self, sub: MemorySubscription) -> list[_Route]:
        """The cached routes a subscription belongs to (one lookup for a literal subject)."""
        if sub.literal:
            route = self._routes.get(sub.subject)
            return [] if route is None else [route]
        return [
            route
            for subject, route in self._routes.items()
            if matches(sub.pattern, tuple(subject.split(".")))
        ]

    def _offer_group(self, name: str, members: list[MemorySubscription], msg: Msg) -> bool:
        start = self._turns.get(name, 0)
        self._turns[name] = start + 1
        count = len(members)
        if count == 1:  # the common case (one worker of the group in this process)
            return members[0].offer(msg)
        return any(members[(start + offset) % count].offer(msg) for offset in range(count))

    def _members(self, subject: str, name: str) -> Sequence[MemorySubscription]:
        return self._route(subject)[1].get(name, ())

    async def _deliver(self, msg: Msg) -> None:
        """Buffer ``msg`` for every subscriber at once if there is room, else wait for it."""
        plain, groups = self._route(msg.subject)
        waits: list[_Targets] | None = None
        for sub in plain:
            if not sub.offer(msg) and not sub.closed:
                waits = waits or []
                waits.append(partial(_alive, sub))
        for name, members in groups.items():
            if not self._offer_group(name, members, msg):
                waits = waits or []
                waits.append(partial(self._members, msg.subject, name))
        if waits is None:
            return
        wait = 0.0 if msg.subject.startswith(_INBOX_PREFIX) else self.max_wait
        deadline = anyio.current_time() + wait
        for targets in waits:
            if wait <= 0 or not await self._put(msg, targets, deadline):
                left = targets()
                if left:
                    left[0].count_dropped(1, waited=wait)

    @staticmethod
    async def _put(msg: Msg, targets: _Targets, deadline: float) -> bool:
        """Buffer ``msg`` in the first of ``targets()`` to have room; ``False`` if ``deadline``
        passed first (``True`` too when no target is left: they unsubscribed)."""
        with anyio.CancelScope(deadline=deadline):
            while True:
                subs = tuple(targets())
                if not subs or any(sub.offer(msg) for sub in subs):
                    return True
                room = anyio.Event()
                for sub in subs:
                    sub.watch_room(room)
                try:
                    await room.wait()
                finally:
                    for sub in subs:
                        sub.unwatch_room(room)
        return False

    def _has_interest(self, subject: str) -> bool:
        plain, groups = self._route(subject)
        return bool(plain or groups)

    async def publish(
        self,
        subject: str,
        data: bytes,
        *,
        headers: Headers | None = None,
        reply: str | None = None,
    ) -> None:
        """Publish, waiting (at most ``max_wait``) for room in full subscriber buffers."""
        self._check_open()
        payload = check_payload(data)
        await self._deliver(Msg(subject, payload, dict(headers) if headers else None, reply))

    @asynccontextmanager
    async def subscribe(
        self,
        subject: str,
        *,
        queue: str | None = None,
        max_pending: int = DEFAULT_MAX_PENDING,
    ) -> AsyncIterator[Subscription]:
        self._check_open()
        sub = MemorySubscription(self, subject, queue, max_pending)
        self._subs.append(sub)
        for route in self._affected(sub):
            _add(route, sub)
        try:
            yield sub
        finally:
            await sub.unsubscribe()
            sub.close_receiver()

    def _remove(self, sub: MemorySubscription) -> None:
        if sub in self._subs:
            self._subs.remove(sub)
            for route in self._affected(sub):
                _discard(route, sub)

    async def request(
        self,
        subject: str,
        data: bytes,
        *,
        headers: Headers | None = None,
        timeout: float = 5.0,
    ) -> Msg:
        """Publish with an inbox and wait for the first reply; waiting for room in the
        responder's buffer counts against ``timeout``."""
        self._check_open()
        payload = check_payload(data)
        inbox = f"{_INBOX_PREFIX}{secrets.token_hex(8)}"
        async with self.subscribe(inbox, max_pending=1) as sub:
            if not self._has_interest(subject):
                raise NoRespondersError(subject)
            with anyio.move_on_after(timeout):
                await self._deliver(
                    Msg(subject, payload, dict(headers) if headers else None, inbox)
                )
                async for reply in sub:
                    return reply
                raise BusClosedError("the bus closed while waiting for a reply")
        raise BusTimeoutError(subject, timeout)

    async def flush(self, timeout: float = 5.0) -> None:
        self._check_open()

    async def close(self) -> None:
        """Close the bus: subscriptions end after their buffered messages, waiting publishers
        return."""
        if self._closed:
            return
        self._closed = True
        for sub in list(self._subs):
            await sub.unsubscribe()
        self._routes.clear()

    async def __aenter__(self) -> MemoryBus:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.close()
