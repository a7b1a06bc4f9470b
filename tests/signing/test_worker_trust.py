"""Layer workers' keys as operators handle them: where a worker's key comes from, what
``--trust-workers`` accepts, the warning of a bus without permissions, and ``serve`` processes
where the Supervisor refuses an untrusted worker's reports and accepts a trusted one's."""

from __future__ import annotations

import json
import sys
import uuid
from pathlib import Path

import anyio
import pytest

sys.path.insert(0, str(Path(__file__).parent.parent))
sys.path.insert(0, str(Path(__file__).parent.parent / "deploy"))
from cli_helpers import environment, humangr
from deploy_helpers import Spec, serving

from humangr.actors.roles import submit_and_wait
from humangr.cli.serve import has_credentials
from humangr.contracts import ActionContext, DeadLetter, Outcome, Subjects, decode
from humangr.engine.bus.nats import NatsBus
from humangr.engine.errors import ConfigError
from humangr.engine.signing import SigningKey, default_key_path, write_new_key
from humangr.engine.worker_keys import load_worker_key, parse_trusted_workers


def test_a_worker_key_comes_from_its_own_chain_not_the_decision_key(tmp_path: Path) -> None:
    env = {"HUMANGR_HOME": str(tmp_path)}
    made, source = load_worker_key(environ=env)
    assert source.endswith("worker.seed (new)")
    assert (tmp_path / "worker.seed").stat().st_mode & 0o077 == 0
    assert not default_key_path(env).exists(), "the decision key is not touched"
    again, _ = load_worker_key(environ=env)
    assert again.public_key == made.public_key
    other = SigningKey.generate()
    chosen, source = load_worker_key(environ={**env, "HUMANGR_WORKER_SEED": other.seed()})
    assert (chosen.public_key, source) == (other.public_key, "HUMANGR_WORKER_SEED")
    file = tmp_path / "w.seed"
    written = write_new_key(file)
    assert load_worker_key(file, environ=env)[0].public_key == written.public_key


def test_trusted_workers_are_keys_or_a_file_of_them(tmp_path: Path) -> None:
    a, b = SigningKey.generate().public_key, SigningKey.generate().public_key
    assert parse_trusted_workers(f"{a}, {b},{a}", environ={}) == (a, b)
    listed = tmp_path / "workers.txt"
    listed.write_text(f"# the layer workers\n{a}  # host 1\n\n{b}\n")
    assert parse_trusted_workers(str(listed), environ={}) == (a, b)
    assert parse_trusted_workers(None, environ={"HUMANGR_TRUST_WORKERS": b}) == (b,)
    assert parse_trusted_workers(None, environ={}) is None
    assert parse_trusted_workers(a, environ={"HUMANGR_TRUST_WORKERS": b}) == (a,)


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("NOTAKEY", "not a HUMANGR public key"),
        ("SN" + "A" * 56, "neither public keys"),
        ("/no/such/file", "neither public keys"),
        ("N" + "A" * 55, "not a HUMANGR public key"),
    ],
)
def test_a_bad_trust_list_is_a_config_error_saying_which(spec: str, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        parse_trusted_workers(spec, environ={})


def test_a_seed_given_as_a_trusted_key_is_refused(tmp_path: Path) -> None:
    leaked = tmp_path / "oops.txt"
    leaked.write_text(SigningKey.generate().seed() + "\n")
    with pytest.raises(ConfigError, match="a seed") as caught:
        parse_trusted_workers(str(leaked), environ={})
    assert leaked.read_text().strip()[:6] not in str(caught.value), "a seed is never echoed"
    empty = tmp_path / "empty.txt"
    empty.write_text("# nobody yet\n")
    with pytest.raises(ConfigError, match="names no worker key"):
        parse_trusted_workers(str(empty), environ={})


@pytest.mark.parametrize(
    ("url", "env", "expected"),
    [
        ("nats://127.0.0.1:4222", {}, False),
        ("nats://127.0.0.1:4222,nats://10.0.0.2:4222", {}, False),
        ("nats://alice:pw@127.0.0.1:4222", {}, True),
        ("nats://token@127.0.0.1:4222", {}, True),
        ("nats://127.0.0.1:4222", {"HUMANGR_NATS_USER": "supervisor"}, True),
        ("nats://127.0.0.1:4222", {"HUMANGR_NATS_CREDS": "/x.creds"}, True),
    ],
)
def test_credentials_are_seen_in_the_environment_or_the_url(
    url: str, env: dict[str, str], expected: bool
) -> None:
    assert has_credentials(url, env) is expected


def test_key_worker_prints_the_worker_public_key(tmp_path: Path) -> None:
    env = environment(HUMANGR_HOME=str(tmp_path))
    shown = humangr("key", "--worker", env=env)
    assert shown.returncode == 0, shown.stderr
    seed = (tmp_path / "worker.seed").read_text().strip()
    assert shown.stdout.strip() == SigningKey(seed).public_key
    assert seed not in shown.stdout + shown.stderr
    assert not (tmp_path / "signing.seed").exists()


@pytest.mark.anyio
@pytest.mark.nats
async def test_serve_refuses_an_untrusted_worker_process_and_accepts_a_trusted_one(
    nats_url: str, tmp_path: Path
) -> None:
    trusted, stranger = tmp_path / "trusted.seed", tmp_path / "stranger.seed"
    trusted_key, _ = write_new_key(trusted), write_new_key(stranger)
    script = tmp_path / "llm.jsonl"
    script.write_text(json.dumps({"match": {}, "json": {"findings": [], "summary": "ok"}}) + "\n")
    prefix = f"trust{uuid.uuid4().hex[:8]}"
    common = ("--nats", nats_url, "--prefix", prefix, "--layer-deadline", "3")
    supervisor = Spec(("--role", "supervisor", *common, "--trust-workers", trusted_key.public_key))
    subjects = Subjects(prefix)
    bus = await NatsBus.connect(nats_url)
    try:
        for seed, expected in ((stranger, Outcome.NEEDS_REVIEW), (trusted, Outcome.APPROVED)):
            worker = Spec(
                (
                    "--role",
                    "layers",
                    *common,
                    "--llm",
                    f"scripted:{script}",
                    "--worker-key",
                    str(seed),
                )
            )
            letters: list[DeadLetter] = []
            async with (
                serving(supervisor, worker, log_dir=tmp_path) as (boss, layers),
                bus.subscribe(subjects.dlq) as dlq,
                anyio.create_task_group() as tg,
            ):

                async def record(into: list[DeadLetter]) -> None:
                    async for msg in dlq:
                        into.append(decode(msg.data, DeadLetter))

                tg.start_soon(record, letters)
                action = ActionContext(  # one per round: a decision stands for its hash
                    agent_id="agent-1",
                    action_type="shell_command",
                    action_description=f"list the files of the build folder ({seed.name})",
                )
                report = await submit_and_wait(bus, subjects, action, timeout=30)
                tg.cancel_scope.cancel()
            assert report.outcome is expected, (report.blocking_reasons, boss.output())
            printed = "\n".join(layers.lines)
            assert "humangr layer reports are signed with N" in printed
            said = boss.log.read_text(errors="replace")  # all of it: output() keeps the end
            assert "WARNING: the NATS connection has no user or credentials" in said
            refused = [d for d in letters if d.subject == subjects.layer_report]
            if expected is Outcome.APPROVED:
                assert refused == []
            else:
                assert len(refused) == 7
                assert all("not a trusted worker key" in d.error for d in refused)
    finally:
        await bus.close()
