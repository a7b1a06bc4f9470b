"""What the bus conformance checks share: the deadline of every wait, and the helpers that
receive, wait, run tasks and expect errors, failing with an ``AssertionError`` that says what
misbehaved."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager

import anyio
from anyio.abc import TaskGroup

from .base import Msg, Subscription

__all__ = ["DEADLINE"]

DEADLINE = 10.0


def _fail(message: str) -> AssertionError:
    return AssertionError(message)


async def _receive(sub: Subscription, count: int, what: str) -> list[Msg]:
    got: list[Msg] = []
    with anyio.move_on_after(DEADLINE):
        async for msg in sub:
            got.append(msg)
            if len(got) == count:
                return got
        raise _fail(
            f"{what}: subscription to {sub.subject!r} ended after {len(got)} of {count} messages"
        )
    raise _fail(
        f"{what}: got {len(got)} of {count} messages on {sub.subject!r} within {DEADLINE:g}s"
    )


async def _until(condition: Callable[[], bool], what: str) -> None:
    with anyio.move_on_after(DEADLINE):
        while not condition():  # noqa: ASYNC110 - polling bus state that has no event
            await anyio.sleep(0.005)
        return
    raise _fail(f"{what} (waited {DEADLINE:g}s)")


@asynccontextmanager
async def _tasks() -> AsyncIterator[TaskGroup]:
    """A task group whose one failure (a check's ``AssertionError``) comes out as itself."""
    try:
        async with anyio.create_task_group() as tg:
            yield tg
    except BaseExceptionGroup as group:
        if len(group.exceptions) == 1:
            raise group.exceptions[0] from None
        raise


async def _raises(
    kind: type[BaseException], call: Callable[[], Awaitable[object]], what: str
) -> BaseException:
    try:
        await call()
    except kind as exc:
        return exc
    except Exception as exc:
        raise _fail(f"{what}: expected {kind.__name__}, got {type(exc).__name__}: {exc}") from exc
    raise _fail(f"{what}: expected {kind.__name__}, nothing was raised")
