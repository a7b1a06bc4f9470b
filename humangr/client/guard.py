"""``hg.guard``: a tool function that runs only when HUMANGR approves the call."""

from __future__ import annotations

import functools
import inspect
import re
import threading
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, ParamSpec, Protocol, TypeVar, cast, overload

import anyio.from_thread
from anyio.lowlevel import EventLoopToken

from humangr.contracts import ActionContext, HumanLayerReport, Outcome, ToolKind
from humangr.contracts.review import TOOL_NAME_PATTERN
from humangr.contracts.types import MAX_DIFF_BYTES, is_token
from humangr.engine.errors import ConfigError, EngineError, Rejected

from .call_values import Encoder
from .human_route import HumanRoute
from .tool_call import (
    Oversize,
    PreparedCall,
    call_name,
    edited_file_diff,
    prepare_call,
    tool_action,
)


class Reviewer(Protocol):
    """What a guard needs of its client (``Client`` is one)."""

    @property
    def agent_id(self) -> str:
        """The agent the client submits as."""
        ...

    @property
    def closed(self) -> bool:
        """Whether the client was closed."""
        ...

    @property
    def token(self) -> EventLoopToken:
        """The client's event loop, for calls from other threads."""
        ...

    loop_thread: int | None
    """The thread the client's event loop runs in."""

    @property
    def human_reachable(self) -> bool:
        """Whether a human can resolve the client's reviews while the agent waits."""
        ...

    @property
    def route(self) -> HumanRoute:
        """Where a human reaches the client's reviews."""
        ...

    async def review(
        self,
        action: ActionContext | Mapping[str, Any],
        *,
        final: bool = False,
        timeout: float | None = None,
    ) -> HumanLayerReport:
        """Submit ``action`` and return its checked decision."""
        ...


__all__ = ["Guard", "Guarding", "NeedsReview", "ToolOptions"]

P = ParamSpec("P")
R = TypeVar("R")
NeedsReview = Literal["wait", "raise"]
_TOOL = re.compile(TOOL_NAME_PATTERN)


@dataclass(frozen=True, slots=True)
class ToolOptions:
    """How a guard turns a call into the tool call it reviews (``Client.guard``'s options)."""

    tool: str | None = None
    """The tool's name as the review shows it; the function's name by default."""
    kind: ToolKind | str | None = None
    """What the tool does; inferred from the name and the arguments when not given."""
    workspace: str | None = None
    """The folder the tool works in; paths outside it are reported."""
    encoders: Mapping[type, Encoder] = field(default_factory=dict)
    """JSON forms of argument types msgspec does not know (``{Money: lambda m: str(m)}``)."""
    decoders: Mapping[type, Encoder] = field(default_factory=dict)
    """How to rebuild a mutable registered type from its reviewed JSON."""
    oversize: Oversize = "refuse"
    """Arguments past ``max_bytes``: ``refuse`` (the call does not run) or ``review`` (cut,
    marked not fully reviewed, so a human decides)."""
    max_bytes: int = MAX_DIFF_BYTES

    def check(self) -> None:
        if self.tool is not None and not _TOOL.match(self.tool):
            raise ConfigError(
                f"guard: tool {self.tool!r} must be 1-128 letters, digits, _, . or - "
                "(the name the review shows)"
            )
        if self.kind is not None:
            try:
                ToolKind(self.kind)
            except ValueError:
                kinds = ", ".join(k.value for k in ToolKind)
                raise ConfigError(f"guard: kind {self.kind!r} is not one of {kinds}") from None
        if self.oversize not in ("refuse", "review"):
            raise ConfigError("guard: oversize must be 'refuse' or 'review'")
        if not 1 <= self.max_bytes <= MAX_DIFF_BYTES:
            raise ConfigError(f"guard: max_bytes must be within 1..{MAX_DIFF_BYTES:,}")
        for name, table in (("encoders", self.encoders), ("decoders", self.decoders)):
            for key, fn in table.items():
                if not isinstance(key, type) or not callable(fn):
                    raise ConfigError(f"guard: {name} maps types to functions")


class Guard:
    """A decorator made by ``Client.guard``: reviews each call, runs it only when approved."""

    def __init__(
        self,
        client: Reviewer,
        *,
        agent_id: str | None,
        action_type: str,
        on_needs_review: NeedsReview | None,
        timeout: float | None,
        sync_only: bool = False,
        tool: ToolOptions | None = None,
    ) -> None:
        if on_needs_review is None:  # wait only where a human can answer
            on_needs_review = "wait" if client.human_reachable else "raise"
        if on_needs_review not in ("wait", "raise"):
            raise ConfigError(
                f"guard: on_needs_review must be 'wait' (for the human) or 'raise', "
                f"not {on_needs_review!r}"
            )
        if agent_id is not None and not is_token(agent_id):
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
        self.tool = tool or ToolOptions()
        self.tool.check()

    def tool_name(self, func: Callable[..., Any]) -> str:
        """The name the review gives the tool: ``tool=``, else the function's name."""
        name = self.tool.tool or str(getattr(func, "__name__", ""))
        if not _TOOL.match(name):
            raise ConfigError(
                f"guard: {call_name(func)}'s name {name[:80]!r} is not a tool name (1-128 "
                "letters, digits, _, . or -): give one with guard(tool=...)"
            )
        return name

    def __call__(self, func: Callable[P, R]) -> Callable[P, R]:
        """``func`` guarded: each call reviewed first, run only when approved — with the
        values that were reviewed."""
        self.tool_name(func)
        if isinstance(func, functools.partial) and func.args:
            raise ConfigError(
                f"guard: a functools.partial of {call_name(func.func)} binds positional "
                "arguments, which the review would not see: bind them by keyword "
                "(partial(f, x=...)) or guard the function itself"
            )
        if inspect.isasyncgenfunction(func) and not self.sync_only:
            agen = cast(Callable[..., AsyncIterator[Any]], func)

            @functools.wraps(func)
            async def guarded_agen(*args: Any, **kwargs: Any) -> AsyncIterator[Any]:
                approved = await self.check(func, args, kwargs)  # before its first item
                async for item in agen(*approved.args, **approved.kwargs):
                    yield item

            return cast(Callable[P, R], guarded_agen)
        if inspect.iscoroutinefunction(func):
            if self.sync_only:
                raise TypeError(
                    f"{call_name(func)} is async: guard it with the async client "
                    "(`async with humangr.connect() as hg`), not connect_sync"
                )
            coro = cast(Callable[P, Awaitable[Any]], func)

            @functools.wraps(func)
            async def guarded_async(*args: P.args, **kwargs: P.kwargs) -> Any:
                approved = await self.check(func, args, kwargs)
                return await coro(*approved.args, **approved.kwargs)

            return cast(Callable[P, R], guarded_async)

        @functools.wraps(func)
        def guarded(*args: P.args, **kwargs: P.kwargs) -> R:
            approved = self.check_blocking(func, args, kwargs)
            return func(*approved.args, **approved.kwargs)

        return guarded

    def prepare(
        self, func: Callable[..., Any], args: tuple[Any, ...], kwargs: Mapping[str, Any]
    ) -> PreparedCall:
        """The tool call to review and the reviewed values to run with (``ArgumentError``
        for an argument that cannot be reviewed faithfully)."""
        options = self.tool
        return prepare_call(
            func,
            args,
            kwargs,
            tool=self.tool_name(func),
            kind=ToolKind(options.kind) if options.kind is not None else None,
            workspace=options.workspace,
            encoders=options.encoders,
            decoders=options.decoders,
            max_bytes=options.max_bytes,
            oversize=options.oversize,
        )

    async def check(
        self, func: Callable[..., Any], args: tuple[Any, ...], kwargs: Mapping[str, Any]
    ) -> PreparedCall:
        """Review the call; return what to run it with when approved, else raise ``Rejected``
        (the call must not run)."""
        prepared = self.prepare(func, args, kwargs)
        diff = await edited_file_diff(prepared.tool_call, max_bytes=self.tool.max_bytes // 2)
        action = tool_action(
            prepared,
            agent_id=self.agent_id or self.client.agent_id,
            action_type=self.action_type,
            call=call_name(func),
            code_diff=diff,
        )
        final = self.on_needs_review == "wait"
        report = await self.client.review(action, final=final, timeout=self.timeout)
        if report.outcome is Outcome.NEEDS_REVIEW and not report.resolved_by:
            raise Rejected(report, prepared.tool_call.name, hint=self._no_wait(report.action_id))
        if report.outcome is not Outcome.APPROVED:
            raise Rejected(report, prepared.tool_call.name)
        return prepared

    def _no_wait(self, action_id: str) -> str:
        """What a ``needs_review`` the guard did not wait for asks of the user."""
        route = self.client.route
        if not route.reachable:
            return (
                "a human must decide, and no human can reach the reviews of an embedded "
                "engine without a state file: connect(state='reviews.db') keeps them for "
                "`humangr resolve --state reviews.db` and lets the guard wait for the decision"
            )
        return (
            f"a human may decide with `{route.resolve_command(action_id)}`; "
            "guard(on_needs_review='wait') waits for that decision"
        )

    def check_blocking(
        self, func: Callable[..., Any], args: tuple[Any, ...], kwargs: Mapping[str, Any]
    ) -> PreparedCall:
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

    def _guard_target(self) -> tuple[Reviewer, bool]:
        raise NotImplementedError

    @overload
    def guard(self, func: Callable[P, R]) -> Callable[P, R]: ...

    @overload
    def guard(
        self,
        *,
        agent_id: str | None = None,
        action_type: str = "tool_call",
        on_needs_review: NeedsReview | None = None,
        timeout: float | None = None,
        tool: str | None = None,
        kind: ToolKind | str | None = None,
        workspace: str | None = None,
        encoders: Mapping[type, Encoder] | None = None,
        decoders: Mapping[type, Encoder] | None = None,
        oversize: Oversize = "refuse",
    ) -> Guard: ...

    def guard(
        self,
        func: Callable[..., Any] | None = None,
        *,
        agent_id: str | None = None,
        action_type: str = "tool_call",
        on_needs_review: NeedsReview | None = None,
        timeout: float | None = None,
        tool: str | None = None,
        kind: ToolKind | str | None = None,
        workspace: str | None = None,
        encoders: Mapping[type, Encoder] | None = None,
        decoders: Mapping[type, Encoder] | None = None,
        oversize: Oversize = "refuse",
    ) -> Callable[..., Any] | Guard:
        """Review every call of the decorated function before it runs, as a tool call (its
        arguments as JSON): it runs only when approved, with the reviewed values, else
        ``humangr.Rejected`` carries the decision (the sync client's calls block until their
        review). ``tool``/``kind`` name the tool and what it does (else inferred);
        ``workspace`` is the folder it may work in; ``encoders``/``decoders`` give argument
        types a JSON form; ``oversize="review"`` lets arguments past the size limit be cut
        and sent to a human instead of refused.

        ``on_needs_review`` says what a ``needs_review`` does: ``"wait"`` for the human's
        final decision (one WARNING names the command that resolves it), or ``"raise"``
        ``Rejected`` at once. By default it waits where a human can answer — a served engine,
        or the embedded one with ``connect(state=...)`` — and raises on the embedded engine
        without a state file, whose reviews no human can reach: never a silent day-long
        wait."""
        client, sync_only = self._guard_target()
        guard = Guard(
            client,
            agent_id=agent_id,
            action_type=action_type,
            on_needs_review=on_needs_review,
            timeout=timeout,
            sync_only=sync_only,
            tool=ToolOptions(
                tool=tool,
                kind=kind,
                workspace=workspace,
                encoders=dict(encoders or {}),
                decoders=dict(decoders or {}),
                oversize=oversize,
            ),
        )
        return guard if func is None else guard(func)
