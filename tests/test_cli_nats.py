"""``humangr submit``, ``report`` and ``watch`` against an engine on a real nats-server."""

from __future__ import annotations

import json
import subprocess
import sys
import time
import uuid
from pathlib import Path

import anyio
import pytest
from cli_helpers import command

from humangr.actors.roles import run_engine
from humangr.cli.common import load_actions
from humangr.cli.main import main
from humangr.contracts import Subjects
from humangr.contracts.types import MAX_DIFF_BYTES
from humangr.engine.bus.nats import NatsBus

pytestmark = [pytest.mark.anyio, pytest.mark.nats]

EXAMPLES = Path(__file__).resolve().parents[1] / "examples" / "actions"


async def test_submit_wait_then_report_by_action_id(
    nats_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    prefix = f"cli{uuid.uuid4().hex[:8]}"
    bus = await NatsBus.connect(nats_url)
    try:
        async with run_engine(bus=bus, subjects=Subjects(prefix)) as engine:
            key = ["--public-key", engine.public_key]
            args = [
                "submit",
                str(EXAMPLES / "02-hardcoded-key-and-shell.diff"),
                "--nats",
                nats_url,
                "--prefix",
                prefix,
                "--wait",
                "--format",
                "json",
                "--timeout",
                "20",
                *key,
            ]
            code = await anyio.to_thread.run_sync(main, args)
            assert code == 2
            decision = json.loads(capsys.readouterr().out)
            assert decision["outcome"] == "rejected"
            args = [
                "report",
                decision["action_id"],
                "--nats",
                nats_url,
                "--prefix",
                prefix,
                "--format",
                "json",
                *key,
            ]
            assert await anyio.to_thread.run_sync(main, args) == 0
            stored = json.loads(capsys.readouterr().out)
            assert stored["report_id"] == decision["report_id"]
            missing = ["report", "nope", "--nats", nats_url, "--prefix", prefix, *key]
            assert await anyio.to_thread.run_sync(main, missing) == 3
            assert "no report" in capsys.readouterr().err
    finally:
        await bus.close()


async def test_watch_streams_decisions(nats_url: str) -> None:
    prefix = f"cli{uuid.uuid4().hex[:8]}"
    command = [
        sys.executable,
        "-m",
        "humangr.cli.main",
        "watch",
        "--nats",
        nats_url,
        "--prefix",
        prefix,
        "--format",
        "json",
    ]
    bus = await NatsBus.connect(nats_url)
    try:
        async with run_engine(bus=bus, subjects=Subjects(prefix)) as engine:
            command += ["--public-key", engine.public_key]
            async with await anyio.open_process(command, stdout=subprocess.PIPE) as watcher:
                assert watcher.stdout is not None
                [(_, action)] = load_actions([str(EXAMPLES / "01-clean-refactor.diff")])
                line = b""
                with anyio.fail_after(20):
                    while b"\n" not in line:
                        # the watcher may not be subscribed yet: submit until it prints; a
                        # message that is no decision is skipped, not the end of the watch
                        not_a_decision = b'{"not": "a decision"}'
                        await bus.publish(Subjects(prefix).decision("cli"), not_a_decision)
                        await engine.submit(action)
                        with anyio.move_on_after(0.5):
                            line += await watcher.stdout.receive()
                watcher.terminate()
            first = json.loads(line.split(b"\n", 1)[0])
            assert first["outcome"] == "approved"
    finally:
        await bus.close()


def test_submit_to_an_unreachable_server_fails_fast(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(
        [
            "submit",
            str(EXAMPLES / "01-clean-refactor.diff"),
            "--nats",
            "nats://127.0.0.1:1",
            "--wait",
            "--insecure-unsigned",
        ]
    )
    assert code == 3
    assert "nats://127.0.0.1:1" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("name", "data", "fragment"),
    [
        ("empty.diff", b"\n\n", "empty"),
        ("big.diff", b"+" * (MAX_DIFF_BYTES + 1), f"limit of {MAX_DIFF_BYTES:,}"),
        ("bin.diff", b"\x00\x01", "binary data"),
        (
            "typo.json",
            b'{"agent_id": "a", "action_type": "code_diff", "action_description": "d",'
            b' "diff": "+x"}',
            "unknown field $.diff",
        ),
    ],
)
@pytest.mark.parametrize("wait", [False, True], ids=["publish", "wait"])
async def test_submit_checks_every_action_before_publishing_any(
    nats_url: str, tmp_path: Path, name: str, data: bytes, fragment: str, wait: bool
) -> None:
    prefix = f"cli{uuid.uuid4().hex[:8]}"
    bad = tmp_path / name
    bad.write_bytes(data)
    args = [str(EXAMPLES / "01-clean-refactor.diff"), str(bad), "--nats", nats_url]
    args += ["--prefix", prefix, "--timeout", "60"]
    args += ["--wait", "--insecure-unsigned"] if wait else []
    async with (
        await NatsBus.connect(nats_url) as bus,
        bus.subscribe(Subjects(prefix).agent_submits) as submitted,
    ):
        started = time.monotonic()
        with anyio.fail_after(30):
            result = await anyio.run_process(command("submit", *args), check=False)
        assert time.monotonic() - started < 20, "an invalid action must fail at once"
        err = result.stderr.decode()
        assert result.returncode == 3, err
        assert err.count("\n") == 1
        assert "Traceback" not in err
        assert f"humangr submit: {bad}: " in err
        assert fragment in err
        with anyio.move_on_after(0.5) as waited:
            await submitted.__anext__()
        assert waited.cancelled_caught, "nothing may be published"
