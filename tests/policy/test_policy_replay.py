"""``humangr replay``: decisions made by the real engine on a SQLite state, re-decided under a
changed policy with the local checks only — the recorded LLM runs reused (no LLM call), the
state file byte-identical afterwards, a damaged entry reported and skipped, bad input exit 3."""

from __future__ import annotations

import json
import sqlite3
import time
import uuid
from pathlib import Path

import pytest
from policy_helpers import bash

from humangr.actors.roles import run_engine
from humangr.cli.main import main
from humangr.contracts import Outcome, Subjects
from humangr.engine.config import ReviewConfig
from humangr.engine.llm import ScriptedLLM
from humangr.engine.policy import parse_policy
from humangr.engine.state import SqliteStateStore

pytestmark = pytest.mark.anyio

CLEAN = {"json": {"findings": [], "summary": "looks fine"}}
OLD = """\
version = 1
default = "review"

[[rule]]
id = "tests"
effect = "allow"
tools = ["bash"]
[rule.match]
command = ["pytest*"]

[[rule]]
id = "no-listing"
effect = "deny"
tools = ["bash"]
[rule.match]
command = ["ls*"]
"""
NEW = """\
version = 1
default = "review"

[[rule]]
id = "no-tests"
effect = "deny"
tools = ["bash"]
[rule.match]
command = ["pytest*"]

[[rule]]
id = "listing"
effect = "allow"
tools = ["bash"]
[rule.match]
command = ["ls*"]

[[rule]]
id = "echo-asks"
effect = "ask"
tools = ["bash"]
[rule.match]
command = ["echo bye*"]
"""
COMMANDS = {
    "act-pytest": "pytest -q tests/",
    "act-ls": "ls -la src",
    "act-echo": "echo hello",
    "act-bye": "echo bye",
}


async def _decide_all(path: Path, llm: ScriptedLLM | None) -> dict[str, Outcome]:
    store = SqliteStateStore(path)
    config = ReviewConfig(rules=parse_policy(OLD.encode(), source="old.toml"))
    outcomes: dict[str, Outcome] = {}
    try:
        async with run_engine(
            llm=llm,
            config=config,
            state=store,
            subjects=Subjects(prefix=f"r{uuid.uuid4().hex[:10]}"),
        ) as engine:
            for action_id, command in COMMANDS.items():
                report = await engine.submit(bash(command), action_id=action_id, timeout=30)
                outcomes[action_id] = report.outcome
    finally:
        await store.close()
    return outcomes


def _snapshot(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in folder.iterdir()}


def _write(tmp_path: Path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text)
    return str(path)


async def test_replay_shows_what_the_new_policy_changes_and_writes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    state = tmp_path / "state.db"
    llm = ScriptedLLM.from_lines([{"match": {}, **CLEAN}])
    before = await _decide_all(state, llm)
    assert before == {
        "act-pytest": Outcome.APPROVED,
        "act-ls": Outcome.REJECTED,
        "act-echo": Outcome.APPROVED,
        "act-bye": Outcome.APPROVED,
    }
    calls = llm.calls
    assert calls > 0, "the layers ran on the actions no rule decided"
    new = _write(tmp_path, "new.toml", NEW)
    files = _snapshot(tmp_path)

    assert main(["replay", "--state", str(state), "--policy", new, "--format", "json"]) == 0
    out = json.loads(capsys.readouterr().out)
    changed = {c["action_id"]: c for c in out["changed"]}
    assert out["replayed"] == 4
    assert changed["act-pytest"]["before"] == "approved"
    assert changed["act-pytest"]["after"] == "rejected"
    assert changed["act-pytest"]["rule"] == "no-tests"
    assert changed["act-ls"]["before"] == "rejected"
    assert changed["act-ls"]["after"] == "approved"
    assert changed["act-ls"]["decided_by"] == "rule:listing"
    assert changed["act-bye"]["after"] == "needs_review"
    assert "act-echo" not in changed, "the recorded layer results are reused: no change"
    assert out["skipped"] == []
    assert llm.calls == calls, "replay never calls an LLM"

    assert main(["replay", "--state", str(state), "--policy", new]) == 0
    table = capsys.readouterr().out
    assert "4 decision(s) replayed" in table
    assert "rule no-tests: approved → rejected: 1" in table
    assert "rule listing: rejected → approved: 1" in table
    assert _snapshot(tmp_path) == files, "nothing written"


async def test_a_decision_the_layers_never_saw_would_need_them(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    state = tmp_path / "state.db"
    await _decide_all(state, ScriptedLLM.from_lines([{"match": {}, **CLEAN}]))
    review_all = _write(tmp_path, "review.toml", 'version = 1\ndefault = "review"\n')
    assert main(["replay", "--state", str(state), "--policy", review_all, "--format", "json"]) == 0
    changed = {c["action_id"]: c for c in json.loads(capsys.readouterr().out)["changed"]}
    assert changed["act-pytest"]["after"] == "needs the layers"
    assert changed["act-pytest"]["decided_by"] == "would need the layers"
    assert "act-echo" not in changed


async def test_an_engine_without_llm_layers_is_replayed_with_its_local_checks(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    state = tmp_path / "state.db"
    before = await _decide_all(state, None)
    review_all = _write(tmp_path, "review.toml", 'version = 1\ndefault = "review"\n')
    assert main(["replay", "--state", str(state), "--policy", review_all, "--format", "json"]) == 0
    changed = {c["action_id"]: c for c in json.loads(capsys.readouterr().out)["changed"]}
    assert "act-echo" not in changed, f"the local checks decide it again ({before['act-echo']})"
    assert changed["act-ls"]["before"] == "rejected"
    assert changed["act-ls"]["decided_by"] == "local checks"
    assert all(c["after"] != "needs the layers" for c in changed.values())


async def test_a_damaged_entry_is_reported_and_skipped(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    state = tmp_path / "state.db"
    await _decide_all(state, ScriptedLLM.from_lines([{"match": {}, **CLEAN}]))
    with sqlite3.connect(state) as db:
        db.execute(
            "INSERT INTO entries (bucket, key, value, revision, written) VALUES (?, ?, ?, ?, ?)",
            ("decisions", "act-broken", b'{"report": 42, "kind": "decision"}', 99, time.time()),
        )
    new = _write(tmp_path, "new.toml", NEW)
    assert main(["replay", "--state", str(state), "--policy", new, "--format", "json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["replayed"] == 4
    assert len(out["skipped"]) == 1
    assert out["skipped"][0].startswith("act-broken: damaged entry skipped")


async def test_since_bounds_the_age(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    state = tmp_path / "state.db"
    await _decide_all(state, ScriptedLLM.from_lines([{"match": {}, **CLEAN}]))
    with sqlite3.connect(state) as db:
        db.execute("UPDATE entries SET written = 1000 WHERE key = 'act-pytest'")
    new = _write(tmp_path, "new.toml", NEW)
    code = main(["replay", "--state", str(state), "--policy", new, "--since", "7d"])
    assert code == 0
    assert "3 decision(s) replayed" in capsys.readouterr().out


@pytest.mark.parametrize("policy_text", [None, "default = [", 'version = 1\ndefault = "maybe"\n'])
async def test_a_missing_or_invalid_policy_is_one_line_and_exit_3(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], policy_text: str | None
) -> None:
    state = tmp_path / "state.db"
    await _decide_all(state, ScriptedLLM.from_lines([{"match": {}, **CLEAN}]))
    path = tmp_path / "bad.toml"
    if policy_text is not None:
        path.write_text(policy_text)
    assert main(["replay", "--state", str(state), "--policy", str(path)]) == 3
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1
    assert "bad.toml" in err


async def test_a_missing_or_foreign_state_file_is_exit_3(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    new = _write(tmp_path, "new.toml", NEW)
    assert main(["replay", "--state", str(tmp_path / "none.db"), "--policy", new]) == 3
    assert "no such state file" in capsys.readouterr().err
    foreign = tmp_path / "foreign.db"
    foreign.write_bytes(b"not a database at all" * 10)
    assert main(["replay", "--state", str(foreign), "--policy", new]) == 3
    assert "not a readable humangr state file" in capsys.readouterr().err
    assert foreign.read_bytes() == b"not a database at all" * 10
