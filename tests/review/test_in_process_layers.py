"""Layer tasks handed over in process: the engine's own layer actors get the Supervisor's tasks
as objects, no task or report crosses the bus, and whatever an in-process layer does wrong —
fails, lies about the action, never answers — the layer counts as missing: never approved."""

from __future__ import annotations

import sys
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import anyio
import msgspec
import pytest

sys.path.insert(0, str(Path(__file__).parent.parent / "e2e"))
from e2e_helpers import CLEAN, diff_action

from humangr.actors.review.layer import LayerActor
from humangr.actors.review.supervisor import SupervisorActor
from humangr.actors.roles import Engine, run_engine
from humangr.contracts import LayerID, LayerReport, LayerStatus, LayerTask, Outcome, Subjects
from humangr.engine.actor import SupervisionPolicy
from humangr.engine.bus import Bus, MemoryBus
from humangr.engine.config import ReviewConfig
from humangr.engine.llm import ScriptedLLM

pytestmark = pytest.mark.anyio


@asynccontextmanager
async def engine(bus: Bus, deadline_s: float = 1.0) -> AsyncIterator[Engine]:
    llm = ScriptedLLM.from_lines([{"match": {}, **CLEAN}])
    async with run_engine(
        bus=bus,
        llm=llm,
        config=ReviewConfig(layer_deadline_s=deadline_s),
        subjects=Subjects(prefix=f"here{uuid.uuid4().hex[:10]}"),
        policy=SupervisionPolicy(initial_backoff=0.01, drain_timeout=2.0),
    ) as running:
        yield running


def supervisor_of(running: Engine) -> SupervisorActor:
    return next(a for a in running.system.actors if isinstance(a, SupervisorActor))


def replace_layer(running: Engine, lid: LayerID, layer: object) -> None:
    """Put ``layer`` where the Supervisor hands ``lid``'s tasks (the ``LocalLayer`` seam)."""
    supervisor = supervisor_of(running)
    supervisor.local_layers = {**supervisor.local_layers, lid: layer}  # type: ignore[dict-item]


class Broken:
    """An in-process layer whose review fails outright."""

    ready = True

    async def review_task(self, task: LayerTask, digest: str | None = None) -> LayerReport | None:
        raise RuntimeError("the layer fell over")

    def cancel(self, action_id: str) -> None:
        pass


class Lying:
    """An in-process layer that answers with the genuine layer's report, bound to another
    action hash (as if it reviewed something else)."""

    def __init__(self, genuine: LayerActor) -> None:
        self.genuine = genuine
        self.ready = True

    async def review_task(self, task: LayerTask, digest: str | None = None) -> LayerReport | None:
        report = await self.genuine.review_task(task, digest)
        assert report is not None
        return msgspec.structs.replace(report, action_hash="0" * 64)

    def cancel(self, action_id: str) -> None:
        self.genuine.cancel(action_id)


class Silent:
    """An in-process layer that never answers (until it is cancelled)."""

    ready = True

    def __init__(self) -> None:
        self.cancelled: list[str] = []

    async def review_task(self, task: LayerTask, digest: str | None = None) -> LayerReport | None:
        await anyio.sleep_forever()
        raise AssertionError("unreachable")

    def cancel(self, action_id: str) -> None:
        self.cancelled.append(action_id)


async def test_the_engine_s_own_layers_review_with_no_task_or_report_on_the_bus(
    bus: Bus,
) -> None:
    seen: list[str] = []
    async with engine(bus) as running:
        s = running.subjects
        async with (
            bus.subscribe(s.layer_tasks) as tasks,
            bus.subscribe(s.layer_report) as reports,
            anyio.create_task_group() as tg,
        ):

            async def watch(sub: AsyncIterator[object], name: str) -> None:
                async for _ in sub:
                    seen.append(name)

            tg.start_soon(watch, tasks, "task")
            tg.start_soon(watch, reports, "report")
            decision = await running.submit(diff_action("01-clean-refactor.diff"), timeout=30)
            await anyio.sleep(0.2)
            tg.cancel_scope.cancel()
    assert decision.outcome is Outcome.APPROVED
    assert all(r.status is LayerStatus.PASS for r in decision.layer_results.values())
    assert seen == []


async def test_a_failing_in_process_layer_is_missing_never_clean() -> None:
    async with engine(MemoryBus(), deadline_s=0.5) as running:
        replace_layer(running, LayerID.HL2, Broken())
        decision = await running.submit(diff_action("01-clean-refactor.diff"), timeout=30)
    assert decision.outcome is Outcome.NEEDS_REVIEW
    assert decision.layer_results[LayerID.HL2].status is LayerStatus.ERROR
    assert any(reason.startswith("HL2") for reason in decision.blocking_reasons)


async def test_an_in_process_report_for_another_action_is_refused() -> None:
    async with engine(MemoryBus(), deadline_s=0.5) as running:
        genuine = next(
            a
            for a in running.system.actors
            if isinstance(a, LayerActor) and a.layer_id is LayerID.HL4
        )
        replace_layer(running, LayerID.HL4, Lying(genuine))
        decision = await running.submit(diff_action("01-clean-refactor.diff"), timeout=30)
    assert decision.outcome is Outcome.NEEDS_REVIEW
    assert decision.layer_results[LayerID.HL4].status is LayerStatus.ERROR


async def test_a_silent_in_process_layer_is_late_and_then_cancelled() -> None:
    silent = Silent()
    async with engine(MemoryBus(), deadline_s=0.3) as running:
        replace_layer(running, LayerID.HL5, silent)
        with anyio.fail_after(10):
            decision = await running.submit(diff_action("01-clean-refactor.diff"), timeout=30)
    assert decision.outcome is Outcome.NEEDS_REVIEW
    assert decision.layer_results[LayerID.HL5].status is LayerStatus.ERROR
    assert silent.cancelled == [decision.action_id]
