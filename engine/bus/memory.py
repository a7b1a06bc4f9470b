"""``MemoryBus``: an in-process bus with NATS semantics, for tests and the embedded default."""

from __future__ import annotations

import secrets
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import anyio

from humangr.engine.errors import BusClosedError, BusTimeoutError, NoRespondersError

from .base import DEFAULT_MAX_PENDING, Headers, Msg, Subscription, check_payload
from .buffer import BoundedBuffer
from .subject import matches, validate_publish_subject, validate_subscribe_subject

__all__ = ["MemoryBus", "MemorySubscription"]


class MemorySubscription(BoundedBuffer):
    """A subscription of a ``MemoryBus``: a bounded buffer drained before awaiting."""

    def __init__(self, bus: MemoryBus, subject: str, queue: str | None, max_pending: int) -> None:
        super().__init__(subject, max_pending)
        self.queue = queue
        self.pattern = validate_subscribe_subject(subject)
        self.literal = "*" not in self.pattern and ">" not in self.pattern
        self._bus = bus
        self.closed = False

    async def unsubscribe(self) -> None:
        if not self.closed:
            self.closed = True
            self._bus._remove(self)
            self.close_sender()


_Route = tuple[list[MemorySubscription], dict[str, list[MemorySubscription]]]
"""Plain subscribers, and queue-group members by group, of one published subject."""
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


class MemoryBus:
    """An in-process ``Bus``: subject wildcards, queue groups, bounded buffers, request/reply.

    Delivery never waits: a message goes into each matching subscription's buffer at once, and
    a full buffer drops it and reports a slow consumer, as NATS does.
    """

    def __init__(self) -> None:
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

    def _deliver(self, msg: Msg) -> int:
        plain, groups = self._route(msg.subject)
        delivered = 0
        for sub in plain:
            delivered += sub.deliver(msg)
        for name, members in groups.items():
            start = self._turns.get(name, 0)
            self._turns[name] = start + 1
            count = len(members)
            chosen = members[start % count]
            for offset in range(count):
                candidate = members[(start + offset) % count]
                if candidate.has_room():
                    chosen = candidate
                    break
            delivered += chosen.deliver(msg)
        return delivered

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
        self._check_open()
        payload = check_payload(data)
        self._deliver(Msg(subject, payload, dict(headers) if headers else None, reply))

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
        self._check_open()
        payload = check_payload(data)
        inbox = f"_INBOX.{secrets.token_hex(8)}"
        async with self.subscribe(inbox, max_pending=1) as sub:
            if not self._has_interest(subject):
                raise NoRespondersError(subject)
            self._deliver(Msg(subject, payload, dict(headers) if headers else None, inbox))
            with anyio.move_on_after(timeout):
                async for reply in sub:
                    return reply
                raise BusClosedError("the bus closed while waiting for a reply")
        raise BusTimeoutError(subject, timeout)

    async def flush(self, timeout: float = 5.0) -> None:
        self._check_open()

    async def close(self) -> None:
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
