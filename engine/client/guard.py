"""``hg.guard``: a tool function that runs only when HUMANGR approves the call."""

from __future__ import annotations

import functools
import inspect
import re
import threading
from collections.abc import Awaitable, Callable, Mapping
from typing import TYPE_CHECKING, Any, Literal, ParamSpec, TypeVar, cast, overload

import anyio.from_thread

from humangr.contracts import HumanLayerReport, Outcome
from humangr.engine.errors import ConfigError, EngineError, Rejected

from .render import call_action, call_name

if TYPE_CHECKING:
    from .client import Client

__all__ = ["Guard", "Guarding", "NeedsReview"]

P = ParamSpec("P")
R = TypeVar("R")
NeedsReview = Literal["wait", "raise"]
_TOKEN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$")


class Guard:
    """A decorator made by ``Client.guard``: reviews each call, runs it only when approved."""

    def __init__(
        self,
        client: Client,
        *,
        agent_id: str | None,
        action_type: str,
        on_needs_review: NeedsReview,
        timeout: float | None,
        sync_only: bool = False,
    ) -> None:
        if on_needs_review not in ("wait", "raise"):
            raise ConfigError(
                f"guard: on_needs_review must be 'wait' (for the human) or 'raise', "
                f"not {on_needs_review!r}"
            )
        if agent_id is not None and not _TOKEN.match(agent_id):
            raise ConfigError(f"guard: agent_id {agent_id!r} must be 1-64 letters, digits, _ or -")
        if not 1 <= len(action_type) <= 128:
            raise ConfigError("guard: action_type must be 1-128 characters")
        if timeout is not None and timeout <= 0:
            raise ConfigError("guard: timeout must be a positive number of seconds")
        self.client = client
        self.agent_id = agent_id
        self.action_type = action_type
        self.on_needs_review = on_needs_review
        self.timeout = timeout
        self.sync_only = sync_only

    def __call__(self, func: Callable[P, R]) -> Callable[P, R]:
        """``func`` guarded: each call reviewed first, run only when approved."""
        if inspect.iscoroutinefunction(func):
            if self.sync_only:
                raise TypeError(
                    f"{call_name(func)} is async: guard it with the async client "
                    "(`async with humangr.connect() as hg`), not connect_sync"
                )
            coro = cast(Callable[P, Awaitable[Any]], func)

            @functools.wraps(func)
            async def guarded_async(*args: P.args, **kwargs: P.kwargs) -> Any:
                await self.check(func, args, kwargs)
                return await coro(*args, **kwargs)

            return cast(Callable[P, R], guarded_async)

        @functools.wraps(func)
        def guarded(*args: P.args, **kwargs: P.kwargs) -> R:
            self.check_blocking(func, args, kwargs)
            return func(*args, **kwargs)

        return guarded

    async def check(
        self, func: Callable[..., Any], args: tuple[Any, ...], kwargs: Mapping[str, Any]
    ) -> HumanLayerReport:
        """Review the call; return the approval, else raise ``Rejected`` (the call must not
        run)."""
        action = call_action(
            func,
            args,
            kwargs,
            agent_id=self.agent_id or self.client.agent_id,
            action_type=self.action_type,
        )
        final = self.on_needs_review == "wait"
        report = await self.client.review(action, final=final, timeout=self.timeout)
        if report.outcome is not Outcome.APPROVED:
            raise Rejected(report, call_name(func))
        return report

    def check_blocking(
        self, func: Callable[..., Any], args: tuple[Any, ...], kwargs: Mapping[str, Any]
    ) -> HumanLayerReport:
        """``check`` from a thread that is not the client's event loop (a sync tool)."""
        if self.client.closed:
            raise EngineError(
                f"{call_name(func)} was not run: its HUMANGR client is closed; call guarded "
                "tools inside `with connect_sync()` / `async with connect()`"
            )
        if threading.get_ident() == self.client.loop_thread:
            raise EngineError(
                f"{call_name(func)} is a sync function guarded by an async HUMANGR client and "
                "was called inside its event loop, where waiting for the review would block "
                "the loop: make the tool `async def`, run it with `await "
                "anyio.to_thread.run_sync(...)`, or use humangr.connect_sync() in sync code"
            )
        return anyio.from_thread.run(self.check, func, args, kwargs, token=self.client.token)


class Guarding:
    """``guard`` for a client: ``@hg.guard`` or ``@hg.guard(agent_id=..., ...)``. The client
    says which ``Client`` reviews the calls and whether only sync functions may be guarded."""

    def _guard_target(self) -> tuple[Client, bool]:
        raise NotImplementedError

    @overload
    def guard(self, func: Callable[P, R]) -> Callable[P, R]: ...

    @overload
    def guard(
        self,
        *,
        agent_id: str | None = None,
        action_type: str = "tool_call",
        on_needs_review: NeedsReview = "wait",
        timeout: float | None = None,
    ) -> Guard: ...

    def guard(
        self,
        func: Callable[..., Any] | None = None,
        *,
        agent_id: str | None = None,
        action_type: str = "tool_call",
        on_needs_review: NeedsReview = "wait",
        timeout: float | None = None,
    ) -> Callable[..., Any] | Guard:
        """Review every call of the decorated function before it runs: it runs only when
        approved, else ``humangr.Rejected`` carries the decision (the sync client's calls
        block until their review)."""
        client, sync_only = self._guard_target()
        guard = Guard(
            client,
            agent_id=agent_id,
            action_type=action_type,
            on_needs_review=on_needs_review,
            timeout=timeout,
            sync_only=sync_only,
        )
        return guard if func is None else guard(func)
