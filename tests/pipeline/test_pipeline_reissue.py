"""The Monitor issues a project's pending order again until the project moves on — on every
(re)start at once, also while the project waits for a human — and drives only its projects."""

from __future__ import annotations

import itertools
from pathlib import Path

import anyio
import pytest
from msgspec.structs import replace
from pipeline_helpers import reply, started
from pipeline_run import POLICY, subjects

from humangr.actors.pipeline.monitor import MonitorActor
from humangr.actors.pipeline.storage import ProjectStore
from humangr.contracts import (
    DeadLetter,
    Limits,
    PipelineStart,
    PipelineStatus,
    Subjects,
    WorkOrder,
    decode,
    encode,
)
from humangr.engine.actor import ActorSystem
from humangr.engine.bus import Bus, Subscription
from humangr.engine.pipeline import (
    STATUS_PATH,
    TASK_STATE_PATH,
    ProjectState,
    decode_state,
    render_status,
    render_task_state,
)

pytestmark = pytest.mark.anyio


def monitor(bus: Bus, subj: Subjects, root: Path, **options: object) -> ActorSystem:
    system = ActorSystem(bus, subjects=subj, policy=POLICY)
    settings: dict[str, object] = {
        "reissue_first": 0.2,
        "reissue_every": 1.0,
        "tick": 0.02,
        **options,
    }
    system.add(MonitorActor(root, **settings))  # type: ignore[arg-type]
    return system


async def orders_within(sub: Subscription, seconds: float) -> list[tuple[float, WorkOrder]]:
    found: list[tuple[float, WorkOrder]] = []
    with anyio.move_on_after(seconds):
        async for msg in sub:
            found.append((anyio.current_time(), decode(msg.data, WorkOrder)))
    return found


def persist(root: Path, project: ProjectState) -> None:
    ProjectStore(root, project.project_id).write(TASK_STATE_PATH, render_task_state(project))
    ProjectStore(root, project.project_id).write(STATUS_PATH, render_status(project))


async def test_a_pending_order_is_issued_again_at_growing_intervals_until_answered(
    bus: Bus, tmp_path: Path
) -> None:
    subj = subjects()
    start = PipelineStart(project_id="demo", spec_raw="A greeting service.", limits=Limits())
    async with (
        bus.subscribe(subj.work_order) as orders,
        monitor(bus, subj, tmp_path).running(),
    ):
        await bus.publish(subj.pipeline_start, encode(start))
        issued = await orders_within(orders, 1.7)
        first = issued[0][1]
        assert [order for _, order in issued] == [first] * len(issued), "the same order"
        assert len(issued) >= 4, issued
        gaps = [b - a for (a, _), (b, _) in itertools.pairwise(issued)]
        assert gaps[1] > gaps[0] * 1.5, f"the interval grows: {gaps}"
        saved = decode_state(ProjectStore(tmp_path, "demo").read(TASK_STATE_PATH))
        await bus.publish(subj.handoff("demo"), encode(reply(saved)))
        after = await orders_within(orders, 1.0)
    assert after, "the next order was issued"
    assert first not in [order for _, order in after], "the answered order is not issued again"
    assert {order.order_id for _, order in after} == {after[0][1].order_id}


@pytest.mark.parametrize("waiting", [False, True], ids=["running", "waiting for a human"])
async def test_a_restarted_monitor_issues_the_pending_order_at_once(
    bus: Bus, tmp_path: Path, waiting: bool
) -> None:
    subj = subjects()
    project = started().project
    if waiting:
        project = replace(project, waiting_human=True)
    persist(tmp_path, project)
    assert project.waiting_human is waiting
    async with bus.subscribe(subj.work_order) as orders:
        async with monitor(bus, subj, tmp_path, reissue_first=5.0).running():
            issued = await orders_within(orders, 0.5)
        assert [order for _, order in issued] == [project.pending]
        if waiting:
            async with (
                bus.subscribe(subj.pipeline_status("demo")) as statuses,
                monitor(bus, subj, tmp_path).running(),
            ):
                await statuses.__anext__()
                notice = reply(project, decision_outcome="needs_review", reason="HL2")
                await bus.publish(subj.handoff("demo"), encode(notice))
                with anyio.move_on_after(0.5):
                    changed = decode((await statuses.__anext__()).data, PipelineStatus)
                    raise AssertionError(f"a repeated notice changed the project: {changed}")
    saved = decode_state(ProjectStore(tmp_path, "demo").read(TASK_STATE_PATH))
    assert saved == project


async def test_a_monitor_for_some_projects_leaves_the_others_alone(
    bus: Bus, tmp_path: Path
) -> None:
    subj = subjects()
    mine = started().project
    assert mine.pending is not None
    other = replace(mine, project_id="other", pending=replace(mine.pending, project_id="other"))
    persist(tmp_path, mine)
    persist(tmp_path, other)
    start = PipelineStart(project_id="third", spec_raw="Another service.")
    async with (
        bus.subscribe(subj.work_order) as orders,
        bus.subscribe(subj.dlq) as letters,
        monitor(bus, subj, tmp_path, projects={"demo"}).running(),
    ):
        issued = await orders_within(orders, 0.5)
        await bus.publish(subj.pipeline_start, encode(start))
        with anyio.fail_after(5):
            letter = decode((await letters.__anext__()).data, DeadLetter)
    assert {order.project_id for _, order in issued} == {"demo"}
    assert "this Monitor drives only demo" in letter.error
    assert not (tmp_path / "third").exists()
