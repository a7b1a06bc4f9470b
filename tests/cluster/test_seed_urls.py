"""Every entry point connects to a NATS cluster by its seed URLs while one of its three nodes
(the first URL of the list) is down, and shows the URLs without their credentials."""

from __future__ import annotations

import contextlib
import json
import os
import re
import secrets
import subprocess
import sys
import uuid
from collections.abc import AsyncIterator, Iterator, Sequence
from contextlib import asynccontextmanager
from pathlib import Path

import anyio
import pytest
from anyio.abc import Process
from cli_reviews_helpers import SIGNER, engine_on_nats, humangr, pricing_action

import humangr as humangr_api
from humangr.contracts import Outcome
from humangr.engine.bus.nats import NatsBus
from humangr.engine.config import ReviewConfig
from humangr.engine.errors import BusError
from humangr.engine.trust import Trust
from humangr.mcp.backend import nats_backend
from humangr.testing import HumangrTestEngine
from humangr.testing.nats_cluster import NatsCluster

pytestmark = [pytest.mark.anyio, pytest.mark.nats]

Cap = pytest.CaptureFixture[str]
EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "actions"
SECRET = "hunter2-cluster"


@pytest.fixture(scope="module")
def seeds(cluster: NatsCluster) -> Iterator[str]:
    """The cluster's seed URLs, comma-separated, with its first node (the first URL) down."""
    cluster.stop_node(0)
    try:
        yield cluster.seeds
    finally:
        cluster.start_node(0)


@pytest.fixture
def with_password(seeds: str) -> str:
    """The seed list with user info in every URL (the server has no auth: it is ignored)."""
    return seeds.replace("nats://", f"nats://bob:{SECRET}@")


@pytest.fixture(autouse=True)
def trust_the_engine(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HUMANGR_PUBLIC_KEY", SIGNER.public_key)


def _prefix() -> str:
    return f"cl{uuid.uuid4().hex[:10]}"


def _shown(seeds: str) -> str:
    """The seed list as the commands show it: each URL, without credentials."""
    return re.sub(r"nats://[^@,]*@", "nats://***@", seeds).replace(",", ", ")


async def test_the_dead_first_node_alone_does_not_connect(cluster: NatsCluster, seeds: str) -> None:
    with anyio.fail_after(15), pytest.raises(BusError, match="cannot connect to NATS"):
        await NatsBus.connect(cluster.urls[0], connect_timeout=1.0)


@asynccontextmanager
async def _running(args: Sequence[str], ready: str | None) -> AsyncIterator[tuple[Process, str]]:
    """``humangr ARGS`` in a subprocess until its stdout has a line starting with ``ready``
    (``None``: at once); yields the process and its output so far, and terminates it
    afterwards."""
    command = [sys.executable, "-m", "humangr", *args]
    env = {k: v for k, v in os.environ.items() if not k.startswith("ANTHROPIC_")}
    async with await anyio.open_process(
        command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env
    ) as process:
        assert process.stdout is not None
        assert process.stderr is not None
        seen = ""
        try:
            with anyio.fail_after(60):
                while ready is not None and not any(
                    line.startswith(ready) for line in seen.splitlines()
                ):
                    chunk = await process.stdout.receive()
                    seen += chunk.decode("utf-8", "replace")
        except (anyio.EndOfStream, TimeoutError):
            process.kill()
            err = b""
            with anyio.move_on_after(5), contextlib.suppress(anyio.EndOfStream):
                while True:
                    err += await process.stderr.receive()
            pytest.fail(f"humangr {args[0]} did not print {ready!r}: {seen}\n{err!r}")
        try:
            yield process, seen
        finally:
            process.terminate()


async def test_serve_submit_report_and_watch_on_the_seeds(with_password: str, capsys: Cap) -> None:
    prefix = _prefix()
    serve = ["serve", "--nats", with_password, "--prefix", prefix, "--llm", "none"]
    serve += ["--state", "memory"]
    async with _running(serve, "humangr serving") as (_, out):
        key = re.search(r"humangr signs decisions with (\S+)", out)
        assert key is not None, out
        public_key = ["--public-key", key[1]]
        [banner] = [line for line in out.splitlines() if line.startswith("humangr serving")]
        assert banner.endswith(f" on {_shown(with_password)}"), banner
        assert SECRET not in out
        watch = ["watch", "--nats", with_password, "--prefix", prefix, "--format", "json"]
        async with _running([*watch, *public_key], None) as (watcher, _):
            assert watcher.stdout is not None
            where = ["--nats", with_password, "--prefix", prefix, *public_key]
            bad = str(EXAMPLES / "02-hardcoded-key-and-shell.diff")
            args = ["submit", bad, *where, "--wait", "--format", "json", "--timeout", "30"]
            run = await humangr(capsys, *args)
            assert run.code == 2, run.err
            decision = json.loads(run.out)
            assert decision["outcome"] == "rejected"
            report = await humangr(capsys, "report", decision["action_id"], *where)
            assert report.code == 0, report.err
            assert f"via {_shown(with_password)}" in report.out
            assert SECRET not in report.out + report.err
            line = b""
            with anyio.fail_after(30):
                while b"\n" not in line:  # the watcher may subscribe after the first decision
                    again = await humangr(capsys, *args)
                    assert again.code == 2, again.err
                    with anyio.move_on_after(1):
                        line += await watcher.stdout.receive()
            assert json.loads(line.split(b"\n", 1)[0])["outcome"] == "rejected"


async def test_reviews_show_and_resolve_on_the_seeds(seeds: str, capsys: Cap) -> None:
    async with engine_on_nats(seeds) as (engine, prefix):
        report = await engine.submit(pricing_action(), timeout=30)
        assert report.outcome is Outcome.NEEDS_REVIEW
        where = ("--nats", seeds, "--prefix", prefix)
        listing = await humangr(capsys, "reviews", *where)
        shown = await humangr(capsys, "show", report.action_id, *where)
        resolved = await humangr(
            capsys, "resolve", report.action_id, "--approve", "--reviewer", "alice",
            "--reason", "checked by hand: negative totals cannot happen here", *where,
        )  # fmt: skip
    assert listing.code == 0, listing.err
    assert listing.out.startswith(f"1 review pending via {_shown(seeds)}")
    assert shown.code == 0, shown.err
    assert shown.out.startswith(f"{report.action_id}: NEEDS_REVIEW")
    assert resolved.code == 0, resolved.err
    assert "APPROVED" in resolved.out.upper()


async def test_mcp_backend_on_the_seeds(seeds: str) -> None:
    async with engine_on_nats(seeds) as (_, prefix):
        trust = Trust((SIGNER.public_key,))
        backend_of = nats_backend(seeds, ReviewConfig(), prefix=prefix, timeout=30, trust=trust)
        async with backend_of as backend:
            assert backend.mode == f"nats {_shown(seeds)}"
            report = await backend.validate(pricing_action())
    assert report.outcome is Outcome.NEEDS_REVIEW


@pytest.mark.parametrize("as_list", [True, False], ids=["list", "comma-separated"])
async def test_humangr_connect_on_the_seeds(
    cluster: NatsCluster, seeds: str, as_list: bool
) -> None:
    url: str | list[str] = cluster.urls if as_list else seeds
    async with (
        engine_on_nats(seeds) as (_, prefix),
        humangr_api.connect(url, prefix=prefix, public_key=SIGNER.public_key) as hg,
    ):
        report = await hg.review(pricing_action(), timeout=30)
    assert report.outcome is Outcome.NEEDS_REVIEW


async def test_inbox_connects_on_the_seeds(
    with_password: str, seeds: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HUMANGR_INBOX_TOKENS", f"{secrets.token_urlsafe(32)} alice")
    async with engine_on_nats(seeds) as (_, prefix):
        inbox = ["inbox", "--nats", with_password, "--prefix", prefix, "--port", "0"]
        async with _running(inbox, "humangr inbox on") as (_, out):
            assert f"via {_shown(with_password)}" in out
            assert SECRET not in out


async def test_pipeline_command_connects_on_the_seeds(with_password: str, capsys: Cap) -> None:
    run = await humangr(
        capsys, "pipeline", "cancel", "proj-1", "--reviewer", "alice",
        "--reason", "the project is no longer needed by anyone", "--nats", with_password,
        "--prefix", _prefix(), "--wait", "1",
    )  # fmt: skip
    # connected: no engine answered (no Monitor runs), which is not a connection error
    line = run.error_line(f"no status from the engine at {_shown(with_password)} within 1s")
    assert SECRET not in run.out + run.err
    assert "cannot connect" not in line


@pytest.fixture
def seeds_in_the_environment(monkeypatch: pytest.MonkeyPatch, seeds: str) -> None:
    monkeypatch.setenv("HUMANGR_NATS_URL", seeds)


async def test_the_test_engine_runs_on_humangr_nats_url(
    seeds_in_the_environment: None, humangr_engine: HumangrTestEngine, seeds: str
) -> None:
    bus = humangr_engine.engine.bus
    assert isinstance(bus, NatsBus)
    assert bus.servers == _shown(seeds)
    assert bus.connected_url in seeds.split(",")[1:]
    report = await humangr_engine.submit(pricing_action())
    assert report.outcome is Outcome.APPROVED


async def test_a_subscription_survives_its_node_going_down(cluster: NatsCluster) -> None:
    """The reconnect moves to another seed: messages flow again after the node is gone."""
    await anyio.to_thread.run_sync(cluster.start_node, 0)
    try:
        bus = await NatsBus.connect(cluster.urls, reconnect_time_wait=0.2)
        node = cluster.urls.index(str(bus.connected_url))
        other = await NatsBus.connect([url for url in cluster.urls if url != bus.connected_url])
        subject = f"{_prefix()}.ping"
        try:
            async with bus.subscribe(subject) as sub:
                await anyio.to_thread.run_sync(cluster.stop_node, node)
                with anyio.fail_after(20):
                    while True:
                        await other.publish(subject, b"after")
                        with anyio.move_on_after(0.5):
                            msg = await anext(sub)
                            break
                assert msg.data == b"after"
                assert bus.connected_url != cluster.urls[node]
        finally:
            await bus.close()
            await other.close()
    finally:
        for index, server in enumerate(cluster.nodes):
            if not server.running:
                await anyio.to_thread.run_sync(cluster.start_node, index)
        await anyio.to_thread.run_sync(cluster.stop_node, 0)  # as the seeds fixture left it
