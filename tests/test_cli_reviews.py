"""``humangr review --state PATH`` then ``reviews``, ``show`` and ``resolve --state PATH`` in later
processes, as a user runs them; and what every reviewer command refuses before sending
anything."""

from __future__ import annotations

import json
import sqlite3
import time
from pathlib import Path

import anyio
import pytest
from cli_helpers import assert_error, environment, humangr

from humangr.actors.roles import run_engine
from humangr.contracts import (
    ActionContext,
    HumanLayerReport,
    Outcome,
    ReviewDetail,
    ReviewListing,
    decode,
)
from humangr.engine.config import ReviewConfig
from humangr.engine.errors import ConfigError
from humangr.engine.state import SqliteStateStore

from humangr.cli.reviews import check_reason, reviewer_name  # isort: skip

SLOW = """\
diff --git a/app/worker.py b/app/worker.py
--- a/app/worker.py
+++ b/app/worker.py
@@ -5,4 +5,5 @@ import time
 async def poll(queue: asyncio.Queue[str]) -> None:
     while True:
-        await asyncio.sleep(1)
+        time.sleep(1)
+        print("polled")
         item = await queue.get()
"""
"""A diff whose only problem is a blocking call in async code: HL5's medium veto, a human
decides (local checks only, no LLM)."""
REASON = "the loop runs in a worker thread, not on the event loop"


@pytest.fixture
def slow_diff(tmp_path: Path) -> Path:
    path = tmp_path / "slow.diff"
    path.write_text(SLOW)
    return path


def pending_id(state: Path) -> str:
    listed = humangr("reviews", "--state", str(state), "--format", "json")
    assert listed.returncode == 0, listed.stderr
    [review] = decode(listed.stdout.encode(), ReviewListing).reviews
    return review.action_id


def test_a_review_kept_in_a_state_file_is_listed_shown_and_resolved_later(
    tmp_path: Path, slow_diff: Path
) -> None:
    state = tmp_path / "state.db"
    reviewed = humangr("review", "--state", str(state), str(slow_diff))
    assert reviewed.returncode == 1, reviewed.stderr
    action_id = pending_id(state)
    assert f"humangr resolve {action_id} --state {state}" in reviewed.stdout

    listed = humangr("reviews", "--state", str(state))
    assert listed.returncode == 0, listed.stderr
    lines = listed.stdout.splitlines()
    assert lines[0] == f"1 review pending in {state}, oldest deadline first"
    assert lines[1].startswith(f"{action_id}  agent cli  code_diff  1 finding  age ")
    assert lines[3].startswith("  ! HL5 performance: medium veto (local checks only)")

    shown = humangr("show", action_id, "--state", str(state))
    assert shown.returncode == 0, shown.stderr
    body = shown.stdout.splitlines()
    sleep = body.index("          7  +        time.sleep(1)")
    assert body[sleep - 1] == "    7        -        await asyncio.sleep(1)"
    assert body[sleep + 1].strip() == (
        "^ [high] HL5 Blocking call time.sleep() inside async code (rules)"
    )

    resolved = humangr(
        "resolve", action_id, "--approve", "--reason", REASON, "--state", str(state),
        env=environment(LOGNAME="carol", USER="carol"),
    )  # fmt: skip
    assert resolved.returncode == 0, resolved.stderr
    assert resolved.stdout.startswith(f"{action_id}: APPROVED (veto medium)")
    assert f"  resolved by carol: {REASON}" in resolved.stdout.splitlines()

    assert humangr("reviews", "--state", str(state)).stdout.startswith("no reviews pending")
    again = humangr("resolve", action_id, "--reject", "--reason", REASON, "--state", str(state))
    assert_error(again, f"the review of {action_id} is already resolved: approved by carol")
    detail = humangr("show", action_id, "--state", str(state), "--format", "json")
    final = decode(detail.stdout.encode(), ReviewDetail).final
    assert final is not None
    assert (final.outcome, final.resolved_by) == (Outcome.APPROVED, "carol")


def test_reject_from_a_state_file_exits_2_with_the_decision_as_json(
    tmp_path: Path, slow_diff: Path
) -> None:
    state = tmp_path / "state.db"
    assert humangr("review", "--state", str(state), str(slow_diff)).returncode == 1
    action_id = pending_id(state)
    args = ["resolve", action_id, "--reject", "--reason", REASON, "--reviewer", "dana"]
    rejected = humangr(*args, "--state", str(state), "--format", "json")
    assert rejected.returncode == 2, rejected.stderr
    report = decode(rejected.stdout.encode(), HumanLayerReport)
    assert (report.action_id, report.outcome, report.resolved_by) == (
        action_id,
        Outcome.REJECTED,
        "dana",
    )


@pytest.mark.anyio
async def test_a_deadline_that_passed_meanwhile_leaves_nothing_to_resolve(tmp_path: Path) -> None:
    state = tmp_path / "state.db"
    store = SqliteStateStore(state)
    action = ActionContext(
        agent_id="a-1", action_type="code_diff", action_description="poll", code_diff=SLOW
    )
    try:
        async with run_engine(state=store, config=ReviewConfig(review_deadline_s=1)) as engine:
            first = await engine.submit(action)
    finally:
        await store.close()
    assert first.outcome is Outcome.NEEDS_REVIEW
    await anyio.sleep(1.2)
    args = ["resolve", first.action_id, "--approve", "--reason", REASON, "--state", str(state)]
    late = await anyio.to_thread.run_sync(lambda: humangr(*args))
    line = assert_error(late)
    late_words = ("timed out", "timeout", "another Supervisor", "already resolved")
    assert any(words in line for words in late_words), line
    with anyio.fail_after(20):
        while True:
            shown = await anyio.to_thread.run_sync(
                lambda: humangr("show", first.action_id, "--state", str(state))
            )
            if "REJECTED by timeout" in shown.stdout.splitlines()[0]:
                break
            await anyio.sleep(0.5)


BAD_INPUT = [
    (["resolve", "act-1", "--approve", "--reason", "too short"], "at least 20 characters"),
    (["resolve", "act-1", "--approve", "--reason", " " * 40], "it has 0"),
    (
        ["resolve", "act-1", "--reject", "--reason", "a b c d e f g h i j k l m n o p q r s"],
        "it has 19",
    ),
    (["resolve", "act-1", "--approve", "--reason", "x" * 2_001], "the limit is 2,000"),
    (
        ["resolve", "act-1", "--approve", "--reason", REASON, "--reviewer", "  "],
        "does not name a reviewer",
    ),
    (
        ["resolve", "act-1", "--approve", "--reason", REASON, "--reviewer", "eve\x1b[2J"],
        "does not name a reviewer",
    ),
    (["resolve", "../etc/passwd", "--approve", "--reason", REASON], "not an action or report id"),
    (["show", "act 1"], "not an action or report id"),
    (["show", "a" * 65], "not an action or report id"),
    (["reviews", "--limit", "0"], "--limit 0 is out of range"),
    (["resolve", "act-1", "--approve", "--reject", "--reason", REASON], "not allowed with"),
    (["resolve", "act-1", "--reason", REASON], "one of the arguments --approve --reject"),
    (["resolve", "act-1", "--approve"], "--reason"),
    (["reviews", "--timeout", "0"], "'0' is not a number of seconds above 0"),
    (["show", "act-1", "--timeout", "nan"], "'nan' is not a number of seconds above 0"),
    (["reviews", "--timeout", "-1"], "'-1' is not a number of seconds above 0"),
]


@pytest.mark.parametrize(("args", "fragment"), BAD_INPUT)
def test_bad_input_is_refused_before_anything_is_sent(args: list[str], fragment: str) -> None:
    """The NATS URL is unreachable: an error about the input proves nothing was tried."""
    result = humangr(*args, "--nats", "nats://127.0.0.1:1")
    line = assert_error(result, fragment)
    assert "127.0.0.1:1" not in line


@pytest.mark.parametrize(
    ("where", "fragment"),
    [
        (["--nats", "nats://127.0.0.1:1", "--state", "x.db"], "not allowed with"),
        ([], "one of the arguments --nats --state is required"),
    ],
)
def test_one_place_to_ask(where: list[str], fragment: str) -> None:
    assert_error(humangr("reviews", *where), fragment)


def test_a_missing_state_file_is_not_created(tmp_path: Path) -> None:
    missing = tmp_path / "typo.db"
    result = humangr("reviews", "--state", str(missing))
    assert_error(result, f"{missing}: no such state file")
    assert not missing.exists()


@pytest.mark.parametrize("command", [["reviews"], ["show", "act-1"]])
def test_a_damaged_state_file_is_one_line(tmp_path: Path, command: list[str]) -> None:
    damaged = tmp_path / "state.db"
    damaged.write_bytes(b"not a database at all\x00" * 100)
    assert_error(humangr(*command, "--state", str(damaged)), str(damaged))


def test_review_into_a_damaged_state_file_is_one_line(tmp_path: Path, slow_diff: Path) -> None:
    damaged = tmp_path / "state.db"
    damaged.write_bytes(b"\x00garbage" * 500)
    assert_error(humangr("review", "--state", str(damaged), str(slow_diff)), str(damaged))


def test_a_state_file_of_another_program_is_refused(tmp_path: Path) -> None:
    other = tmp_path / "other.db"
    with sqlite3.connect(other) as db:
        db.execute("CREATE TABLE entries (x INTEGER)")
    assert_error(humangr("reviews", "--state", str(other)), str(other))


def test_an_unknown_id_in_a_state_file(tmp_path: Path, slow_diff: Path) -> None:
    state = tmp_path / "state.db"
    assert humangr("review", "--state", str(state), str(slow_diff)).returncode == 1
    started = time.monotonic()
    unknown = humangr("resolve", "act-nope", "--approve", "--reason", REASON, "--state", str(state))
    assert_error(unknown, "no review of action or report 'act-nope'")
    assert time.monotonic() - started < 10


def test_reason_and_reviewer_checks() -> None:
    assert check_reason("a b c d e f g h i j k l m n o p q r s t") == (
        "a b c d e f g h i j k l m n o p q r s t"
    )
    with pytest.raises(ConfigError, match="it has 19"):
        check_reason("\t".join("abcdefghijklmnopqrs"))
    assert reviewer_name(" alice ") == "alice"
    assert reviewer_name(None)
    with pytest.raises(ConfigError):
        reviewer_name("")


def test_review_without_state_says_where_a_review_would_be_kept(slow_diff: Path) -> None:
    reviewed = humangr("review", str(slow_diff))
    assert reviewed.returncode == 1
    assert "with --state PATH the review is kept for humangr resolve" in reviewed.stdout
    as_json = humangr("review", str(slow_diff), "--format", "json")
    assert json.loads(as_json.stdout)["outcome"] == "needs_review"
