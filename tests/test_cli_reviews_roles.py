"""The reviewer's commands on the secured server of ``deploy/nats-server.conf``, every part a
separate process with its own role: ``serve --role supervisor`` and ``--role layers``, an agent
waiting with ``submit --wait --final``, a reviewer with ``reviews``, ``show`` and ``resolve``.
Only the reviewer may read and resolve reviews."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path

import anyio
import pytest
from anyio.abc import Process
from anyio.streams.text import TextReceiveStream
from test_cli_reviews import REASON, SLOW

from humangr.contracts import HumanLayerReport, Outcome, ReviewDetail, ReviewListing, decode
from humangr.standins.nats_server import NatsServer

pytestmark = [pytest.mark.anyio, pytest.mark.nats]

ROOT = Path(__file__).resolve().parents[1]
DEPLOY = ROOT / "deploy"


def passwords() -> dict[str, str]:
    """The development passwords of deploy/.env.example."""
    values = {}
    for line in (DEPLOY / ".env.example").read_text().splitlines():
        if line.strip() and not line.lstrip().startswith("#"):
            name, _, value = line.partition("=")
            values[name.strip()] = value.strip()
    return values


def role_env(role: str) -> dict[str, str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("HUMANGR_", "ANTHROPIC_")) or k == "HUMANGR_HOME"
    }
    password = passwords()[f"HUMANGR_{role.upper()}_PASSWORD"]
    return {**env, "HUMANGR_NATS_USER": role, "HUMANGR_NATS_PASSWORD": password}


@pytest.fixture(scope="module")
def secured() -> Iterator[NatsServer]:
    with pytest.MonkeyPatch.context() as env:
        for name, value in passwords().items():
            env.setenv(name, value)
        server = NatsServer(jetstream=True, config_file=DEPLOY / "nats-server.conf").start()
    try:
        yield server
    finally:
        server.stop()


async def _ready(process: Process, log: Path) -> None:
    assert process.stdout is not None
    buffer = ""
    async for chunk in TextReceiveStream(process.stdout):
        buffer += chunk
        if any(line.startswith("humangr serving") for line in buffer.splitlines()):
            return
    raise AssertionError(f"humangr serve ended before serving:\n{buffer}\n(see {log})")


@asynccontextmanager
async def serving(url: str, tmp_path: Path) -> AsyncIterator[None]:
    """``serve --role supervisor`` (user supervisor) and ``--role layers`` (user layer)."""
    processes: list[Process] = []
    common = ["--nats", url, "--jetstream", "--llm", "none"]
    try:
        for role, user in (("supervisor", "supervisor"), ("layers", "layer")):
            log = tmp_path / f"{role}.log"
            with log.open("wb") as errors:
                process = await anyio.open_process(
                    [sys.executable, "-m", "humangr", "serve", "--role", role, *common],
                    stdin=subprocess.DEVNULL,
                    stdout=subprocess.PIPE,
                    stderr=errors,
                    env=role_env(user),
                    cwd=ROOT,
                )
            processes.append(process)
            with anyio.fail_after(30):
                await _ready(process, log)
        yield
    finally:
        for process in processes:
            if process.returncode is None:
                process.send_signal(signal.SIGTERM)
            with anyio.move_on_after(20, shield=True):
                await process.wait()
            if process.returncode is None:
                process.kill()
            with anyio.CancelScope(shield=True):
                await process.aclose()


async def run(role: str, *args: str) -> subprocess.CompletedProcess[str]:
    """``humangr ARGS`` as ``role``."""
    result = await anyio.run_process(
        [sys.executable, "-m", "humangr", *args], env=role_env(role), cwd=ROOT, check=False
    )
    return subprocess.CompletedProcess(
        result.args, result.returncode, result.stdout.decode(), result.stderr.decode()
    )


async def test_a_reviewer_resolves_what_an_agent_waits_for(
    secured: NatsServer, tmp_path: Path
) -> None:
    diff = tmp_path / "slow.diff"
    diff.write_text(SLOW)
    nats = ("--nats", secured.url, "--insecure-unsigned")  # the roles are under test here
    async with serving(secured.url, tmp_path), anyio.create_task_group() as tg:
        waited: list[subprocess.CompletedProcess[str]] = []

        async def agent_waits() -> None:
            # --agent-id: the id whose decisions the `agent` user may read
            args: tuple[str, ...] = (
                "submit",
                str(diff),
                *nats,
                "--wait",
                "--final",
                "--agent-id",
                "agent",
            )
            args = (*args, "--timeout", "60")
            waited.append(await run("agent", *args, "--format", "json"))

        tg.start_soon(agent_waits)
        with anyio.fail_after(40):
            while True:
                listed = await run("reviewer", "reviews", *nats, "--format", "json")
                assert listed.returncode == 0, listed.stderr
                reviews = decode(listed.stdout.encode(), ReviewListing).reviews
                if reviews:
                    break
                await anyio.sleep(0.2)
        [review] = reviews
        shown = await run("reviewer", "show", review.action_id, *nats, "--format", "json")
        assert shown.returncode == 0, shown.stderr
        detail = decode(shown.stdout.encode(), ReviewDetail)
        assert detail.pending
        assert detail.action is not None
        assert detail.action.code_diff == SLOW

        for role in ("agent", "observer"):
            denied = await run(role, "reviews", *nats, "--timeout", "1")
            assert denied.returncode == 3, (role, denied.stdout)
            [line] = denied.stderr.strip().splitlines()
            assert line.startswith("humangr reviews: the NATS server refused this user: "), line
            assert 'permissions violation for publish to "hl.reviews.query"' in line
            stolen = ("resolve", review.action_id, "--approve", "--reason", REASON)
            refused = await run(role, *stolen, *nats, "--timeout", "1")
            assert refused.returncode == 3, (role, refused.stdout)
            [line] = refused.stderr.strip().splitlines()
            assert "the reviewer commands need the reviewer user" in line

        resolved = await run(
            "reviewer", "resolve", review.action_id, "--approve", "--reason", REASON,
            "--reviewer", "erin", *nats,
        )  # fmt: skip
        assert resolved.returncode == 0, resolved.stderr
        assert f"  resolved by erin: {REASON}" in resolved.stdout.splitlines()
    [agent] = waited
    assert agent.returncode == 0, agent.stderr
    final = decode(agent.stdout.strip().encode(), HumanLayerReport)
    assert (final.action_id, final.outcome, final.resolved_by) == (
        review.action_id,
        Outcome.APPROVED,
        "erin",
    )
