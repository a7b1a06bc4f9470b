"""A submission of the embedded engine's own client goes straight to its Supervisor, in the
caller's task (``ActorSystem.deliver_here``): no bus, mailbox or worker hop. It is decoded,
counted and refused exactly as from the mailbox; it is published instead whenever something
else would receive it (another subscriber), when it is large (the large lane bounds those) and
while the actor is not serving (a crash's restart)."""

from __future__ import annotations

import dataclasses

import anyio
import msgspec
import pytest

from humangr import SubmissionRefused
from humangr.client import connect
from humangr.contracts import ActionContext, ActionSubmitted, HumanLayerReport, Outcome, decode
from humangr.engine.actor import Actor, ActorContext, ActorSystem, SupervisionPolicy
from humangr.engine.actor.base import Route
from humangr.engine.bus import MemoryBus, Msg
from humangr.engine.config import ReviewConfig

pytestmark = pytest.mark.anyio


def _action(diff: str = "+print('hello')\n") -> ActionContext:
    return ActionContext(
        agent_id="agent-1",
        action_type="code_change",
        action_description="say hello",
        code_diff=f"--- a/hello.py\n+++ b/hello.py\n@@ -0,0 +1 @@\n{diff}",
    )


def _task_id() -> int:
    return anyio.get_current_task().id


async def test_a_submission_is_decided_in_the_callers_task() -> None:
    tasks: list[int] = []
    async with connect(agent_id="agent-1") as hg:
        assert hg.engine is not None
        hg.engine.local.listen(lambda _: tasks.append(_task_id()))
        report = await hg.review(_action())
        caller = _task_id()
        registry = hg.engine.system.metrics.registry
        received = registry.get_sample_value("humangr_submissions_total", {"result": "received"})
    assert report.outcome is Outcome.APPROVED
    assert tasks == [caller]  # signed and recorded while the caller waited: no other task
    assert received == 1, "counted as received, as from the mailbox"


async def test_another_subscriber_still_sees_the_submission() -> None:
    tasks: list[int] = []
    seen: list[ActionSubmitted] = []
    async with connect(agent_id="agent-1") as hg:
        assert hg.engine is not None
        hg.engine.local.listen(lambda _: tasks.append(_task_id()))
        subjects = hg.engine.system.subjects
        async with hg.engine.bus.subscribe(subjects.agent_submits) as watcher:
            report = await hg.review(_action())
            with anyio.fail_after(5):
                async for msg in watcher:
                    seen.append(decode(msg.data, ActionSubmitted))
                    break
        caller = _task_id()
    assert report.outcome is Outcome.APPROVED
    assert [s.action_id for s in seen] == [report.action_id]
    assert len(tasks) == 1
    assert tasks != [caller], "published, so handled from the Supervisor's mailbox"


async def test_a_refused_submission_handed_over_is_refused_all_the_same() -> None:
    config = dataclasses.replace(ReviewConfig(), max_diff_bytes=200)
    async with connect(agent_id="agent-1", config=config) as hg:
        with pytest.raises(SubmissionRefused, match="diff"):
            await hg.review(_action("+x = 1\n" * 100), timeout=10)
        assert (await hg.review(_action())).outcome is Outcome.APPROVED  # and it goes on


async def test_a_large_submission_waits_in_the_large_lane() -> None:
    tasks: list[tuple[int, int]] = []

    def record(report: HumanLayerReport) -> None:
        tasks.append((len(report.action_hash), _task_id()))

    async with connect(agent_id="agent-1") as hg:
        assert hg.engine is not None
        hg.engine.local.listen(record)
        big = "".join(f"+line_{n} = {n}\n" for n in range(20_000))  # over 256 KiB
        report = await hg.review(_action(big), timeout=60)
        caller = _task_id()
    assert report.action_id
    assert [task for _, task in tasks] != [caller], "a large one is not handled in the caller"


class _Note(msgspec.Struct, frozen=True):
    text: str


class _Echo(Actor):
    name = "echo"

    def __init__(self, crash: anyio.Event | None = None) -> None:
        self.got: list[tuple[str, int]] = []
        self.crash = crash
        self.down = anyio.Event()

    def routes(self, ctx: ActorContext) -> list[Route[_Note]]:
        return [Route("t.in.*", _Note, self._on_note, queue="echo")]

    async def _on_note(self, note: _Note, msg: Msg) -> None:
        self.got.append((note.text, _task_id()))

    async def teardown(self, ctx: ActorContext) -> None:
        self.down.set()

    async def background(self, ctx: ActorContext) -> None:
        if self.crash is not None:
            await self.crash.wait()
            self.crash = None
            raise RuntimeError("a crash, to test the restart")


async def test_deliver_here_takes_only_what_a_serving_actor_routes() -> None:
    crash = anyio.Event()
    echo = _Echo(crash)
    policy = SupervisionPolicy(initial_backoff=30.0, max_backoff=30.0, drain_timeout=0.2)
    async with MemoryBus() as bus:
        system = ActorSystem(bus, policy=policy)
        system.add(echo)
        data = msgspec.json.encode(_Note("hi"))
        assert not await system.deliver_here("echo", "t.in.a", data, {}), "not serving yet"
        async with system.running():
            assert await system.deliver_here("echo", "t.in.a", data, {})
            assert echo.got == [("hi", _task_id())]
            assert not await system.deliver_here("echo", "t.other", data, {}), "not its route"
            assert not await system.deliver_here("nobody", "t.in.a", data, {})
            big = msgspec.json.encode(_Note("x" * 300_000))
            assert not await system.deliver_here("echo", "t.in.a", big, {}), "large: its lane"
            bad = b'{"text": 1}'
            assert await system.deliver_here("echo", "t.in.a", bad, {}), "taken, dead-lettered"
            assert len(echo.got) == 1
            crash.set()
            with anyio.fail_after(5):
                await echo.down.wait()
            assert not await system.deliver_here("echo", "t.in.a", data, {}), "restarting"
