"""The test kit as a user drives it: approved, rejected and needs_review → resolved flows, on
the in-memory bus and on a real nats-server."""

from __future__ import annotations

from collections.abc import AsyncIterator

import anyio
import pytest

from humangr.contracts import ActionContext, LayerID, LayerStatus, Outcome, VetoLevel
from humangr.testing import HumangrTestEngine, finding, humangr

pytestmark = pytest.mark.anyio

DIFF = """--- a/app/greet.py
+++ b/app/greet.py
@@ -1,2 +1,2 @@
 def greet(name: str) -> str:
-    return "Hello " + name
+    return f"Hello, {name}!"
"""


@pytest.fixture(params=["memory", "nats"])
async def kit(request: pytest.FixtureRequest) -> AsyncIterator[HumangrTestEngine]:
    url = None if request.param == "memory" else request.getfixturevalue("nats_url")
    async with humangr(nats_url=url) as engine:
        yield engine


async def test_an_action_every_layer_finds_clean_is_approved(kit: HumangrTestEngine) -> None:
    decision = await kit.submit(code_diff=DIFF, action_description="tidy the greeting")

    assert decision.outcome is Outcome.APPROVED
    assert decision.agent_id == "test-agent"
    assert set(decision.layer_results) == set(LayerID)
    strong = {LayerID.HL4, LayerID.HL6, LayerID.HL7}
    for lid, result in decision.layer_results.items():
        assert not result.local_only
        assert result.valid_runs == (3 if lid in strong else 2), "adaptive below strong power"
    assert kit.llm is not None
    assert kit.llm.calls == 17
    assert decision.cost.calls_planned == 21
    assert decision.cost.saved_by_adaptive == 4


async def test_a_critical_security_finding_rejects(kit: HumangrTestEngine) -> None:
    kit.script(
        layer="HL4",
        reply=finding("critical", "Hard-coded key", file="app/greet.py", line=2),
    )

    decision = await kit.submit(code_diff=DIFF, action_description="tidy the greeting")

    assert decision.outcome is Outcome.REJECTED
    assert decision.final_veto_level is VetoLevel.STRONG
    assert decision.blocking_reasons == [
        "HL4 security: strong veto — Hard-coded key (app/greet.py:2)"
    ]
    assert decision.layer_results[LayerID.HL7].status is LayerStatus.SKIP


async def test_needs_review_then_a_human_approves(kit: HumangrTestEngine) -> None:
    kit.needs_review("HL2", "Missing error handling")
    action = ActionContext(
        agent_id="my-agent",
        action_type="code_diff",
        action_description="tidy the greeting",
        code_diff=DIFF,
    )

    decision = await kit.submit(action)
    assert decision.outcome is Outcome.NEEDS_REVIEW
    assert decision.final_veto_level is VetoLevel.MEDIUM
    review = await kit.pending_review(decision.action_id)
    assert review.action_hash == decision.action_hash

    final = await kit.resolve(decision.action_id, "approve", "alice", "Errors are handled upstream")

    assert final.outcome is Outcome.APPROVED
    assert (final.resolved_by, final.resolution_reason) == ("alice", "Errors are handled upstream")
    assert final.report_id == decision.report_id
    assert final.action_hash == decision.action_hash
    assert await kit.report(decision.action_id) == final
    assert kit.decision(decision.action_id) == final


async def test_needs_review_then_a_human_rejects(kit: HumangrTestEngine) -> None:
    kit.needs_review("HL5", "Quadratic loop")

    decision = await kit.submit(action_description="sort the users")
    final = await kit.resolve(decision, "reject", "bob", "Please use a dict lookup instead")

    assert decision.outcome is Outcome.NEEDS_REVIEW
    assert final.outcome is Outcome.REJECTED
    assert final.resolved_by == "bob"


async def test_the_flows_in_one_decision_stream(kit: HumangrTestEngine) -> None:
    seen: list[tuple[str, Outcome, str | None]] = []

    async def watch() -> None:
        async for decision in kit.decisions():
            seen.append((decision.action_id, decision.outcome, decision.resolved_by))
            if len(seen) == 4:
                return

    with anyio.fail_after(10):
        async with anyio.create_task_group() as tg:
            tg.start_soon(watch)
            approved = await kit.submit(action_description="one")
            kit.reject(title="Shell injection")
            rejected = await kit.submit(action_description="two")
            kit.approve_all()
            kit.needs_review()
            review = await kit.submit(action_description="three")
            await kit.resolve(review.action_id, "approve", "carol", "Checked by hand, it is fine")

    assert seen == [
        (approved.action_id, Outcome.APPROVED, None),
        (rejected.action_id, Outcome.REJECTED, None),
        (review.action_id, Outcome.NEEDS_REVIEW, None),
        (review.action_id, Outcome.APPROVED, "carol"),
    ]
