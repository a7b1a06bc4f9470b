"""Start ``humangr mcp-gateway`` as an MCP client would (a subprocess on stdio) in front of
``upstream_server.py``, and read what the upstream received."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, TextIO

from mcp import ClientSession, StdioServerParameters, stdio_client, types
from mcp_helpers import ROOT, humangr_command

UPSTREAM = str(Path(__file__).with_name("upstream_server.py"))
AWS_KEY = "AKIAQWERTYUIOPASDFGH"
AWS_SECRET = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYzEXAMPLEKEYzz"


def upstream_command(*extra: str) -> list[str]:
    """The command that starts the test upstream."""
    return [sys.executable, UPSTREAM, *extra]


def received(log: Path) -> list[dict[str, Any]]:
    """Every call the upstream received, in order."""
    if not log.exists():
        return []
    return [json.loads(line) for line in log.read_text().splitlines() if line.strip()]


def received_tools(log: Path) -> list[str]:
    return [entry["tool"] for entry in received(log)]


def text(result: types.CallToolResult) -> str:
    return "\n".join(c.text for c in result.content if isinstance(c, types.TextContent))


@asynccontextmanager
async def gateway_session(
    *args: str,
    log: Path,
    errlog: TextIO,
    upstream: list[str] | None = None,
    env: dict[str, str] | None = None,
) -> AsyncIterator[ClientSession]:
    """``humangr mcp-gateway ARGS -- UPSTREAM`` (no upstream: ARGS name them) as a
    subprocess, with an initialized client session; the upstream records into ``log``."""
    command, prefix = humangr_command()
    tail = (
        ["--", *(upstream or upstream_command())]
        if upstream is not None or not any(a.startswith("--upstream") for a in args)
        else []
    )
    environ = {"UPSTREAM_LOG": str(log), "PATH": os.environ.get("PATH", ""), **(env or {})}
    params = StdioServerParameters(
        command=command, args=[*prefix, "mcp-gateway", *args, *tail], cwd=ROOT, env=environ
    )
    async with (
        stdio_client(params, errlog=errlog) as (read, write),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        yield session


@asynccontextmanager
async def direct_session(log: Path, errlog: TextIO) -> AsyncIterator[ClientSession]:
    """The test upstream without the gateway."""
    params = StdioServerParameters(
        command=sys.executable, args=[UPSTREAM], cwd=ROOT, env={"UPSTREAM_LOG": str(log)}
    )
    async with (
        stdio_client(params, errlog=errlog) as (read, write),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        yield session
