"""``humangr mcp-gateway --state PATH``: the in-process engine keeps its reviews in SQLite, so a
human resolves a ``needs_review`` with ``humangr resolve --state PATH`` while the call waits."""

from __future__ import annotations

import json
import os
import re
import shlex
from pathlib import Path

import anyio
import pytest
from gateway_helpers import gateway_session, received, received_tools, text
from mcp_helpers import ROOT, humangr_command

pytestmark = pytest.mark.anyio

POLICY = """\
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


async def humangr(*args: str, env: dict[str, str]) -> str:
    command, prefix = humangr_command()
    done = await anyio.run_process(
        [command, *prefix, *args], cwd=ROOT, check=False, env={**os.environ, **env}
    )
    assert done.returncode in (0, 1), done.stderr.decode()[-2000:]
    return done.stdout.decode()


async def test_a_human_resolves_a_waiting_call_with_resolve_state(tmp_path: Path) -> None:
    log, policy, db = tmp_path / "up.jsonl", tmp_path / "policy.toml", tmp_path / "reviews.db"
    policy.write_text(POLICY)
    env = {"HUMANGR_HOME": str(tmp_path / "home")}
    state = ("--state", str(db))
    waited: dict[str, object] = {}
    with (tmp_path / "err.log").open("w+") as errlog, anyio.fail_after(LIMIT):
        async with gateway_session(
            "--policy", str(policy), *state, "--timeout", "60", log=log, errlog=errlog, env=env
        ) as session:

            async def write() -> None:
                waited["result"] = await session.call_tool(
                    "write_file", {"path": "prod/app.cfg", "content": "debug = false\n"}
                )

            async with anyio.create_task_group() as tg:
                tg.start_soon(write)
                action_id = ""
                while not action_id:
                    await anyio.sleep(0.3)
                    listing = json.loads(
                        await humangr("reviews", *state, "--format", "json", env=env)
                    )
                    ids = [r["action_id"] for r in listing["reviews"]]
                    action_id = ids[0] if ids else ""
                assert received_tools(log) == [], "not before the human"
                await humangr(
                    "resolve", action_id, "--approve", "--reason", REASON, "--reviewer", "alice",
                    *state, env=env,
                )  # fmt: skip
            after = await session.call_tool("echo", {"text": "after"})
    assert text(waited["result"]) == "wrote prod/app.cfg"  # type: ignore[arg-type]
    assert text(after) == "after"
    assert received_tools(log) == ["write_file", "echo"]


async def test_an_unresolved_call_names_the_command_that_lets_it_run_next_time(
    tmp_path: Path,
) -> None:
    """The call that timed out has ended; the command it names (an approval with a grant of
    the exact call) lets the same call through when the agent makes it again — and only it."""
    log, policy, db = tmp_path / "up.jsonl", tmp_path / "policy.toml", tmp_path / "reviews.db"
    policy.write_text(POLICY)
    env = {"HUMANGR_HOME": str(tmp_path / "home")}
    call = {"path": "prod/x", "content": "y"}
    with (tmp_path / "err.log").open("w+") as errlog, anyio.fail_after(LIMIT):
        async with gateway_session(
            "--policy", str(policy), "--state", str(db), "--timeout", "2",
            log=log, errlog=errlog, env=env,
        ) as session:  # fmt: skip
            result = await session.call_tool("write_file", call)
            said = text(result)
            match = re.search(r"`(humangr resolve (act-[0-9a-f]{20}) [^`]+)`", said)
            assert match is not None, said
            assert received_tools(log) == []
            words = shlex.split(match.group(1).replace("…", REASON))
            await humangr(*words[1:], env=env)
            again = await session.call_tool("write_file", call)
            other = await session.call_tool("write_file", {"path": "prod/x", "content": "z"})
    assert result.is_error
    assert f"--state {db}" in said
    assert "--grant" in said
    assert text(again) == "wrote prod/x"
    assert other.is_error, "the grant is for the exact call only"
    assert received(log) == [{"tool": "write_file", "arguments": call}]


async def test_a_call_the_client_gave_up_on_never_runs_when_approved_later(
    tmp_path: Path,
) -> None:
    log, policy, db = tmp_path / "up.jsonl", tmp_path / "policy.toml", tmp_path / "reviews.db"
    policy.write_text(POLICY)
    env = {"HUMANGR_HOME": str(tmp_path / "home")}
    state = ("--state", str(db))
    with (tmp_path / "err.log").open("w+") as errlog, anyio.fail_after(LIMIT):
        async with gateway_session(
            "--policy", str(policy), *state, "--timeout", "60", log=log, errlog=errlog, env=env
        ) as session:
            with anyio.move_on_after(3):
                await session.call_tool("write_file", {"path": "prod/a", "content": "1"})
            listing = json.loads(await humangr("reviews", *state, "--format", "json", env=env))
            (pending,) = [r["action_id"] for r in listing["reviews"]]
            await humangr(
                "resolve", pending, "--approve", "--reason", REASON, *state, env=env
            )  # fmt: skip
            await anyio.sleep(2)
            after = await session.call_tool("echo", {"text": "after"})
    assert text(after) == "after"
    assert received_tools(log) == ["echo"], "the abandoned call was not forwarded"
