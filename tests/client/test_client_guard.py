"""``hg.guard`` against a served engine, on the MemoryBus and on a real nats-server: an approved
call runs, a rejected one raises ``Rejected`` without running, a ``needs_review`` waits for the
human (or raises at once)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Literal

import anyio
import pytest
from client_helpers import Served, first_needing_review, served

from humangr import Rejected
from humangr.contracts import Outcome

pytestmark = pytest.mark.anyio


@pytest.fixture(params=["memory", "nats"])
async def env(request: pytest.FixtureRequest) -> AsyncIterator[Served]:
    url = None if request.param == "memory" else request.getfixturevalue("nats_url")
    async with served(url, layers=["HL2", "HL4"]) as pair:
        yield pair


async def test_an_approved_async_call_runs_and_returns_its_value(env: Served) -> None:
    calls: list[str] = []

    @env.hg.guard
    async def write_note(path: str, text: str) -> int:
        calls.append(path)
        return len(text)

    assert await write_note("notes/today.txt", "hello") == 5
    assert calls == ["notes/today.txt"]
    assert write_note.__name__ == "write_note", "functools.wraps keeps the name"


async def test_an_approved_sync_call_runs_from_a_worker_thread(env: Served) -> None:
    calls: list[list[str]] = []

    @env.hg.guard(agent_id="shell-agent", action_type="shell")
    def run(argv: list[str]) -> str:
        calls.append(argv)
        return " ".join(argv)

    assert await anyio.to_thread.run_sync(run, ["ls", "-l"]) == "ls -l"
    assert calls == [["ls", "-l"]]


async def test_a_rejected_call_raises_with_the_report_and_does_not_run(env: Served) -> None:
    env.kit.reject("HL4", "Deletes the production database")
    calls: list[str] = []

    @env.hg.guard
    async def drop(table: str) -> None:
        calls.append(table)

    with pytest.raises(Rejected) as caught:
        await drop("users")

    assert calls == []
    report = caught.value.report
    assert report.outcome is Outcome.REJECTED
    assert report.agent_id == "agent"
    assert "Deletes the production database" in str(caught.value)
    assert "drop" in str(caught.value)
    assert "rejected" in str(caught.value)
    assert report.signer == env.kit.engine.public_key


async def test_the_reviewed_action_shows_the_call_and_its_arguments(env: Served) -> None:
    @env.hg.guard(agent_id="writer")
    async def write_file(path: str, content: str, *, mode: str = "w") -> None:
        return None

    await write_file("out/report.md", "# Report")

    requests = env.kit.llm.requests if env.kit.llm is not None else []
    prompt = "\n".join(block.text for r in requests for block in r.system)
    assert '"name": "write_file"' in prompt
    assert '"kind": "file_write"' in prompt
    assert '"path": "out/report.md"' in prompt
    assert '"content": "# Report"' in prompt
    assert '"mode": "w"' in prompt, "defaults are bound and shown too"


@pytest.mark.parametrize("verdict", ["approve", "reject"])
async def test_needs_review_waits_for_the_human(
    env: Served, verdict: Literal["approve", "reject"]
) -> None:
    env.kit.needs_review("HL2", "Sends mail to every customer")
    calls: list[str] = []
    outcome: list[BaseException | str] = []

    @env.hg.guard
    async def mail_everyone(subject: str) -> str:
        calls.append(subject)
        return "sent"

    async def agent() -> None:
        try:
            outcome.append(await mail_everyone("Our new prices"))
        except Rejected as exc:
            outcome.append(exc)

    with anyio.fail_after(20):
        async with anyio.create_task_group() as tg:
            tg.start_soon(agent)
            pending = await first_needing_review(env.kit)
            assert not calls, "nothing runs while the human decides"
            await env.kit.resolve(pending, verdict, reviewer="alice")

    if verdict == "approve":
        assert outcome == ["sent"]
        assert calls == ["Our new prices"]
    else:
        assert calls == []
        [error] = outcome
        assert isinstance(error, Rejected)
        assert error.report.resolved_by == "alice"
        assert error.report.outcome is Outcome.REJECTED


async def test_needs_review_raises_at_once_when_told_to(env: Served) -> None:
    env.kit.needs_review("HL2", "Sends mail to every customer")
    calls: list[str] = []

    @env.hg.guard(on_needs_review="raise")
    def mail_everyone(subject: str) -> None:
        calls.append(subject)

    with anyio.fail_after(20), pytest.raises(Rejected) as caught:
        await anyio.to_thread.run_sync(mail_everyone, "Our new prices")

    assert calls == []
    assert caught.value.report.outcome is Outcome.NEEDS_REVIEW
    assert caught.value.report.resolved_by is None


async def test_review_with_final_returns_the_human_resolution(env: Served) -> None:
    env.kit.needs_review("HL2", "Risky migration")
    action = {
        "agent_id": "migrator",
        "action_type": "code_diff",
        "action_description": "add a column",
        "code_diff": "--- a/m.sql\n+++ b/m.sql\n@@ -0,0 +1 @@\n+ALTER TABLE t ADD c int;\n",
    }
    reports = []

    async def agent() -> None:
        reports.append(await env.hg.review(action, final=True))

    with anyio.fail_after(20):
        async with anyio.create_task_group() as tg:
            tg.start_soon(agent)
            pending = await first_needing_review(env.kit)
            first = await env.hg.review(action)
            assert first.outcome is Outcome.NEEDS_REVIEW, "without final: the first decision"
            await env.kit.resolve(pending, "approve", reviewer="bob")

    [report] = reports
    assert report.outcome is Outcome.APPROVED
    assert report.resolved_by == "bob"
    assert report.action_id == pending.action_id
