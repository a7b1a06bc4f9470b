"""``humangr bench --gateway``: what ``humangr mcp-gateway`` adds to an MCP tool call — the same
approved call (``echo``) sent straight to an upstream MCP server and through the gateway in
front of it (embedded engine, local checks, no LLM), each over stdio as a real MCP client does."""

from __future__ import annotations

import os
import statistics
import sys
import tempfile
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

__all__ = ["UPSTREAM", "bench_gateway"]

UPSTREAM = """\
import anyio
from mcp import types
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server

TOOL = types.Tool(
    name="echo",
    description="Echo the text.",
    input_schema={"type": "object", "properties": {"text": {"type": "string"}}},
)


async def list_tools(ctx, params):
    return types.ListToolsResult(tools=[TOOL])


async def call_tool(ctx, params):
    text = (params.arguments or {}).get("text", "")
    return types.CallToolResult(content=[types.TextContent(type="text", text=text)])


async def main():
    server = Server("bench-upstream", on_list_tools=list_tools, on_call_tool=call_tool)
    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())


anyio.run(main)
"""
"""The smallest MCP server with one tool: what is measured is the MCP path, not the tool."""


def _ms(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return round(ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000, 3)


@asynccontextmanager
async def _session(command: str, args: list[str]) -> AsyncIterator[Any]:
    from mcp import ClientSession, StdioServerParameters, stdio_client

    params = StdioServerParameters(command=command, args=args, env=dict(os.environ))
    with tempfile.TemporaryFile("w+") as errlog:
        async with (
            stdio_client(params, errlog=errlog) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            yield session


async def _times(session: Any, calls: int) -> list[float]:
    for i in range(5):  # warm up: the first calls load modules
        await session.call_tool("echo", {"text": f"warm {i}"})
    times: list[float] = []
    for i in range(calls):
        started = time.perf_counter()
        result = await session.call_tool("echo", {"text": f"hello {i}"})
        times.append(time.perf_counter() - started)
        if result.is_error:
            raise RuntimeError(f"the benchmark's echo call failed: {result.content}")
    return times


def _summary(times: list[float]) -> dict[str, Any]:
    return {
        "calls": len(times),
        "p50_ms": _ms(times, 0.5),
        "p99_ms": _ms(times, 0.99),
        "mean_ms": round(statistics.fmean(times) * 1000, 3),
    }


async def bench_gateway(calls: int = 200) -> dict[str, Any]:
    """p50/p99 of an approved ``echo`` straight to the upstream and through the gateway, and
    the gateway's start-up time (to its first listed tool)."""
    with tempfile.TemporaryDirectory() as folder:
        script = Path(folder) / "upstream.py"
        script.write_text(UPSTREAM, encoding="utf-8")
        async with _session(sys.executable, [str(script)]) as direct:
            straight = await _times(direct, calls)
        started = time.perf_counter()
        gateway_args = ["-m", "humangr", "mcp-gateway", "--llm", "none", "--"]
        async with _session(sys.executable, [*gateway_args, sys.executable, str(script)]) as gw:
            await gw.list_tools()
            startup = time.perf_counter() - started
            through = await _times(gw, calls)
    direct_s, gateway_s = _summary(straight), _summary(through)
    return {
        "direct": direct_s,
        "gateway": gateway_s,
        "overhead_p50_ms": round(gateway_s["p50_ms"] - direct_s["p50_ms"], 3),
        "overhead_p99_ms": round(gateway_s["p99_ms"] - direct_s["p99_ms"], 3),
        "startup_ms": round(startup * 1000, 1),
    }
