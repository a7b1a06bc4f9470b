"""``humangr mcp-gateway --nats``: the calls are reviewed by an engine served on a real
nats-server (here, in the test process); a human resolves a ``needs_review`` with ``humangr
resolve --nats`` while the call waits; no engine answering stops every call."""

from __future__ import annotations

import json
import os
import re
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import anyio
import pytest
from gateway_helpers import gateway_session, received_tools, text
from mcp_helpers import ROOT, humangr_command

from humangr.actors.roles import Engine, run_engine
from humangr.contracts import Subjects
from humangr.engine.bus.nats import NatsBus
from humangr.engine.config import ReviewConfig
from humangr.engine.policy import parse_policy
from humangr.engine.state import MemoryStateStore

pytestmark = [pytest.mark.anyio, pytest.mark.nats]

POLICY = b"""\
version = 1
default = "review"

[[rule]]
id = "prod-writes-need-a-human"
effect = "ask"
tools = ["write_file"]
[rule.match]
path = ["prod/*"]
"""
REASON = "checked by hand: this config change is expected"
LIMIT = 90.0


@asynccontextmanager
async def served_engine(nats_url: str) -> AsyncIterator[tuple[Engine, str]]:
    prefix = f"g{uuid.uuid4().hex[:10]}"
    bus = await NatsBus.connect(nats_url)
    try:
        async with run_engine(
            bus=bus,
            subjects=Subjects(prefix),
            state=MemoryStateStore(),
            config=ReviewConfig(rules=parse_policy(POLICY)),
        ) as engine:
            yield engine, prefix
    finally:
        await bus.close()


async def humangr(*args: str, key: str) -> str:
    command, prefix = humangr_command()
    done = await anyio.run_process(
        [command, *prefix, *args],
        cwd=ROOT,
        check=False,
        env={**os.environ, "HUMANGR_PUBLIC_KEY": key},
    )
    assert done.returncode in (0, 1), done.stderr.decode()[-2000:]
    return done.stdout.decode()


async def test_calls_are_reviewed_by_the_served_engine_and_a_human_resolves_one(
    nats_url: str, tmp_path: Path
) -> None:
    log = tmp_path / "up.jsonl"
    async with served_engine(nats_url) as (engine, prefix):
        where = ("--nats", nats_url, "--prefix", prefix)
        key = engine.public_key
        with (tmp_path / "err.log").open("w+") as errlog, anyio.fail_after(LIMIT):
            async with gateway_session(
                *where, "--public-key", key, "--timeout", "40", log=log, errlog=errlog
            ) as session:
                echo = await session.call_tool("echo", {"text": "via nats"})
                wipe = await session.call_tool("run_shell", {"command": "rm -rf /"})
                waited: dict[str, object] = {}

                async def write() -> None:
                    waited["result"] = await session.call_tool(
                        "write_file", {"path": "prod/app.cfg", "content": "debug = false\n"}
                    )

                async with anyio.create_task_group() as tg:
                    tg.start_soon(write)
                    action_id = ""
                    while not action_id:
                        await anyio.sleep(0.2)
                        listing = json.loads(
                            await humangr("reviews", *where, "--format", "json", key=key)
                        )
                        ids = [r["action_id"] for r in listing["reviews"]]
                        action_id = ids[0] if ids else ""
                    assert "write_file" not in received_tools(log), "not before the human"
                    await humangr(
                        "resolve", action_id, "--approve", "--reason", REASON,
                        "--reviewer", "alice", *where, key=key,
                    )  # fmt: skip
    assert text(echo) == "via nats"
    assert wipe.is_error
    assert "recursive delete of /" in text(wipe)
    written = waited["result"]
    assert text(written) == "wrote prod/app.cfg"  # type: ignore[arg-type]
    assert received_tools(log) == ["echo", "write_file"]


async def test_a_needs_review_nobody_resolves_names_the_action_and_the_command(
    nats_url: str, tmp_path: Path
) -> None:
    log = tmp_path / "up.jsonl"
    async with served_engine(nats_url) as (engine, prefix):
        with (tmp_path / "err.log").open("w+") as errlog, anyio.fail_after(LIMIT):
            async with gateway_session(
                "--nats", nats_url, "--prefix", prefix, "--public-key", engine.public_key,
                "--timeout", "3", log=log, errlog=errlog,
            ) as session:  # fmt: skip
                result = await session.call_tool("write_file", {"path": "prod/x", "content": "y"})
    said = text(result)
    assert result.is_error
    assert "it was NOT run" in said
    action_id = re.search(r"act-[0-9a-f]{20}", said)
    assert action_id is not None
    assert f"humangr resolve {action_id.group(0)} --approve" in said
    assert f"--nats {nats_url} --prefix {prefix}" in said
    assert received_tools(log) == []


async def test_no_engine_answering_stops_every_call(nats_url: str, tmp_path: Path) -> None:
    log = tmp_path / "up.jsonl"
    with (tmp_path / "err.log").open("w+") as errlog, anyio.fail_after(LIMIT):
        async with gateway_session(
            "--nats", nats_url, "--prefix", f"none{uuid.uuid4().hex[:8]}",
            "--insecure-unsigned", "--timeout", "2", log=log, errlog=errlog,
        ) as session:  # fmt: skip
            result = await session.call_tool("echo", {"text": "anyone?"})
    assert result.is_error
    assert "did not decide on this call of echo within 2s" in text(result)
    assert received_tools(log) == []
