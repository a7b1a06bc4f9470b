"""``humangr grants|revoke --nats`` and ``humangr replay --nats`` against an engine served on a
real nats-server, its state in JetStream KV: the grants a reviewer made are listed and one is
ended at once; a replay reads the stored decisions through the Supervisor, calls no LLM,
leaves the bucket byte-identical, and prints exactly what ``replay --state`` prints for the
same decisions."""

from __future__ import annotations

import json
import sys
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import anyio
import pytest
from policy_helpers import bash, policy
from test_policy_replay import CLEAN, COMMANDS, NEW, OLD

from humangr.actors.roles import Engine, run_engine
from humangr.contracts import Grant, Outcome, ReviewResolution, Subjects, decode, encode
from humangr.engine.bus.nats import NatsBus
from humangr.engine.config import ReviewConfig
from humangr.engine.llm import ScriptedLLM
from humangr.engine.policy import Policy, parse_policy
from humangr.engine.state import KeyValueStateStore, SqliteStateStore
from humangr.engine.state.base import Entry

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from cli_reviews_helpers import humangr  # isort: skip

pytestmark = [pytest.mark.anyio, pytest.mark.nats]

Cap = pytest.CaptureFixture[str]
REASON = "checked the rollout plan and the chart diff"


@asynccontextmanager
async def served(
    nats_url: str, rules: Policy, llm: ScriptedLLM | None = None
) -> AsyncIterator[tuple[Engine, KeyValueStateStore, str]]:
    """An engine on the real nats-server, its state in KV under a fresh namespace; yields it,
    the store and the subject prefix."""
    prefix = f"gn{uuid.uuid4().hex[:10]}"
    namespace = f"T{uuid.uuid4().hex[:10]}"
    bus = await NatsBus.connect(nats_url)
    store = KeyValueStateStore(bus.client.jetstream(), namespace=namespace, storage="memory")
    try:
        async with run_engine(
            bus=bus,
            llm=llm,
            config=ReviewConfig(rules=rules),
            state=store,
            subjects=Subjects(prefix),
        ) as engine:
            yield engine, store, prefix
    finally:
        js = bus.client.jetstream()
        for info in await js.streams_info():
            if info.config.name and info.config.name.startswith(f"KV_{namespace}_"):
                await js.delete_stream(info.config.name)
        await bus.close()


async def test_grants_and_revoke_over_nats(nats_url: str, capsys: Cap) -> None:
    async with served(nats_url, policy()) as (engine, _, prefix):
        where = ("--nats", nats_url, "--prefix", prefix)
        empty = await humangr(capsys, "grants", *where)
        assert (empty.code, empty.out.strip()) == (0, f"no grants via {nats_url}")
        action = bash("deploy prod")
        async with engine.bus.subscribe(engine.subjects.reviews_pending) as pending:
            await engine.bus.flush()
            asked = await engine.submit(action, timeout=30)
            with anyio.fail_after(10):
                await pending.__anext__()
        resolution = ReviewResolution(
            action_id=asked.action_id,
            action_hash=asked.action_hash,
            verdict="approve",
            reviewer="alice",
            reason=REASON,
            grant_s=3600.0,
            grant_scope="exact",
        )
        await engine.bus.publish(
            engine.subjects.review_resolve(asked.action_id), encode(resolution)
        )
        with anyio.fail_after(10):
            listing = ("grants", *where, "--format", "json")
            while (listed := await humangr(capsys, *listing)).out in ("", "[]\n"):  # noqa: ASYNC110
                await anyio.sleep(0.1)
        (made,) = [decode(json.dumps(g).encode(), Grant) for g in json.loads(listed.out)]
        text = await humangr(capsys, "grants", *where)
        granted = await engine.submit(action, timeout=30)
        revoked = await humangr(capsys, "revoke", made.id, *where, "--reviewer", "bob")
        after = await engine.submit(action, timeout=30)
        again = await humangr(capsys, "revoke", made.id, *where)
        bad = await humangr(capsys, "revoke", "g1.>", *where)
    assert (made.agent_id, made.tool, made.scope, made.reviewer) == (
        "coder",
        "bash",
        "exact",
        "alice",
    )
    assert text.code == 0
    assert text.out.startswith(f"1 grant(s) via {nats_url}:")
    assert f"{made.id}  agent=coder tool=bash scope=exact uses=0 expires in " in text.out
    assert granted.decided_by == f"grant:{made.id}"
    assert (revoked.code, revoked.out.strip()) == (
        0,
        f"grant {made.id} revoked: it no longer applies",
    )
    assert after.outcome is Outcome.NEEDS_REVIEW
    again.error_line(f"no grant {made.id!r}", "humangr grants")
    bad.error_line("is not a grant id")


def test_grants_over_nats_with_no_supervisor_is_one_line(nats_url: str) -> None:
    from cli_helpers import assert_error
    from cli_helpers import humangr as run

    prefix = f"none{uuid.uuid4().hex[:8]}"
    assert_error(run("grants", "--nats", nats_url, "--prefix", prefix, "--timeout", "1"))
    assert_error(run("revoke", "g1", "--nats", nats_url, "--prefix", prefix, "--timeout", "1"))


async def test_replay_over_nats_reads_without_writing_and_prints_what_state_prints(
    nats_url: str, capsys: Cap, tmp_path: Path
) -> None:
    old = parse_policy(OLD.encode(), source="old.toml")
    new = tmp_path / "new.toml"
    new.write_text(NEW)
    llm = ScriptedLLM.from_lines([{"match": {}, **CLEAN}])
    async with served(nats_url, old, llm) as (engine, store, prefix):
        for action_id, command in COMMANDS.items():
            await engine.submit(bash(command), action_id=action_id, timeout=30)
        calls = llm.calls
        decisions = await store.bucket("decisions")
        before: list[Entry] = await decisions.entries()
        where = ("--nats", nats_url, "--prefix", prefix)
        as_json = await humangr(capsys, "replay", *where, "--policy", str(new), "--format", "json")
        table = await humangr(capsys, "replay", *where, "--policy", str(new))
        young = await humangr(capsys, "replay", *where, "--policy", str(new), "--since", "1h")
        assert await decisions.entries() == before, "the bucket is byte-identical"
        assert llm.calls == calls, "replay never calls an LLM"
    state = tmp_path / "state.db"
    copy = SqliteStateStore(state)
    try:
        bucket = await copy.bucket("decisions")
        for entry in before:
            await bucket.put(entry.key, entry.value)
    finally:
        await copy.close()
    from_file = await humangr(
        capsys, "replay", "--state", str(state), "--policy", str(new), "--format", "json"
    )
    file_table = await humangr(capsys, "replay", "--state", str(state), "--policy", str(new))
    assert (as_json.code, table.code, young.code) == (0, 0, 0), as_json.err + table.err
    out = json.loads(as_json.out)
    assert out["replayed"] == len(COMMANDS)
    changed = {c["action_id"]: c for c in out["changed"]}
    assert (changed["act-pytest"]["before"], changed["act-pytest"]["after"]) == (
        "approved",
        "rejected",
    )
    assert changed["act-ls"]["decided_by"] == "rule:listing"
    assert young.out == table.out
    assert from_file.out == as_json.out, "the same decisions print the same"
    assert file_table.out == table.out
