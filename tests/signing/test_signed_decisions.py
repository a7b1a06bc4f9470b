"""Every decision the Supervisor publishes is signed — the first one, a human's final one and a
timeout's — and the embedded engine's clients refuse what its key did not sign."""

from __future__ import annotations

import sys
from pathlib import Path

import anyio
import pytest

sys.path.insert(0, str(Path(__file__).parent.parent / "e2e"))
from test_durable_review import decisions_on, engine, needs_review_action, resolution

from humangr.actors.roles import run_engine
from humangr.contracts import (
    ActionContext,
    ActionSubmitted,
    HumanLayerReport,
    Outcome,
    Subjects,
    VetoLevel,
    decode,
    encode,
)
from humangr.engine.bus import Bus
from humangr.engine.errors import SignatureError
from humangr.engine.review import action_hash
from humangr.engine.signing import SigningKey, verify_decision
from humangr.engine.state import MemoryStateStore
from humangr.engine.submission import submit_and_wait

pytestmark = pytest.mark.anyio

CLEAN_DIFF = "--- a/app/x.py\n+++ b/app/x.py\n@@ -1 +1 @@\n-def f(): pass\n+def g(): pass\n"


async def test_first_and_final_decisions_are_signed_by_the_engine_key(bus: Bus) -> None:
    async with engine(bus, MemoryStateStore()) as running, decisions_on(bus) as seen:
        first = await running.submit(needs_review_action(), timeout=30)
        assert first.outcome is Outcome.NEEDS_REVIEW
        verify_decision(first, running.public_key)
        subject = Subjects("dur").review_resolve(first.action_id)
        await bus.publish(subject, encode(resolution(first, "reject")))
        published = await seen.wait(2)
    final = published[-1]
    assert final.resolved_by == "alice"
    assert final.outcome is Outcome.REJECTED
    verify_decision(final, running.public_key)
    assert final.signature != first.signature
    stored = published[0]
    assert stored == first, "what is published is what the submitter got"


async def test_a_review_timeout_rejection_is_signed(bus: Bus) -> None:
    async with (
        engine(bus, MemoryStateStore(), review_deadline_s=0.5) as running,
        decisions_on(bus) as seen,
    ):
        first = await running.submit(needs_review_action(1), timeout=30)
        published = await seen.wait(2)
    final = published[-1]
    assert final.outcome is Outcome.REJECTED
    assert final.action_id == first.action_id
    verify_decision(final, running.public_key)


async def test_a_given_key_signs_and_its_public_key_is_the_engine_s(bus: Bus) -> None:
    key = SigningKey.generate()
    async with run_engine(bus=bus, subjects=Subjects("sig"), signing_key=key) as running:
        action = ActionContext(
            agent_id="agent-1",
            action_type="code_diff",
            action_description="rename a helper",
            code_diff=CLEAN_DIFF,
        )
        report = await submit_and_wait(
            bus, Subjects("sig"), action, timeout=30, trusted_keys=[key.public_key]
        )
    assert running.public_key == key.public_key
    assert report.outcome is Outcome.APPROVED
    verify_decision(report, key.public_key)


def forgery(submitted: ActionSubmitted, how: str) -> HumanLayerReport:
    """An approval of ``submitted``: signed by another key, unsigned, or with a signature
    lifted from a genuine decision of the engine."""
    forged = HumanLayerReport(
        report_id="rpt-forged",
        action_id=submitted.action_id,
        agent_id=submitted.action.agent_id,
        action_hash=action_hash(submitted.action),
        policy_version="p-forged",
        outcome=Outcome.APPROVED,
        final_veto_level=VetoLevel.NONE,
    )
    if how == "other key":
        return SigningKey.generate().sign(forged)
    return forged


@pytest.mark.parametrize("how", ["other key", "unsigned"])
async def test_a_forged_decision_ahead_of_the_genuine_one_is_refused(bus: Bus, how: str) -> None:
    """A forger who can publish on the decisions subject answers first with an approval; the
    client that trusts the engine's key refuses it instead of acting on it."""
    action = needs_review_action(2)
    subjects = Subjects("forge")
    result: list[object] = []
    async with (
        run_engine(bus=bus, subjects=subjects) as running,
        bus.subscribe(subjects.agent_submits) as submissions,
    ):

        async def submit() -> None:
            try:
                result.append(
                    await submit_and_wait(
                        bus, subjects, action, timeout=30, trusted_keys=[running.public_key]
                    )
                )
            except SignatureError as exc:
                result.append(exc)

        async with anyio.create_task_group() as tg:
            tg.start_soon(submit)
            async for msg in submissions:
                forged = forgery(decode(msg.data, ActionSubmitted), how)
                await bus.publish(subjects.decision(action.agent_id), encode(forged))
                break
    assert len(result) == 1
    assert isinstance(result[0], SignatureError), result[0]
