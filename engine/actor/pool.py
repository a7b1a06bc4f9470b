"""``WorkerPool``: the long-lived tasks that handle one actor's messages, instead of a task per
message.

An actor's routes hand each message they take from their mailboxes to the pool once they hold
a slot of the actor's concurrency limit (``Actor.max_concurrency``); the slot is given back
when the message has been handled. The pool keeps at most that many workers, started the
first time they are needed and kept while the actor runs: under load a worker goes from one
message to the next without a new task, a task group or a loop turn in between; an idle one
waits for the next message. Since a message enters the pool only with a slot, the pool never
holds more messages than the limit: backpressure stays on the mailboxes.

A worker handles its messages one after another in one task: a ``ContextVar`` a handler sets
must be reset by it (``token``/``reset``, as ``engine/llm/retry.py`` does in a ``with``
block), or the next message of that worker sees it.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Awaitable, Callable
from typing import Any

import anyio
from anyio.abc import TaskGroup

from humangr.engine.bus import Msg

from .base import Route

__all__ = ["WorkerPool"]

Handle = Callable[[Route[Any], Msg], Awaitable[None]]


class WorkerPool:
    """At most ``size`` workers in ``tg``, each running ``handle`` on the messages ``put`` in,
    oldest first. ``close`` lets the workers finish what was put in, then end (``tg`` then
    exits once its other tasks did). A ``handle`` that raises ends its worker with the error
    (its task group's to handle): ``handle`` is expected to keep a message's failure to
    itself, as ``Delivery.deliver`` does."""

    __slots__ = ("_closing", "_handle", "_idle", "_queue", "_size", "_tg", "workers")

    def __init__(self, tg: TaskGroup, size: int, handle: Handle) -> None:
        if size < 1:
            raise ValueError(f"a worker pool needs at least one worker, got {size}")
        self._tg = tg
        self._size = size
        self._handle = handle
        self._queue: deque[tuple[Route[Any], Msg]] = deque()
        self._idle: list[anyio.Event] = []
        self._closing = False
        self.workers = 0
        """Workers running (busy or idle)."""

    @property
    def queued(self) -> int:
        """Messages put in and not yet taken by a worker."""
        return len(self._queue)

    def put(self, route: Route[Any], msg: Msg) -> None:
        """Queue ``msg`` for the next free worker: an idle one is woken, else a new one is
        started while there are fewer than ``size``; otherwise a busy one takes it when done.
        The caller bounds what is queued (it holds a slot of the actor's limit per message)."""
        if self._closing:
            raise RuntimeError("the worker pool is closed; no message can be put in")
        self._queue.append((route, msg))
        if self._idle:
            self._idle.pop().set()
        elif self.workers < self._size:
            self.workers += 1
            self._tg.start_soon(self._work)

    def close(self) -> None:
        """No more messages: the workers end once the queue is empty."""
        self._closing = True
        idle, self._idle = self._idle, []
        for wake in idle:
            wake.set()

    async def _work(self) -> None:
        queue, handle = self._queue, self._handle
        try:
            while True:
                while queue:
                    route, msg = queue.popleft()
                    await handle(route, msg)
                if self._closing:
                    return
                wake = anyio.Event()
                self._idle.append(wake)
                try:
                    await wake.wait()
                except BaseException:  # cancelled while idle
                    if wake in self._idle:
                        self._idle.remove(wake)
                    raise
        finally:
            self.workers -= 1
