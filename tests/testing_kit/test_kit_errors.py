"""The kit fails loudly and clearly: unknown actions, double resolutions, refused messages."""

from __future__ import annotations

from collections.abc import AsyncIterator

import anyio
import msgspec
import pytest

from humangr.contracts import ActionContext, HumanLayerReport, Outcome, encode
from humangr.engine.errors import ContractError, SignatureError
from humangr.engine.letters import dead_letter
from humangr.engine.signing import SigningKey
from humangr.testing import HumangrTestEngine, KitError, KitTimeout, humangr

pytestmark = pytest.mark.anyio


@pytest.fixture
async def kit() -> AsyncIterator[HumangrTestEngine]:
    async with humangr(review_deadline_s=0.3) as engine:
        yield engine


async def test_resolving_an_unknown_action_names_what_is_waiting(kit: HumangrTestEngine) -> None:
    kit.needs_review()
    waiting = await kit.submit(action_description="needs a human")

    with pytest.raises(
        KitError,
        match=r"no decision on action 'act-wrong'.*waiting for a human: " + waiting.action_id,
    ):
        await kit.resolve("act-wrong", "approve", "alice", "Looks right to me, ship it")


async def test_resolving_an_approved_action_is_refused(kit: HumangrTestEngine) -> None:
    decision = await kit.submit(action_description="harmless")
    assert decision.outcome is Outcome.APPROVED

    with pytest.raises(KitError, match=r"does not wait for a human: it was decided \(approved\)"):
        await kit.resolve(decision, "reject", "alice", "I would rather not, thanks")


async def test_resolving_twice_is_refused(kit: HumangrTestEngine) -> None:
    kit.needs_review()
    decision = await kit.submit(action_description="needs a human")
    await kit.resolve(decision, "approve", "alice", "Fine by me after a close read")

    with pytest.raises(KitError, match="resolved by alice"):
        await kit.resolve(decision, "reject", "bob", "Changed my mind about this one")


async def test_an_unanswered_review_is_rejected_at_the_deadline(kit: HumangrTestEngine) -> None:
    kit.needs_review("HL3")

    final = await kit.submit(action_description="needs a human", final=True)

    assert final.outcome is Outcome.REJECTED
    assert final.resolved_by == "timeout"
    assert "review timed out" in final.blocking_reasons[-1]
    with pytest.raises(KitError, match="resolved by timeout"):
        await kit.resolve(final, "approve", "alice", "Too late, but approve anyway")


async def test_bad_verdicts_and_short_reasons_are_caught_before_publishing(
    kit: HumangrTestEngine,
) -> None:
    kit.needs_review()
    decision = await kit.submit(action_description="needs a human")

    with pytest.raises(ValueError, match="'approve' or 'reject'"):
        await kit.resolve(decision, "maybe", "alice")  # type: ignore[arg-type]
    with pytest.raises(ContractError, match="reason"):
        await kit.resolve(decision, "approve", "alice", "ok")
    assert kit.dead_letters == []
    assert (await kit.resolve(decision, "approve")).resolved_by == "test-reviewer"


async def test_a_submission_the_engine_refuses_raises_its_reason() -> None:
    async with humangr(max_diff_bytes=10) as kit:
        with pytest.raises(KitError, match="is 101 bytes; the limit is 10: split"):
            await kit.submit(code_diff="+" + "x" * 100)
        assert len(kit.dead_letters) == 1


async def test_invalid_actions_are_refused_before_publishing(kit: HumangrTestEngine) -> None:
    with pytest.raises(ContractError, match="agent_id"):
        await kit.submit(agent_id="not a subject token")
    with pytest.raises(TypeError, match="not both"):
        await kit.submit(
            ActionContext(agent_id="a", action_type="t", action_description="d"), agent_id="b"
        )
    assert kit.dead_letters == []


async def test_a_decision_that_never_comes_times_out(kit: HumangrTestEngine) -> None:
    kit.script("HL4", [], delay_ms=5_000)

    with pytest.raises(KitTimeout, match=r"no decision on act-\S+ within 0\.2s"):
        await kit.submit(action_description="slow", timeout=0.2)


async def test_malformed_messages_on_recorded_subjects_are_kept(kit: HumangrTestEngine) -> None:
    await kit.bus.publish(kit.subjects.decision("forger"), b'{"outcome": "approved"}')
    await kit.bus.publish(kit.subjects.dlq, encode(dead_letter("x.y", "refused", b"raw")))
    decision = await kit.submit(action_description="after the noise")

    assert decision.outcome is Outcome.APPROVED
    assert [m.subject for m in kit.malformed] == [kit.subjects.decision("forger")]
    assert [d.error for d in kit.dead_letters] == ["refused"]


async def test_a_final_decision_signed_by_another_key_ends_the_wait_with_an_error() -> None:
    """The kit waits through the one submit-and-wait path: a forged "approved" resolution,
    signed by a key that is not the engine's, is refused instead of returned."""
    mallory = SigningKey.generate()
    async with humangr(review_deadline_s=30) as kit:
        kit.needs_review()
        outcome: list[BaseException | HumanLayerReport] = []

        async def wait_for_the_human() -> None:
            try:
                outcome.append(await kit.submit(action_id="act-forged", final=True, timeout=20))
            except Exception as exc:
                outcome.append(exc)

        async with anyio.create_task_group() as tg:
            tg.start_soon(wait_for_the_human)
            async for first in kit.decisions():
                if first.action_id == "act-forged":
                    break
            request = await kit.pending_review("act-forged")
            assert first.outcome is Outcome.NEEDS_REVIEW
            forged = mallory.sign(
                msgspec.structs.replace(
                    first,
                    outcome=Outcome.APPROVED,
                    resolved_by="mallory",
                    signer=None,
                    signature=None,
                )
            )
            assert forged.action_hash == request.action_hash
            await kit.bus.publish(kit.subjects.decision(forged.agent_id), encode(forged))
        assert len(outcome) == 1, outcome
        assert isinstance(outcome[0], SignatureError), outcome
