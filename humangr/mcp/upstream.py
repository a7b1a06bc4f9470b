"""The gateway's upstream MCP servers: started (a command on stdio) or reached (a streamable
HTTP URL) with the official ``mcp`` client, their tools listed once, their calls bounded in
time. An upstream that crashes is started again (a few times, with a pause); a call in flight
when it crashed fails — it is never sent twice."""

from __future__ import annotations

import logging
import os
import re
import shlex
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any, TextIO

import anyio
from anyio.abc import TaskStatus
from mcp import ClientSession, StdioServerParameters, stdio_client, types
from mcp.shared.exceptions import MCPError
from mcp.shared.message import SessionMessage
from pydantic import ValidationError

from humangr.contracts.review import TOOL_NAME_PATTERN
from humangr.engine.errors import ConfigError, EngineError, sole_exception
from humangr.engine.redact import redact_secrets, redact_url

__all__ = ["SEPARATOR", "Upstream", "UpstreamError", "UpstreamSpec", "parse_upstream"]

log = logging.getLogger("humangr.mcp.gateway")
SEPARATOR = "__"
"""Between an upstream's name and its tool's name (``fs__write_file``): letters, digits, ``_``,
``-`` and ``.`` are the characters the MCP specification allows in a tool name."""
_NAME = re.compile(r"^[A-Za-z0-9](?:[A-Za-z0-9-]|_(?!_)){0,31}$")
_TOOL = re.compile(TOOL_NAME_PATTERN)
MAX_TOOLS = 1_000
MAX_PAGES = 100
MAX_RESTARTS = 5
_CLOSED = -32000  # mcp_types.CONNECTION_CLOSED
_HEALTHY_S = 60.0
"""An upstream that ran this long before it stopped starts its restart count again."""


class UpstreamError(EngineError):
    """An upstream call did not give a usable result; the message is for the agent to read."""


@dataclass(frozen=True, slots=True)
class UpstreamSpec:
    """One upstream: its name (the prefix of its tools; none for a lone upstream), and the
    command that starts it or the URL that reaches it."""

    name: str | None
    command: tuple[str, ...] = ()
    url: str | None = None

    def describe(self) -> str:
        """How logs and errors name it (a URL without its credentials)."""
        what = redact_url(self.url) if self.url else os.path.basename(self.command[0])
        return f"upstream {self.name} ({what})" if self.name else f"upstream {what}"

    def exposed(self, tool: str) -> str:
        """The name the agent sees for the upstream's ``tool``."""
        return f"{self.name}{SEPARATOR}{tool}" if self.name else tool


def parse_upstream(text: str) -> UpstreamSpec:
    """``NAME=COMMAND ARGS…`` (split like a shell would) or ``NAME=http(s)://…``."""
    name, sep, rest = text.partition("=")
    if not sep or not _NAME.match(name) or name.endswith("_"):
        raise ConfigError(
            f"--upstream {text[:80]!r}: give NAME=COMMAND, NAME being 1-32 letters, digits, - or "
            f"single _ (the prefix of its tools: NAME{SEPARATOR}tool)"
        )
    rest = rest.strip()
    if rest.startswith(("http://", "https://")):
        return UpstreamSpec(name, url=rest)
    try:
        words = tuple(shlex.split(rest))
    except ValueError as exc:
        raise ConfigError(f"--upstream {name}: cannot split its command ({exc})") from None
    if not words:
        raise ConfigError(f"--upstream {name}: no command after {name}=")
    return UpstreamSpec(name, command=words)


def _problem(exc: BaseException) -> str:
    """What went wrong, in one line: the one exception inside task groups, secrets hidden."""
    if isinstance(exc, BaseExceptionGroup):
        exc = sole_exception(exc) or exc
    if isinstance(exc, TimeoutError):
        return "it did not answer in time"
    if isinstance(exc, MCPError) and exc.code == _CLOSED:
        return "it closed the connection (it exited or crashed)"
    return redact_secrets(str(exc) or type(exc).__name__)[:300]


def _environment() -> dict[str, str]:
    """The gateway's environment for a started upstream, without HUMANGR's own settings
    (NATS credentials)."""
    return {k: v for k, v in os.environ.items() if not k.startswith("HUMANGR_")}


class Upstream:
    """One upstream server: ``run`` keeps it connected (in a task), ``call`` forwards a call."""

    def __init__(self, spec: UpstreamSpec, *, start_timeout: float, errlog: TextIO | None = None):
        self.spec = spec
        self.start_timeout = start_timeout
        self.errlog = errlog or sys.stderr
        self.tools: dict[str, types.Tool] = {}
        """The tools listed at the first start, by the upstream's own names."""
        self._session: ClientSession | None = None
        self._broken = anyio.Event()
        self._changed = anyio.Event()
        self._dead: str | None = None
        self._started = False

    def _notify(self) -> None:
        old, self._changed = self._changed, anyio.Event()
        old.set()

    @asynccontextmanager
    async def _transport(self) -> AsyncIterator[tuple[Any, Any]]:
        if self.spec.url is not None:
            from mcp.client.streamable_http import streamable_http_client

            async with streamable_http_client(self.spec.url) as streams:
                yield streams[0], streams[1]
            return
        params = StdioServerParameters(
            command=self.spec.command[0], args=list(self.spec.command[1:]), env=_environment()
        )
        async with stdio_client(params, errlog=self.errlog) as (read, write):
            yield read, write

    async def _pump(self, read: Any, send: Any, broken: anyio.Event) -> None:
        """Forward what the upstream sends; its end (a crash, an exit) marks it broken."""
        garbage = 0
        async with send:
            async for item in read:
                if isinstance(item, Exception):  # a line that is not JSON-RPC
                    garbage += 1
                    if garbage <= 3:
                        log.warning("%s wrote a line that is not JSON-RPC", self.spec.describe())
                await send.send(item)
        broken.set()

    async def _list(self, session: ClientSession) -> dict[str, types.Tool]:
        tools: dict[str, types.Tool] = {}
        cursor: str | None = None
        for _page in range(MAX_PAGES):
            params = types.PaginatedRequestParams(cursor=cursor) if cursor else None
            listing = await session.list_tools(params=params)
            for tool in listing.tools:
                exposed = self.spec.exposed(tool.name)
                if not _TOOL.match(tool.name) or not _TOOL.match(exposed):
                    log.warning(
                        "%s: tool %r is not served: its name is not 1-128 letters, digits, _, . "
                        "or - (with its prefix)",
                        self.spec.describe(),
                        tool.name[:80],
                    )
                elif len(tools) < MAX_TOOLS:
                    tools.setdefault(tool.name, tool)
            cursor = listing.next_cursor
            if not cursor:
                break
        return tools

    async def _connected(self, task_status: TaskStatus[None]) -> None:
        self._broken = broken = anyio.Event()
        async with self._transport() as (read, write), anyio.create_task_group() as tg:
            send, receive = anyio.create_memory_object_stream[SessionMessage | Exception](0)
            tg.start_soon(self._pump, read, send, broken)
            async with ClientSession(receive, write) as session:
                with anyio.fail_after(self.start_timeout):
                    await session.initialize()
                    tools = await self._list(session)
                if not self._started:
                    self.tools = tools
                    self._started = True
                    task_status.started()
                self._session = session
                self._notify()
                await broken.wait()
            tg.cancel_scope.cancel()

    async def run(self, *, task_status: TaskStatus[None] = anyio.TASK_STATUS_IGNORED) -> None:
        """Start the upstream, list its tools, then keep it running: started again after a
        crash (at most ``MAX_RESTARTS`` times in a row), else every call fails clearly. A first
        start that fails raises ``ConfigError``."""
        failures = 0
        while True:
            began = anyio.current_time()
            try:
                await self._connected(task_status)
                problem = "it closed the connection"
            except Exception as exc:
                problem = _problem(exc)
                if not self._started:
                    raise ConfigError(
                        f"{self.spec.describe()} did not start: {problem}; check its command"
                    ) from None
            finally:
                self._session = None
            if not self._started:
                raise ConfigError(f"{self.spec.describe()} closed before it listed its tools")
            failures = 1 if anyio.current_time() - began > _HEALTHY_S else failures + 1
            if failures > MAX_RESTARTS:
                self._dead = f"{self.spec.describe()} stopped ({problem}) and was not restarted"
                log.error("%s", self._dead)
                self._notify()
                return
            log.warning("%s: %s; starting it again", self.spec.describe(), problem)
            self._notify()
            await anyio.sleep(min(0.1 * 2**failures, 3.0))

    async def _ready(self) -> tuple[ClientSession, anyio.Event]:
        """The live session and the event that marks it broken (its own, never a later
        session's)."""
        while self._session is None or self._broken.is_set():
            if self._dead is not None:
                raise UpstreamError(self._dead)
            await self._changed.wait()
        return self._session, self._broken

    async def call(
        self, tool: str, arguments: dict[str, Any], *, timeout: float
    ) -> types.CallToolResult:
        """Forward one reviewed call; any failure is an ``UpstreamError`` saying what happened
        (the call is never retried: it may have run)."""
        what = self.spec.describe()
        broken: anyio.Event | None = None
        try:
            with anyio.fail_after(timeout):
                session, broken = await self._ready()
                return await session.call_tool(tool, arguments)
        except UpstreamError:
            raise
        except TimeoutError:
            raise UpstreamError(
                f"{what} did not answer the call of {tool} within {timeout:g}s"
            ) from None
        except MCPError as exc:
            if exc.code == _CLOSED:
                if broken is not None:
                    broken.set()
                raise UpstreamError(
                    f"{what} closed the connection during the call of {tool} (it crashed or "
                    "exited); it is started again for the next call, this one is not retried"
                ) from None
            raise UpstreamError(
                f"{what} answered the call of {tool} with an error: {exc}"
            ) from None
        except RuntimeError as exc:
            raise UpstreamError(f"{what} returned an invalid result for {tool}: {exc}") from None
        except (ValidationError, ValueError) as exc:
            raise UpstreamError(
                f"{what} returned a result for {tool} that is not a tool result: "
                f"{redact_secrets(str(exc))[:300]}"
            ) from None
        except (anyio.BrokenResourceError, anyio.ClosedResourceError, OSError):
            if broken is not None:
                broken.set()
            raise UpstreamError(
                f"{what}: the connection broke during the call of {tool}; it is started again "
                "for the next call, this one is not retried"
            ) from None
        except Exception as exc:
            raise UpstreamError(f"{what}: the call of {tool} failed: {_problem(exc)}") from None
