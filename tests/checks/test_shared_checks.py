"""``SharedChecks``: one pass of the local checks per action, shared by the layer actors."""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest

from humangr.contracts import ActionContext, Finding, LayerID
from humangr.engine.checks import SharedChecks, run_checks
from humangr.engine.review import action_hash

pytestmark = pytest.mark.anyio

DIFF = Path(__file__).resolve().parents[2] / "examples/actions/02-hardcoded-key-and-shell.diff"


def action() -> ActionContext:
    return ActionContext(
        agent_id="a", action_type="code_diff", action_description="d", code_diff=DIFF.read_text()
    )


async def test_every_layer_gets_what_run_checks_gives_it() -> None:
    checks = SharedChecks()
    act = action()
    expected = run_checks(act)
    for layer in LayerID:
        assert await checks.findings(action_hash(act), act, layer) == expected[layer]


async def test_concurrent_layers_share_one_pass() -> None:
    calls: list[ActionContext] = []

    def counting(action: ActionContext) -> dict[LayerID, list[Finding]]:
        calls.append(action)
        return run_checks(action)

    checks = SharedChecks(run=counting, thread_threshold=0)  # the thread path
    act = action()
    results: dict[LayerID, int] = {}

    async def layer(lid: LayerID) -> None:
        results[lid] = len(await checks.findings(action_hash(act), act, lid))

    async with anyio.create_task_group() as tg:
        for lid in LayerID:
            tg.start_soon(layer, lid)
    assert len(calls) == 1
    assert results[LayerID.HL4] >= 3
    assert results[LayerID.HL1] == 0


async def test_the_cache_is_bounded() -> None:
    checks = SharedChecks(size=2)
    for index in range(4):
        act = ActionContext(agent_id="a", action_type="t", action_description=f"d{index}")
        await checks.findings(action_hash(act), act, LayerID.HL4)
    assert len(checks._done) == 2
