"""Issue 24, item 4: floods and outages lose nothing and starve nothing.

A submitter learns whether its submission was received (core NATS and ``MemoryBus``: the
Supervisor's ``SubmitReceipt``), sends it again when it was lost, and fails loudly when nobody
received it; every submission ends decided or dead-lettered, and counted; large actions' checks
wait in a lane of their own, so a small action behind a flood is decided first."""

from __future__ import annotations

import functools
import threading
import uuid
from collections.abc import AsyncIterator
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import Any

import anyio
import pytest

from humangr.actors.review.supervisor import SupervisorActor
from humangr.actors.roles import current_policy_version
from humangr.contracts import (
    ActionContext,
    LayerID,
    Subjects,
    encode,
)
from humangr.engine.actor import ActorSystem, SupervisionPolicy
from humangr.engine.bus import Bus, Headers, Msg, Subscription
from humangr.engine.checks import SharedChecks, run_checks
from humangr.engine.config import ReviewConfig
from humangr.engine.decisions import DecisionWaiters
from humangr.engine.errors import BusTimeoutError, ReviewTimeout, SubmissionRefused
from humangr.engine.metrics import SUBMISSION_RESULTS, Metrics
from humangr.engine.submission import new_action_id, submission

pytestmark = pytest.mark.anyio


def _action(index: int, size: int = 0, agent: str = "agent-1") -> ActionContext:
    body = "".join(f"+value_{index}_{n} = compute({n})\n" for n in range(max(1, size // 24)))
    return ActionContext(
        agent_id=agent,
        action_type="code_diff",
        action_description=f"flood action {index}",
        code_diff=f"--- /dev/null\n+++ b/m{index}.py\n@@ -0,0 +1 @@\n{body}",
    )


class _Counting:
    """The Supervisor's local checks, counting how many run at once (they run in threads)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.running = 0
        self.most = 0

    def __call__(self, action: ActionContext) -> dict[LayerID, list[Any]]:
        with self.lock:
            self.running += 1
            self.most = max(self.most, self.running)
        try:
            return run_checks(action, local_only=True)
        finally:
            with self.lock:
                self.running -= 1


@asynccontextmanager
async def _supervisor(
    bus: Bus, checks: _Counting | None = None
) -> AsyncIterator[tuple[ActorSystem, SupervisorActor, Subjects]]:
    """A Supervisor alone (local checks only) on ``bus`` under a fresh prefix."""
    subjects = Subjects(prefix=f"f{uuid.uuid4().hex[:10]}")
    config = ReviewConfig()
    supervisor = SupervisorActor(
        config,
        policy=functools.partial(current_policy_version, config, llm_review=False),
        llm_review=False,
        checks=SharedChecks(run=checks, thread_threshold=0) if checks else None,
    )
    supervisor.large_message_bytes = 64 * 1024
    system = ActorSystem(
        bus, subjects=subjects, metrics=Metrics(), policy=SupervisionPolicy(drain_timeout=2)
    )
    system.add(supervisor)
    async with system.running():
        yield system, supervisor, subjects


@asynccontextmanager
async def _waiting(bus: Bus, subjects: Subjects) -> AsyncIterator[DecisionWaiters]:
    waiters = DecisionWaiters()
    async with anyio.create_task_group() as tg:
        await tg.start(functools.partial(waiters.run, bus, subjects))
        yield waiters
        tg.cancel_scope.cancel()


def _count(system: ActorSystem, result: str) -> float:
    value = system.metrics.registry.get_sample_value(
        "humangr_submissions_total", {"result": result}
    )
    assert value is not None, f"humangr_submissions_total{{result={result!r}}} is not exported"
    return value


async def test_a_submission_nobody_receives_fails_loudly_saying_it_was_not_stored(
    bus: Bus,
) -> None:
    subjects = Subjects(prefix=f"f{uuid.uuid4().hex[:10]}")
    async with _waiting(bus, subjects) as waiters:
        waiters.receipt_timeout = 0.2
        with anyio.fail_after(10), pytest.raises(ReviewTimeout) as caught:
            await waiters.submit(
                bus, subjects, submission(_action(1), "act-nobody", None), timeout=1.0
            )
    text = str(caught.value)
    assert "act-nobody" in text
    assert "not stored" in text
    assert "humangr serve" in text
    assert waiters.resends >= 1


class _LosingBus:
    """A bus that loses the first ``lose`` submissions on the way, as a server does to a
    Supervisor it cut off as a slow consumer: they never arrive, nobody answers."""

    def __init__(self, inner: Bus, subjects: Subjects, lose: int) -> None:
        self.inner = inner
        self.subjects = subjects
        self.lose = lose
        self.lost = 0

    async def publish(
        self, subject: str, data: bytes, *, headers: Headers | None = None, reply: str | None = None
    ) -> None:
        await self.inner.publish(subject, data, headers=headers, reply=reply)

    def subscribe(
        self, subject: str, *, queue: str | None = None, max_pending: int = 65_536
    ) -> AbstractAsyncContextManager[Subscription]:
        return self.inner.subscribe(subject, queue=queue, max_pending=max_pending)

    async def request(
        self, subject: str, data: bytes, *, headers: Headers | None = None, timeout: float = 5.0
    ) -> Msg:
        if self.subjects.is_submit(subject) and self.lost < self.lose:
            self.lost += 1
            await anyio.sleep(timeout)
            raise BusTimeoutError(subject, timeout)
        return await self.inner.request(subject, data, headers=headers, timeout=timeout)

    async def flush(self, timeout: float = 5.0) -> None:
        await self.inner.flush(timeout)

    async def close(self) -> None:
        await self.inner.close()


async def test_a_lost_submission_is_sent_again_and_decided_once(bus: Bus) -> None:
    async with _supervisor(bus) as (system, _, subjects):
        losing = _LosingBus(bus, subjects, lose=2)
        async with _waiting(bus, subjects) as waiters:
            waiters.receipt_timeout = 0.3
            with anyio.fail_after(30):
                report = await waiters.submit(
                    losing, subjects, submission(_action(2), "act-lost", None), timeout=20
                )
    assert report.action_id == "act-lost"
    assert losing.lost == 2
    assert waiters.resends == 2
    assert _count(system, "received") == 1
    assert _count(system, "decided") == 1


async def test_every_submission_of_a_flood_ends_decided_or_dead_lettered_and_counted(
    bus: Bus,
) -> None:
    outcomes: dict[str, str] = {}
    async with _supervisor(bus) as (system, _, subjects):
        for result in SUBMISSION_RESULTS:  # every series starts at zero
            assert _count(system, result) == 0
        async with _waiting(bus, subjects) as waiters:

            async def one(index: int) -> None:
                # every fifth names its layers, which the Supervisor refuses (a dead letter)
                layers = [LayerID.HL1] if index % 5 == 0 else None
                submitted = submission(_action(index, 40_000), f"act-{index}", layers)
                try:
                    await waiters.submit(bus, subjects, submitted, timeout=60)
                except SubmissionRefused:
                    outcomes[submitted.action_id] = "dead_lettered"
                else:
                    outcomes[submitted.action_id] = "decided"

            with anyio.fail_after(90):
                async with anyio.create_task_group() as tg:
                    for index in range(30):
                        tg.start_soon(one, index)
        assert len(outcomes) == 30
        assert list(outcomes.values()).count("dead_lettered") == 6
        assert _count(system, "received") == 30
        assert _count(system, "decided") == 24
        assert _count(system, "dead_lettered") == 6


async def test_a_small_action_behind_a_flood_of_large_ones_is_decided_first(bus: Bus) -> None:
    checks = _Counting()
    finished: list[str] = []
    async with (
        _supervisor(bus, checks) as (system, supervisor, subjects),
        _waiting(bus, subjects) as waiters,
    ):

        async def one(action_id: str, action: ActionContext) -> None:
            report = await waiters.submit(
                bus, subjects, submission(action, action_id, None), timeout=120
            )
            assert report.action_id == action_id
            finished.append(action_id)

        with anyio.fail_after(150):
            async with anyio.create_task_group() as tg:
                for index in range(12):
                    tg.start_soon(one, f"act-large-{index}", _action(index, 300_000))
                for _ in range(5_000):  # the small one goes out once the flood was received
                    if _count(system, "received") >= 12:
                        break
                    await anyio.sleep(0.02)
                tg.start_soon(one, "act-small", _action(99))
    assert len(finished) == 13
    assert checks.most <= supervisor.large_concurrency + 1  # + the small one, beside the lane
    assert finished.index("act-small") < 10, finished
    waiting = system.metrics.registry.get_sample_value(
        "humangr_large_messages_waiting", {"actor": "supervisor"}
    )
    assert waiting == 0


async def test_an_answer_that_is_no_receipt_counts_as_none(bus: Bus) -> None:
    """Whoever else answers a submission (the agent itself, a stray responder) does not make
    it received: only a ``SubmitReceipt`` does."""
    subjects = Subjects(prefix=f"f{uuid.uuid4().hex[:10]}")
    async with bus.subscribe(subjects.agent_submits) as sub, anyio.create_task_group() as tg:

        async def answer(sub: Subscription) -> None:
            async for msg in sub:
                if msg.reply:
                    await bus.publish(msg.reply, b'{"received": "yes"}')

        tg.start_soon(answer, sub)
        async with _waiting(bus, subjects) as waiters:
            waiters.receipt_timeout = 0.2
            with anyio.fail_after(10), pytest.raises(ReviewTimeout, match="not stored"):
                await waiters.submit(
                    bus, subjects, submission(_action(3), new_action_id(), None), timeout=1.0
                )
        tg.cancel_scope.cancel()


async def test_a_large_submission_sent_again_while_held_is_held_once(bus: Bus) -> None:
    """A submission sent again because its receipt was lost (the server cut the Supervisor
    off) must not be held twice: a flood of resends would multiply the memory it takes."""
    async with _supervisor(bus) as (system, _, subjects), _waiting(bus, subjects) as waiters:
        blocker = submission(_action(0, 700_000), "act-blocker", None)  # holds the lane
        first = submission(_action(1, 300_000), "act-held", None)
        data = encode(first)
        headers = {"Nats-Msg-Id": "submit:act-held"}
        subject = subjects.agent_submit("agent-1")
        waiting: list[float] = []
        with anyio.fail_after(90):
            async with anyio.create_task_group() as tg:
                for submitted in (blocker, first):
                    tg.start_soon(
                        functools.partial(waiters.submit, bus, subjects, submitted, timeout=80)
                    )
                    for _ in range(1000):
                        if _count(system, "received") >= (1 if submitted is blocker else 2):
                            break
                        await anyio.sleep(0.01)
                for _ in range(3):  # resends, while the first waits behind the blocker
                    await bus.request(subject, data, headers=headers, timeout=10)
                    value = system.metrics.registry.get_sample_value(
                        "humangr_large_messages_waiting", {"actor": "supervisor"}
                    )
                    waiting.append(value or 0.0)
    assert _count(system, "received") == 5
    assert _count(system, "decided") == 2
    assert _count(system, "duplicate") == 3
    assert max(waiting) <= 1, waiting  # the first alone waits: its copies were dropped


async def test_large_submissions_past_the_backlog_are_refused_not_held(bus: Bus) -> None:
    """A hostile flood of large submissions (no client window slows it) cannot make the
    Supervisor hold unbounded memory: past ``large_backlog_bytes`` it refuses them, each with
    a dead letter its agent reads, and every submission is accounted for."""
    async with (
        _supervisor(bus) as (system, supervisor, subjects),
        _waiting(bus, subjects) as waiters,
    ):
        supervisor.large_backlog_bytes = 1_000_000  # room for about three of 300 kB
        outcomes: list[str] = []

        async def one(index: int) -> None:
            submitted = submission(_action(index, 300_000), f"act-bl-{index}", None)
            try:
                await waiters.submit(bus, subjects, submitted, timeout=60)
            except SubmissionRefused as exc:
                outcomes.append("refused" if "send it again later" in exc.reason else exc.reason)
            else:
                outcomes.append("decided")

        with anyio.fail_after(90):
            async with anyio.create_task_group() as tg:
                for index in range(10):
                    tg.start_soon(one, index)
    assert len(outcomes) == 10
    assert set(outcomes) == {"refused", "decided"}, outcomes
    assert _count(system, "received") == 10
    assert _count(system, "decided") + _count(system, "dead_lettered") == 10
