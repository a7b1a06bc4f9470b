"""Every front door that waits for or shows decisions fails closed without a public key: it
refuses to start (before connecting, before anything is submitted) unless the user says
``--insecure-unsigned``, and then every result says "unsigned: not verified". A forged unsigned
``approved`` — what the agent under review would publish — never reads as an approval."""

from __future__ import annotations

import subprocess
import sys
import uuid
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path

import anyio
import msgspec
import pytest

from humangr.cli.main import main
from humangr.contracts import (
    ActionSubmitted,
    HumanLayerReport,
    Outcome,
    ReviewDetail,
    ReviewListing,
    Subjects,
    VetoLevel,
    decode,
    encode,
)
from humangr.engine.bus.nats import NatsBus
from humangr.engine.config import ReviewConfig
from humangr.engine.errors import ConfigError
from humangr.engine.signing import SigningKey
from humangr.engine.trust import UNSIGNED_NOTE, client_trust, mark_unsigned
from humangr.mcp.serve import open_backend

UNREACHABLE = "nats://127.0.0.1:1"
DIFF = Path(__file__).resolve().parents[2] / "examples" / "actions" / "01-clean-refactor.diff"
SUPERVISOR = SigningKey.generate()
REASON = "read every line of it; the change is fine"

NO_KEY_COMMANDS = {
    "submit --wait": ["submit", str(DIFF), "--nats", UNREACHABLE, "--wait"],
    "watch": ["watch", "--nats", UNREACHABLE],
    "report": ["report", "act-1", "--nats", UNREACHABLE],
    "mcp --nats": ["mcp", "--nats", UNREACHABLE],
    "reviews": ["reviews", "--nats", UNREACHABLE],
    "show": ["show", "act-1", "--nats", UNREACHABLE],
    "resolve": ["resolve", "act-1", "--approve", "--reason", REASON, "--nats", UNREACHABLE],
    "inbox": ["inbox", "--nats", UNREACHABLE, "--port", "0"],
}


@pytest.fixture(autouse=True)
def no_key_in_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("HUMANGR_PUBLIC_KEY", raising=False)


@pytest.mark.parametrize("name", list(NO_KEY_COMMANDS), ids=list(NO_KEY_COMMANDS))
def test_without_a_key_a_client_command_refuses_to_start(
    name: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(NO_KEY_COMMANDS[name]) == 3
    err = capsys.readouterr().err
    assert "no public key to verify decisions with" in err
    assert "--public-key" in err
    assert "--insecure-unsigned" in err
    assert "cannot connect" not in err, "refused before connecting"
    assert len(err.strip().splitlines()) == 1


def test_a_seed_given_as_the_key_is_refused_and_not_echoed(
    capsys: pytest.CaptureFixture[str],
) -> None:
    seed = "SUAM" + "X" * 54
    assert main(["reviews", "--nats", UNREACHABLE, "--public-key", seed]) == 3
    err = capsys.readouterr().err
    assert "never the seed" in err
    assert seed not in err


def test_a_key_and_insecure_unsigned_together_are_refused() -> None:
    with pytest.raises(ConfigError, match="not both"):
        client_trust(
            SUPERVISOR.public_key,
            insecure=True,
            who="",
            key_option="--public-key",
            insecure_option="--insecure-unsigned",
        )


def test_the_unsigned_mark_comes_first_once_and_keeps_the_notes_bounded() -> None:
    report = decision("act-1", "0" * 64, Outcome.APPROVED)
    crowded = msgspec.structs.replace(report, policy_notes=[f"note {i}" for i in range(20)])
    marked = mark_unsigned(crowded)
    assert marked.policy_notes[0] == UNSIGNED_NOTE
    assert len(marked.policy_notes) == 20
    assert mark_unsigned(marked) == marked
    assert marked.policy_notes[1:] == [f"note {i}" for i in range(19)]


@pytest.mark.anyio
async def test_mcp_on_nats_without_a_key_refuses_before_connecting() -> None:
    with pytest.raises(ConfigError, match="no public key"):
        async with open_backend(ReviewConfig(), None, nats_url=UNREACHABLE):
            pass


def decision(
    action_id: str, digest: str, outcome: Outcome, agent_id: str = "cli"
) -> HumanLayerReport:
    return HumanLayerReport(
        report_id=f"rpt-{uuid.uuid4().hex[:12]}",
        action_id=action_id,
        agent_id=agent_id,
        action_hash=digest,
        policy_version="test-policy",
        outcome=outcome,
        final_veto_level=VetoLevel.NONE,
    )


Answer = Callable[[ActionSubmitted], HumanLayerReport]


@asynccontextmanager
async def stand_in(nats_url: str, answer: Answer) -> AsyncIterator[str]:
    """A stand-in for the Supervisor on NATS that answers every submission with ``answer``;
    yields the subject prefix."""
    prefix = f"fd{uuid.uuid4().hex[:10]}"
    subjects = Subjects(prefix)
    async with (
        await NatsBus.connect(nats_url, subjects=subjects) as bus,
        bus.subscribe(subjects.agent_submits) as submissions,
        anyio.create_task_group() as tg,
    ):

        async def reply() -> None:
            async for msg in submissions:
                report = answer(decode(msg.data, ActionSubmitted))
                await bus.publish(subjects.decision(report.agent_id), encode(report))

        tg.start_soon(reply)
        await bus.flush()
        yield prefix
        tg.cancel_scope.cancel()


def forged_approval(submitted: ActionSubmitted) -> HumanLayerReport:
    """What the agent under review would publish: an unsigned ``approved``."""
    action = submitted.action
    return decision(
        submitted.action_id, submitted.action_hash or "", Outcome.APPROVED, action.agent_id
    )


def signed_approval(submitted: ActionSubmitted) -> HumanLayerReport:
    return SUPERVISOR.sign(forged_approval(submitted))


async def submit(nats_url: str, prefix: str, *extra: str) -> int:
    args = ["submit", str(DIFF), "--nats", nats_url, "--prefix", prefix, "--wait"]
    args += ["--timeout", "20", *extra]
    with anyio.fail_after(30):
        code: int = await anyio.to_thread.run_sync(main, args)
    return code


@pytest.mark.anyio
@pytest.mark.nats
async def test_submit_wait_never_takes_a_forged_unsigned_approval(
    nats_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    async with stand_in(nats_url, forged_approval) as prefix:
        code = await submit(nats_url, prefix, "--public-key", SUPERVISOR.public_key)
    captured = capsys.readouterr()
    assert code == 3
    assert "not signed" in captured.err
    assert "APPROVED" not in captured.out.upper()


@pytest.mark.anyio
@pytest.mark.nats
async def test_submit_wait_insecure_unsigned_works_and_says_unsigned(
    nats_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    async with stand_in(nats_url, forged_approval) as prefix:
        code = await submit(nats_url, prefix, "--insecure-unsigned", "--format", "json")
    report = decode(capsys.readouterr().out.encode(), HumanLayerReport)
    assert code == 0
    assert report.policy_notes[0] == UNSIGNED_NOTE
    async with stand_in(nats_url, forged_approval) as prefix:
        code = await submit(nats_url, prefix, "--insecure-unsigned")
    assert code == 0
    assert "unsigned: not verified" in capsys.readouterr().out


@pytest.mark.anyio
@pytest.mark.nats
async def test_submit_wait_with_the_key_takes_the_signed_decision(
    nats_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    async with stand_in(nats_url, signed_approval) as prefix:
        code = await submit(nats_url, prefix, "--public-key", SUPERVISOR.public_key)
    captured = capsys.readouterr()
    assert code == 0, captured.err
    assert "unsigned" not in captured.out


@pytest.mark.anyio
@pytest.mark.nats
async def test_show_refuses_a_review_no_trusted_key_signed(
    nats_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """A stand-in answers the review query with an unsigned report (a forger's)."""
    prefix = f"fd{uuid.uuid4().hex[:10]}"
    subjects = Subjects(prefix)
    forged = decision("act-forged", "0" * 64, Outcome.NEEDS_REVIEW)
    listing = ReviewListing(detail=ReviewDetail(report=forged, pending=True))
    async with (
        await NatsBus.connect(nats_url, subjects=subjects) as bus,
        bus.subscribe(subjects.review_query) as queries,
        anyio.create_task_group() as tg,
    ):

        async def answer() -> None:
            async for msg in queries:
                assert msg.reply is not None
                await bus.publish(msg.reply, encode(listing))

        tg.start_soon(answer)
        await bus.flush()
        base = ["show", "act-forged", "--nats", nats_url, "--prefix", prefix]
        keyed = [*base, "--public-key", SUPERVISOR.public_key]
        with anyio.fail_after(30):
            refused = await anyio.to_thread.run_sync(main, keyed)
            err = capsys.readouterr().err
            shown = await anyio.to_thread.run_sync(main, [*base, "--insecure-unsigned"])
        tg.cancel_scope.cancel()
    assert refused == 3
    assert "not signed" in err
    assert shown == 0
    assert "unsigned: not verified" in capsys.readouterr().out


@pytest.mark.anyio
@pytest.mark.nats
async def test_watch_with_a_key_skips_forged_decisions_and_prints_signed_ones(
    nats_url: str,
) -> None:
    prefix = f"fd{uuid.uuid4().hex[:10]}"
    subjects = Subjects(prefix)
    command = [sys.executable, "-m", "humangr.cli.main", "watch", "--nats", nats_url]
    command += ["--prefix", prefix, "--format", "json", "--public-key", SUPERVISOR.public_key]
    forged = decision("act-forged", "0" * 64, Outcome.APPROVED, "cli")
    genuine = SUPERVISOR.sign(decision("act-genuine", "1" * 64, Outcome.REJECTED, "cli"))
    async with (
        await NatsBus.connect(nats_url, subjects=subjects) as bus,
        await anyio.open_process(command, stdout=subprocess.PIPE) as watcher,
    ):
        assert watcher.stdout is not None
        out = b""
        with anyio.fail_after(30):
            while out.count(b"\n") < 2:
                # the watcher may not be subscribed yet: publish both until it prints two
                await bus.publish(subjects.decision("cli"), encode(forged))
                await bus.publish(subjects.decision("cli"), encode(genuine))
                with anyio.move_on_after(0.5):
                    out += await watcher.stdout.receive()
        watcher.terminate()
    printed = [decode(line, HumanLayerReport) for line in out.splitlines() if line.strip()]
    assert {r.action_id for r in printed} == {"act-genuine"}
    assert all(r.outcome is Outcome.REJECTED for r in printed)


@pytest.mark.anyio
@pytest.mark.nats
async def test_resolve_never_shows_a_forged_final_decision(
    nats_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """The pending review is genuine (signed); the "final decision" that answers the
    resolution is a forger's unsigned ``approved``: ``resolve`` with the key refuses it."""
    prefix = f"fd{uuid.uuid4().hex[:10]}"
    subjects = Subjects(prefix)
    pending = SUPERVISOR.sign(decision("act-pending", "2" * 64, Outcome.NEEDS_REVIEW, "cli"))
    listing = ReviewListing(detail=ReviewDetail(report=pending, pending=True))
    forged = msgspec.structs.replace(
        decision("act-pending", "2" * 64, Outcome.APPROVED, "cli"),
        resolved_by="alice",
        resolution_reason=REASON,
    )
    async with (
        await NatsBus.connect(nats_url, subjects=subjects) as bus,
        bus.subscribe(subjects.review_query) as queries,
        bus.subscribe(subjects.review_resolve("act-pending")) as resolutions,
        anyio.create_task_group() as tg,
    ):

        async def answer() -> None:
            async for msg in queries:
                assert msg.reply is not None
                await bus.publish(msg.reply, encode(listing))

        async def forge() -> None:
            async for _ in resolutions:
                await bus.publish(subjects.decision("cli"), encode(forged))

        tg.start_soon(answer)
        tg.start_soon(forge)
        await bus.flush()
        args = ["resolve", "act-pending", "--approve", "--reason", REASON, "--reviewer", "alice"]
        args += ["--nats", nats_url, "--prefix", prefix, "--public-key", SUPERVISOR.public_key]
        with anyio.fail_after(30):
            code = await anyio.to_thread.run_sync(main, args)
        tg.cancel_scope.cancel()
    captured = capsys.readouterr()
    assert code == 3
    assert "not signed" in captured.err
    assert "APPROVED" not in captured.out.upper()
