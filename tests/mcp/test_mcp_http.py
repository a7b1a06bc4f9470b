"""``humangr mcp --transport http``: streamable HTTP on a free port, graceful stop on SIGTERM."""

from __future__ import annotations

import re
import signal
import socket

import anyio
import pytest
from anyio.streams.text import TextReceiveStream
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client
from mcp_helpers import EVAL_DIFF, ROOT, TIMEOUT, data, humangr_command

pytestmark = pytest.mark.anyio

SERVING = re.compile(r"serving on (http://127\.0\.0\.1:\d+/mcp)")


async def test_http_transport_serves_tools_and_stops_on_sigterm() -> None:
    command, prefix = humangr_command()
    argv = [command, *prefix, "mcp", "--transport", "http", "--port", "0", "--llm", "none"]
    with anyio.fail_after(TIMEOUT):
        async with await anyio.open_process(argv, cwd=ROOT) as process:
            assert process.stderr is not None
            log = ""
            async for chunk in TextReceiveStream(process.stderr):
                log += chunk
                if match := SERVING.search(log):
                    break
            assert match, log
            async with (
                streamable_http_client(match.group(1)) as (read, write),
                ClientSession(read, write) as session,
            ):
                await session.initialize()
                layers = data(await session.call_tool("list_layers", {}))["layers"]
                assert len(layers) == 7
                decision = data(
                    await session.call_tool(
                        "validate",
                        {
                            "agent_id": "http-client",
                            "action_type": "code_diff",
                            "action_description": "calc",
                            "code_diff": EVAL_DIFF,
                        },
                    )
                )
                assert decision["outcome"] == "rejected"
            process.send_signal(signal.SIGTERM)
            assert await process.wait() == 0


async def test_startup_errors_exit_3_with_a_clear_message_on_stderr() -> None:
    command, prefix = humangr_command()
    with socket.create_server(("127.0.0.1", 0)) as busy:
        port = str(busy.getsockname()[1])
        with anyio.fail_after(TIMEOUT):
            result = await anyio.run_process(
                [command, *prefix, "mcp", "--transport", "http", "--port", port],
                cwd=ROOT,
                check=False,
            )
    assert result.returncode == 3
    assert result.stdout == b""
    assert f"humangr mcp: cannot serve MCP on 127.0.0.1:{port}" in result.stderr.decode()
