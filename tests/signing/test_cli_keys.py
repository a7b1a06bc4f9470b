"""``humangr key``, ``humangr verify`` and ``humangr submit --wait --key``, as a user runs them."""

from __future__ import annotations

import json
import os
import sys
import uuid
from pathlib import Path

import anyio
import pytest

sys.path.insert(0, str(Path(__file__).parent.parent))
from cli_helpers import CLEAN_DIFF, assert_error, environment, humangr
from test_signing import decision

from humangr.actors.roles import run_engine
from humangr.cli.main import main
from humangr.contracts import HumanLayerReport, Outcome, Subjects, decode, encode
from humangr.engine.bus.nats import NatsBus
from humangr.engine.signing import SigningKey


def test_key_prints_the_public_key_of_the_default_seed_and_never_the_seed(tmp_path: Path) -> None:
    env = environment(HUMANGR_HOME=str(tmp_path))
    first = humangr("key", env=env)
    assert first.returncode == 0, first.stderr
    public = first.stdout.strip()
    assert public.startswith("N")
    assert len(public) == 56
    seed = (tmp_path / "signing.seed").read_text().strip()
    assert seed not in first.stdout + first.stderr
    again = humangr("key", env=env)
    assert again.stdout.strip() == public
    assert SigningKey(seed).public_key == public


def test_key_generate_and_a_chosen_file(tmp_path: Path) -> None:
    env = environment(HUMANGR_HOME=str(tmp_path / "home"))
    file = tmp_path / "team.seed"
    made = humangr("key", "--generate", str(file), env=env)
    assert made.returncode == 0, made.stderr
    assert oct(file.stat().st_mode & 0o777) == "0o600"
    shown = humangr("key", "--signing-key", str(file), env=env)
    assert shown.stdout.strip() == made.stdout.strip()
    assert_error(humangr("key", "--generate", str(file), env=env), "not overwritten")
    os.chmod(file, 0o644)
    assert_error(humangr("key", "--signing-key", str(file), env=env), "chmod 600")


def test_verify_exit_codes(tmp_path: Path) -> None:
    key = SigningKey.generate()
    good = key.sign(decision())
    (tmp_path / "good.json").write_bytes(encode(good))
    ok = humangr("verify", str(tmp_path / "good.json"), "--key", key.public_key)
    assert ok.returncode == 0, ok.stdout + ok.stderr
    assert ok.stdout.startswith("valid act-1")

    flipped = json.loads(encode(good))
    flipped["outcome"] = "approved"
    (tmp_path / "flipped.json").write_text(json.dumps(flipped))
    bad = humangr("verify", str(tmp_path / "flipped.json"), "--key", key.public_key)
    assert bad.returncode == 2
    assert "INVALID act-1" in bad.stdout

    other = humangr(
        "verify", str(tmp_path / "good.json"), "--key", SigningKey.generate().public_key
    )
    assert other.returncode == 2
    assert "not a trusted key" in other.stdout

    both = humangr(
        "verify",
        str(tmp_path / "good.json"),
        "--key",
        SigningKey.generate().public_key,
        "--key",
        key.public_key,
    )
    assert both.returncode == 0

    lines = tmp_path / "watched.jsonl"
    lines.write_bytes(encode(good) + b"\n" + json.dumps(flipped).encode() + b"\n")
    mixed = humangr("verify", str(lines), "--key", key.public_key)
    assert mixed.returncode == 2
    assert mixed.stdout.count("valid act-1") == 1

    stdin = humangr("verify", "-", "--key", key.public_key, stdin=encode(good))
    assert stdin.returncode == 0


@pytest.mark.parametrize(
    "content",
    [b"", b"not json", b'{"outcome": "approved"}', b"\xff\xfe", b"[" * 5000],
    ids=["empty", "text", "partial", "bytes", "nested"],
)
def test_verify_an_unreadable_decision_is_exit_3(tmp_path: Path, content: bytes) -> None:
    (tmp_path / "r.json").write_bytes(content)
    result = humangr("verify", str(tmp_path / "r.json"), "--key", SigningKey.generate().public_key)
    assert result.returncode == 3, result.stdout + result.stderr
    assert "Traceback" not in result.stderr


def test_verify_needs_a_key_and_a_file(tmp_path: Path) -> None:
    assert_error(humangr("verify", str(tmp_path / "r.json")), "--key")
    missing = humangr("verify", str(tmp_path / "missing.json"), "--key", "N" * 56)
    assert missing.returncode == 3


@pytest.mark.anyio
@pytest.mark.nats
async def test_submit_wait_trusts_only_the_given_key(
    nats_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    prefix = f"sig{uuid.uuid4().hex[:8]}"
    key = SigningKey.generate()
    bus = await NatsBus.connect(nats_url)
    try:
        async with run_engine(bus=bus, subjects=Subjects(prefix), signing_key=key):
            base = [
                "submit",
                str(CLEAN_DIFF),
                "--nats",
                nats_url,
                "--prefix",
                prefix,
                "--wait",
                "--format",
                "json",
                "--timeout",
                "20",
            ]
            code = await anyio.to_thread.run_sync(main, [*base, "--key", key.public_key])
            assert code == 0
            report = decode(capsys.readouterr().out.encode(), HumanLayerReport)
            assert report.outcome is Outcome.APPROVED
            assert report.signer == key.public_key
            wrong = [*base, "--key", SigningKey.generate().public_key]
            assert await anyio.to_thread.run_sync(main, wrong) == 3
            assert "not a trusted key" in capsys.readouterr().err
    finally:
        await bus.close()
