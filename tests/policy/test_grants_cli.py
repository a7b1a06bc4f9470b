"""``humangr resolve --grant``, ``humangr grants`` and ``humangr revoke`` on a SQLite state, as a
reviewer runs them in later processes: exit codes, and one line (exit 3) for each bad input."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from policy_helpers import bash, policy

from humangr.actors.roles import run_engine
from humangr.contracts import Decision, Grant, Outcome, decode
from humangr.engine.config import ReviewConfig
from humangr.engine.errors import ConfigError
from humangr.engine.state import SqliteStateStore

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from cli_helpers import assert_error, humangr

from humangr.cli.reviews import grant_duration  # isort: skip

REASON = "checked the rollout plan and the chart diff"


async def asked_in(state: Path, command: str = "deploy prod") -> Decision:
    """A tool call the test policy asks a human about, pending in the SQLite ``state``."""
    store = SqliteStateStore(state)
    try:
        async with run_engine(state=store, config=ReviewConfig(rules=policy())) as engine:
            asked = await engine.submit(bash(command))
    finally:
        await store.close()
    assert asked.outcome is Outcome.NEEDS_REVIEW
    return asked


def grants_in(state: Path) -> list[Grant]:
    listed = humangr("grants", "--state", str(state), "--format", "json")
    assert listed.returncode == 0, listed.stderr
    return [decode(json.dumps(g).encode(), Grant) for g in json.loads(listed.stdout)]


@pytest.mark.anyio
async def test_resolve_with_a_grant_then_list_and_revoke_it(tmp_path: Path) -> None:
    state = tmp_path / "state.db"
    asked = await asked_in(state)
    args = ["resolve", asked.action_id, "--approve", "--reason", REASON, "--reviewer", "alice"]
    resolved = humangr(*args, "--grant", "8h", "--state", str(state))
    assert resolved.returncode == 0, resolved.stderr
    (made,) = grants_in(state)
    assert (made.agent_id, made.tool, made.scope, made.reviewer, made.uses) == (
        "coder",
        "bash",
        "exact",
        "alice",
        0,
    )
    text = humangr("grants", "--state", str(state))
    assert text.returncode == 0, text.stderr
    assert f"{made.id}  agent=coder tool=bash scope=exact uses=0 expires in " in text.stdout
    revoked = humangr("revoke", made.id, "--state", str(state))
    assert revoked.returncode == 0, revoked.stderr
    assert grants_in(state) == []
    assert_error(humangr("revoke", made.id, "--state", str(state)), f"no grant {made.id!r}")


@pytest.mark.anyio
async def test_a_grant_for_a_review_no_longer_pending_is_one_line(tmp_path: Path) -> None:
    state = tmp_path / "state.db"
    asked = await asked_in(state)
    args = ["resolve", asked.action_id, "--approve", "--reason", REASON, "--state", str(state)]
    assert humangr(*args).returncode == 0
    assert_error(humangr(*args, "--grant", "8h"), "already resolved")
    assert grants_in(state) == []


@pytest.mark.parametrize(
    ("extra", "fragment"),
    [
        (["--grant=-1h"], "is not a duration"),
        (["--grant", "0s"], "is not a duration"),
        (["--grant", "31d"], "at most 30d"),
        (["--grant", "1e9h"], "at most 30d"),
        (["--grant", "soon"], "is not a duration"),
        (["--grant", "nanh"], "is not a duration"),
        (["--scope", "tool"], "give --grant DURATION too"),
    ],
)
def test_bad_grants_are_refused_before_anything_is_sent(extra: list[str], fragment: str) -> None:
    args = ["resolve", "act-1", "--approve", "--reason", REASON, *extra]
    line = assert_error(humangr(*args, "--nats", "nats://127.0.0.1:1"), fragment)
    assert "127.0.0.1:1" not in line


def test_a_rejection_grants_nothing() -> None:
    args = ["resolve", "act-1", "--reject", "--reason", REASON, "--grant", "8h"]
    assert_error(humangr(*args, "--nats", "nats://127.0.0.1:1"), "--approve only")


def test_grants_and_revoke_need_a_state_file(tmp_path: Path) -> None:
    missing = str(tmp_path / "typo.db")
    assert_error(humangr("grants", "--state", missing), "no such state file")
    assert_error(humangr("revoke", "g1", "--state", missing), "no such state file")
    assert_error(humangr("revoke", "../g1", "--state", missing), "is not a grant id")
    assert not Path(missing).exists()


def test_durations() -> None:
    assert grant_duration("90s") == 90
    assert grant_duration("30m") == 1_800
    assert grant_duration("8h") == 28_800
    assert grant_duration("30d") == 30 * 86_400
    with pytest.raises(ConfigError, match="at most 30d"):
        grant_duration("30.01d")
