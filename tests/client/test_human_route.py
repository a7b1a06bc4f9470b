"""A human route for the embedded engine (issue 23, item 4): ``connect(state=...)`` keeps the
reviews in SQLite, ``humangr resolve --state`` run as another process resolves them while the
guarded call waits, and the waiting agent accepts only a decision signed by this machine's
key. Without ``state`` the guard raises at once, saying how to get a human route; a wait logs
one WARNING naming the command; ``ReviewTimeout`` names only commands that reach the engine."""

from __future__ import annotations

import logging
import os
import re
import sys
from pathlib import Path

import anyio
import pytest
from client_helpers import served

from humangr import Rejected, ReviewTimeout, SignatureError, connect, connect_sync
from humangr.contracts import Outcome
from humangr.engine.errors import ConfigError
from humangr.engine.signing import SigningKey

pytestmark = pytest.mark.anyio

POLICY = """\
version = 1
default = "allow"

[[rule]]
id = "prod-needs-a-human"
effect = "ask"
reason = "anything that touches production"
[rule.match]
command = ["*prod*"]
"""
REASON = "checked the target host, this deploy is expected"
WAITING = "waits for a human"


@pytest.fixture
def policy(tmp_path: Path) -> Path:
    path = tmp_path / "policy.toml"
    path.write_text(POLICY)
    return path


async def _waiting_id(caplog: pytest.LogCaptureFixture) -> str:
    """The action id of the first WARNING that a review waits for a human."""
    while True:
        for record in caplog.records:
            message = record.getMessage()
            if record.levelno == logging.WARNING and WAITING in message:
                found = re.search(r"act-[0-9a-f]+", message)
                assert found is not None, message
                return found.group(0)
        await anyio.sleep(0.05)


async def _resolve(
    db: Path, action_id: str, verdict: str, env: dict[str, str] | None = None
) -> tuple[int, str]:
    """``humangr resolve`` as the user runs it: another process on the state file."""
    done = await anyio.run_process(
        [
            sys.executable,
            "-m",
            "humangr",
            "resolve",
            action_id,
            "--state",
            str(db),
            f"--{verdict}",
            "--reason",
            REASON,
            "--reviewer",
            "alice",
        ],
        check=False,
        env={**os.environ, **(env or {})},
    )
    return done.returncode, (done.stdout + done.stderr).decode()


@pytest.mark.parametrize("verdict", ["approve", "reject"])
async def test_a_human_in_another_process_resolves_while_the_guard_waits(
    tmp_path: Path, policy: Path, caplog: pytest.LogCaptureFixture, verdict: str
) -> None:
    caplog.set_level(logging.WARNING, logger="humangr.client")
    db = tmp_path / "reviews.db"
    ran: list[str] = []
    outcome: list[object] = []
    async with connect(state=db, policy=policy) as hg:

        @hg.guard(tool="bash")
        async def bash(command: str) -> str:
            ran.append(command)
            return "deployed"

        async def agent() -> None:
            try:
                outcome.append(await bash("deploy prod"))
            except Rejected as exc:
                outcome.append(exc)

        with anyio.fail_after(60):
            async with anyio.create_task_group() as tg:
                tg.start_soon(agent)
                action_id = await _waiting_id(caplog)
                assert ran == [], "nothing runs while the human decides"
                code, output = await _resolve(db, action_id, verdict)
                assert code == (0 if verdict == "approve" else 2), output

    if verdict == "approve":
        assert outcome == ["deployed"]
        assert ran == ["deploy prod"]
    else:
        assert ran == []
        [error] = outcome
        assert isinstance(error, Rejected)
        assert error.report.outcome is Outcome.REJECTED
        assert error.report.resolved_by == "alice"
    waits = [r.getMessage() for r in caplog.records if WAITING in r.getMessage()]
    assert len(waits) == 1, waits
    assert f"humangr resolve {action_id} --state {db} --approve" in waits[0]
    assert f"humangr inbox --state {db}" in waits[0]


async def test_a_final_decision_signed_by_another_key_is_refused(
    tmp_path: Path, policy: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING, logger="humangr.client")
    db = tmp_path / "reviews.db"
    ran: list[str] = []
    failed: list[BaseException] = []
    async with connect(state=db, policy=policy) as hg:

        @hg.guard(tool="bash")
        async def bash(command: str) -> None:
            ran.append(command)

        async def agent() -> None:
            try:
                await bash("deploy prod")
            except Exception as exc:
                failed.append(exc)

        with anyio.fail_after(60):
            async with anyio.create_task_group() as tg:
                tg.start_soon(agent)
                action_id = await _waiting_id(caplog)
                # an approval written into the file by a Supervisor with another key
                forged = {"HUMANGR_SIGNING_SEED": SigningKey.generate().seed()}
                code, output = await _resolve(db, action_id, "approve", forged)
                assert code == 0, output

    assert ran == [], "an approval no trusted key signed never runs the call"
    [error] = failed
    assert isinstance(error, SignatureError)


async def test_without_state_a_needs_review_raises_at_once_saying_how(
    policy: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING, logger="humangr.client")
    ran: list[str] = []
    async with connect(policy=policy) as hg:
        assert not hg.human_reachable

        @hg.guard(tool="bash")
        async def bash(command: str) -> None:
            ran.append(command)

        with anyio.fail_after(10), pytest.raises(Rejected) as caught:
            await bash("deploy prod")
    assert ran == []
    assert caught.value.report.outcome is Outcome.NEEDS_REVIEW
    text = str(caught.value)
    assert "connect(state='reviews.db')" in text
    assert "humangr resolve --state reviews.db" in text
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING]


async def test_without_state_an_explicit_wait_warns_and_times_out_saying_no_human_can(
    policy: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING, logger="humangr.client")
    async with connect(policy=policy) as hg:

        @hg.guard(tool="bash", on_needs_review="wait", timeout=1.0)
        async def bash(command: str) -> None:
            raise AssertionError("never runs")

        with anyio.fail_after(10), pytest.raises(ReviewTimeout) as caught:
            await bash("deploy prod")
    text = str(caught.value)
    assert "no human can reach" in text
    assert "connect(state='reviews.db')" in text
    assert "humangr show" not in text, "no command that cannot reach this engine"
    [warning] = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert "no human can reach" in warning


async def test_with_state_the_timeout_names_the_state_file(
    tmp_path: Path, policy: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING, logger="humangr.client")
    db = tmp_path / "my reviews.db"
    async with connect(state=db, policy=policy) as hg:
        assert hg.human_reachable

        @hg.guard(tool="bash", timeout=1.0)
        async def bash(command: str) -> None:
            raise AssertionError("never runs")

        with anyio.fail_after(10), pytest.raises(ReviewTimeout) as caught:
            await bash("deploy prod")
    text = str(caught.value)
    action_id = caught.value.action_id
    assert f"humangr resolve {action_id} --state '{db}' --approve" in text
    assert f"humangr show {action_id} --state '{db}'" in text
    assert "--nats" not in text
    assert "humangr serve" not in text
    waits = [r.getMessage() for r in caplog.records if WAITING in r.getMessage()]
    assert len(waits) == 1
    assert action_id in waits[0]


@pytest.mark.parametrize("transport", ["memory", "nats"])
async def test_a_served_engine_waits_by_default_and_its_timeout_names_nats(
    request: pytest.FixtureRequest, caplog: pytest.LogCaptureFixture, transport: str
) -> None:
    caplog.set_level(logging.WARNING, logger="humangr.client")
    url = None if transport == "memory" else request.getfixturevalue("nats_url")
    async with served(url, layers=["HL2"]) as env:
        env.kit.needs_review("HL2", "Sends mail to every customer")
        assert env.hg.human_reachable

        @env.hg.guard(timeout=1.5)
        async def mail(subject: str) -> None:
            raise AssertionError("never runs")

        with anyio.fail_after(20), pytest.raises(ReviewTimeout) as caught:
            await mail("Our new prices")
    text = str(caught.value)
    assert "--nats" in text
    assert "--state" not in text
    if url is not None:
        assert f"--nats {url}" in text
    waits = [r.getMessage() for r in caplog.records if WAITING in r.getMessage()]
    assert len(waits) == 1


async def test_the_sync_client_takes_state_too(tmp_path: Path, policy: Path) -> None:
    def run() -> bool:
        with connect_sync(state=tmp_path / "reviews.db", policy=policy) as hg:
            return hg.human_reachable

    assert await anyio.to_thread.run_sync(run)
    assert (tmp_path / "reviews.db").is_file()


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"state": ""}, "path of a SQLite file"),
        ({"state": 3}, "path of a SQLite file"),
        ({"state": "."}, "is a folder"),
    ],
)
def test_state_must_be_a_file_path(options: dict[str, object], message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        connect(**options)  # type: ignore[arg-type]


def test_state_is_for_the_embedded_engine_only() -> None:
    with pytest.raises(ConfigError, match="state"):
        connect("nats://127.0.0.1:4222", state="reviews.db", public_key="N" + "A" * 55)


async def test_raise_on_a_served_engine_names_the_command_that_still_resolves_it(
    nats_url: str,
) -> None:
    async with served(nats_url, layers=["HL2"]) as env:
        env.kit.needs_review("HL2", "Sends mail to every customer")

        @env.hg.guard(on_needs_review="raise")
        async def mail(subject: str) -> None:
            raise AssertionError("never runs")

        with anyio.fail_after(20), pytest.raises(Rejected) as caught:
            await mail("Our new prices")
    text = str(caught.value)
    action_id = caught.value.report.action_id
    assert f"humangr resolve {action_id} --nats {nats_url}" in text
    assert "on_needs_review='wait'" in text
