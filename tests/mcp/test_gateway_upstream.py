"""``humangr mcp-gateway`` in front of an upstream that crashes, hangs, answers garbage or breaks
its own output schema, and a client that gives up mid-call: each ends in a clear tool error and
the gateway keeps serving."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import anyio
import pytest
from gateway_helpers import gateway_session, received_tools, text, upstream_command
from mcp_helpers import ROOT, TIMEOUT, humangr_command

pytestmark = pytest.mark.anyio


async def test_a_crashing_upstream_fails_its_call_and_is_started_again(tmp_path: Path) -> None:
    log = tmp_path / "up.jsonl"
    with (tmp_path / "err.log").open("w+") as errlog, anyio.fail_after(TIMEOUT):
        async with gateway_session(log=log, errlog=errlog) as session:
            crashed = await session.call_tool("crash", {})
            after = await session.call_tool("echo", {"text": "back"})
        errlog.seek(0)
        logged = errlog.read()
    assert crashed.is_error
    assert "closed the connection during the call of crash" in text(crashed)
    assert "not retried" in text(crashed)
    assert text(after) == "back"
    assert received_tools(log) == ["crash", "echo"], "the crashed call was not sent twice"
    assert "starting it again" in logged
    assert "Traceback" not in logged


async def test_a_hanging_upstream_is_bounded_and_does_not_block_other_calls(
    tmp_path: Path,
) -> None:
    log = tmp_path / "up.jsonl"
    results: dict[str, object] = {}
    with (tmp_path / "err.log").open("w+") as errlog, anyio.fail_after(TIMEOUT):
        async with gateway_session("--call-timeout", "2", log=log, errlog=errlog) as session:

            async def hang() -> None:
                results["hang"] = await session.call_tool("hang", {"seconds": 600})

            started = time.monotonic()
            async with anyio.create_task_group() as tg:
                tg.start_soon(hang)
                await anyio.sleep(0.3)
                echo = await session.call_tool("echo", {"text": "not blocked"})
                echo_s = time.monotonic() - started
            hang_s = time.monotonic() - started
            again = await session.call_tool("echo", {"text": "still here"})
    hung = results["hang"]
    assert text(echo) == "not blocked"
    assert echo_s < 1.5
    assert getattr(hung, "is_error", False)
    assert "did not answer the call of hang within 2s" in text(hung)  # type: ignore[arg-type]
    assert 1.9 < hang_s < 6
    assert text(again) == "still here"


async def test_garbage_and_schema_violating_results_are_tool_errors(tmp_path: Path) -> None:
    log = tmp_path / "up.jsonl"
    with (tmp_path / "err.log").open("w+") as errlog, anyio.fail_after(TIMEOUT):
        async with gateway_session(log=log, errlog=errlog) as session:
            garbage = await session.call_tool("garbage", {})
            broken = await session.call_tool("bad_output", {})
            after = await session.call_tool("echo", {"text": "fine"})
    assert text(garbage) == "after garbage", "a stray line does not break the connection"
    assert broken.is_error
    assert "returned an invalid result for bad_output" in text(broken)
    assert text(after) == "fine"


async def test_a_client_that_gives_up_mid_call_leaves_the_gateway_serving(
    tmp_path: Path,
) -> None:
    log = tmp_path / "up.jsonl"
    with (tmp_path / "err.log").open("w+") as errlog, anyio.fail_after(TIMEOUT):
        async with gateway_session(log=log, errlog=errlog) as session:
            with anyio.move_on_after(1):
                await session.call_tool("hang", {"seconds": 600})
            after = await session.call_tool("echo", {"text": "next call"})
    assert text(after) == "next call"


def test_a_client_that_disconnects_ends_the_gateway_and_its_upstream(tmp_path: Path) -> None:
    """stdin closed mid-call: the gateway exits at once (its upstream with it), no traceback."""
    import json

    command, prefix = humangr_command()
    log = tmp_path / "up.jsonl"
    proc = subprocess.Popen(
        [command, *prefix, "mcp-gateway", "--", *upstream_command()],
        cwd=ROOT,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={"UPSTREAM_LOG": str(log), "PATH": "/usr/bin:/bin"},
    )
    assert proc.stdin is not None
    assert proc.stdout is not None
    messages = [
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "t", "version": "1"},
            },
        },
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {
            "jsonrpc": "2.0",
            "id": 2,
            "method": "tools/call",
            "params": {"name": "hang", "arguments": {"seconds": 600}},
        },
    ]
    try:
        for message in messages:
            proc.stdin.write((json.dumps(message) + "\n").encode())
            proc.stdin.flush()
        assert b'"id":1' in proc.stdout.readline()
        deadline = time.monotonic() + 15
        while "hang" not in received_tools(log) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert received_tools(log) == ["hang"]
        proc.stdin.close()
        proc.wait(timeout=15)
        err = proc.stderr.read() if proc.stderr else b""
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert "Traceback" not in err.decode(), err.decode()[-2000:]
    (pid,) = (int(p) for p in Path(f"{log}.pids").read_text().split())
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)


def test_an_upstream_that_does_not_start_is_a_clear_error() -> None:
    command, prefix = humangr_command()
    done = subprocess.run(
        [command, *prefix, "mcp-gateway", "--", sys.executable, "-c", "raise SystemExit(1)"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        input="",
    )
    assert done.returncode == 3
    assert "did not start" in done.stderr
    assert "Traceback" not in done.stderr


async def test_a_streamable_http_upstream(tmp_path: Path) -> None:
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    log = tmp_path / "up.jsonl"
    upstream = await anyio.open_process(
        upstream_command("--http", str(port)),
        env={**os.environ, "UPSTREAM_LOG": str(log)},
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            with socket.socket() as client:
                if client.connect_ex(("127.0.0.1", port)) == 0:
                    break
            await anyio.sleep(0.1)
        url = f"http://127.0.0.1:{port}/mcp"
        with (tmp_path / "err.log").open("w+") as errlog, anyio.fail_after(TIMEOUT):
            async with gateway_session("--upstream-url", url, log=log, errlog=errlog) as session:
                names = [t.name for t in (await session.list_tools()).tools]
                echo = await session.call_tool("echo", {"text": "over http"})
                wipe = await session.call_tool("run_shell", {"command": "rm -rf /"})
    finally:
        upstream.terminate()
        with anyio.move_on_after(10):
            await upstream.wait()
    assert "echo" in names
    assert text(echo) == "over http"
    assert wipe.is_error
    assert received_tools(log) == ["echo"]


async def test_upstream_errors_and_tool_descriptions_are_read_for_injection(
    tmp_path: Path,
) -> None:
    log = tmp_path / "up.jsonl"
    with (tmp_path / "err.log").open("w+") as errlog, anyio.fail_after(TIMEOUT):
        async with gateway_session("--block-injected-results", log=log, errlog=errlog) as session:
            failing = await session.call_tool("failing", {})
        errlog.seek(0)
        logged = errlog.read()
    assert failing.is_error
    assert text(failing).startswith("HUMANGR withheld the result of failing")
    assert "ignore" not in text(failing).lower()
    assert "instructions to the model in content[0]" in text(failing)
    assert "tool poisoned holds prompt-injection text" in logged
    assert received_tools(log) == ["failing"]


async def test_calls_past_the_gateway_s_bound_are_refused_not_queued(tmp_path: Path) -> None:
    """--max-concurrent 1: one forwarded call at a time, at most 8 in the gateway; the rest are
    refused at once (never forwarded)."""
    log = tmp_path / "up.jsonl"
    results: list[str] = []
    with (tmp_path / "err.log").open("w+") as errlog, anyio.fail_after(TIMEOUT):
        async with gateway_session("--max-concurrent", "1", log=log, errlog=errlog) as session:

            async def one() -> None:
                results.append(text(await session.call_tool("hang", {"seconds": 0.4})))

            started = time.monotonic()
            async with anyio.create_task_group() as tg:
                for _ in range(11):
                    tg.start_soon(one)
            elapsed = time.monotonic() - started
    assert results.count("woke up") == 8
    refused = [r for r in results if r != "woke up"]
    assert len(refused) == 3
    assert all("calls in flight" in r and "NOT run" in r for r in refused)
    assert received_tools(log) == ["hang"] * 8
    assert elapsed > 8 * 0.4, "the upstream got one call at a time"
