"""Issue 24 item 2: at most one distinct outcome per action HASH (and policy version), not per
action id. The same action submitted again under a new id is not reviewed again: it gets the
standing decision of its hash under its own id — so an agent cannot shop for an approval by
resubmitting a rejected (or needs_review) action until one LLM run says approved. A human's
resolution overrules the standing decision; a changed policy reviews anew."""

from __future__ import annotations

import uuid

import anyio
import pytest
from e2e_helpers import CLEAN, diff_action, engine_on
from test_durable_review import DEPLOYMENT_KEY, engine, needs_review_action, resolution

from humangr.actors.roles import Engine, current_policy_version, run_engine
from humangr.contracts import (
    ActionContext,
    HumanLayerReport,
    Outcome,
    ReviewListing,
    ReviewQuery,
    Subjects,
    ToolCall,
    VetoLevel,
    decode,
    encode,
)
from humangr.engine.bus import Bus
from humangr.engine.config import ReviewConfig
from humangr.engine.llm import ScriptedLLM
from humangr.engine.review import action_hash
from humangr.engine.signatures import verify_decision
from humangr.engine.state import MemoryStateStore
from humangr.engine.state.reviews import ReviewState
from humangr.engine.state.standing import standing_key

pytestmark = pytest.mark.anyio

CRITICAL = {
    "json": {
        "findings": [
            {"severity": "critical", "title": "Deletes the build tree", "file": "a.py", "line": 1}
        ]
    }
}


def standing_note(report: HumanLayerReport) -> str:
    notes = [n for n in report.policy_notes if n.startswith("standing decision of action")]
    assert notes, f"no standing-decision note in {report.policy_notes}"
    return notes[0]


async def final_of(running: Engine, action_id: str, timeout: float = 15.0) -> HumanLayerReport:
    """The final decision of ``action_id`` once a human (or the deadline) resolved it."""
    with anyio.fail_after(timeout):
        while True:
            report = await running.report(action_id)
            if report.resolved_by is not None:
                return report
            await anyio.sleep(0.05)


async def pending_ids(bus: Bus, running: Engine) -> set[str]:
    reply = await bus.request(running.subjects.review_query, encode(ReviewQuery()), timeout=5)
    return {r.action_id for r in decode(reply.data, ReviewListing).reviews}


async def test_a_rejected_action_resubmitted_under_a_new_id_is_rejected_without_an_llm_call(
    bus: Bus,
) -> None:
    """The attack: the first review rejects; the script then approves every run (as a noisy
    LLM might). Resubmitted under a new id, the action is rejected again at once — no layer
    runs — and its decision names the standing action; a fresh action is approved by the very
    same script (so a second review WOULD have approved: the hole is closed, not absent)."""
    llm = ScriptedLLM.from_lines([{"match": {}, **CLEAN}, {"match": {"layer": "HL4"}, **CRITICAL}])
    action = diff_action("01-clean-refactor.diff")
    async with engine_on(bus, llm=llm) as running:
        first = await running.submit(action, action_id="act-first", timeout=30)
        assert first.outcome is Outcome.REJECTED
        llm.add_lines([{"match": {"layer": "HL4"}, **CLEAN}])  # from now on every run approves
        calls = llm.calls
        again = await running.submit(action, action_id="act-again", timeout=30)
        assert llm.calls == calls, "no LLM call for an action whose decision stands"
        fresh = await running.submit(
            diff_action("01-clean-refactor.diff", agent="agent-2"), timeout=30
        )
    assert fresh.outcome is Outcome.APPROVED, "the script approves a fresh review now"
    assert again.outcome is Outcome.REJECTED
    assert (again.action_id, again.action_hash) == ("act-again", first.action_hash)
    assert again.report_id != first.report_id
    assert "act-first" in standing_note(again)
    assert again.blocking_reasons == first.blocking_reasons
    assert again.layer_results.keys() == first.layer_results.keys()
    assert again.decided_by == "standing decision"
    assert verify_decision(again, running.public_key) is None, "signed, bound to the new id"


async def test_one_action_submitted_many_times_at_once_draws_one_review(bus: Bus) -> None:
    """Three ids of one hash at once, and the script would reject one id and approve the
    others: the Supervisor reviews one, the others wait for it and get its outcome."""
    llm = ScriptedLLM.from_lines(
        [
            {"match": {}, **CLEAN, "delay_ms": 200},
            {"match": {"layer": "HL4", "action_id": "act-no"}, **CRITICAL, "delay_ms": 200},
        ]
    )
    action = diff_action("01-clean-refactor.diff")
    reports: dict[str, HumanLayerReport] = {}
    async with engine_on(bus, llm=llm) as running:

        async def submit(action_id: str) -> None:
            reports[action_id] = await running.submit(action, action_id=action_id, timeout=30)

        async with anyio.create_task_group() as tg:
            for action_id in ("act-no", "act-yes", "act-yes-too"):
                tg.start_soon(submit, action_id)
    (reviewed,) = {r.tags.get("action_id", "") for r in llm.requests}
    assert len({r.outcome for r in reports.values()}) == 1, "one outcome"
    for action_id, report in reports.items():
        if action_id != reviewed:
            assert reviewed in standing_note(report)


async def test_a_decision_standing_from_another_supervisor_wins_over_this_review(
    bus: Bus,
) -> None:
    """Two Supervisors review two ids of one hash; the other one decided first (rejected).
    This review approves, but what it publishes is the standing rejection, bound to its id."""
    store = MemoryStateStore()
    slow = ScriptedLLM.from_lines([{"match": {}, **CLEAN, "delay_ms": 1_000}])
    action = diff_action("01-clean-refactor.diff", agent=f"agent-{uuid.uuid4().hex[:6]}")
    digest = action_hash(action)
    other = DEPLOYMENT_KEY.sign(
        HumanLayerReport(
            report_id="rpt-other-supervisor",
            action_id="act-other",
            agent_id=action.agent_id,
            action_hash=digest,
            policy_version=current_policy_version(ReviewConfig()),
            outcome=Outcome.REJECTED,
            final_veto_level=VetoLevel.STRONG,
            blocking_reasons=["HL4 security: strong veto — the other review found it"],
        )
    )
    got: list[HumanLayerReport] = []
    async with engine(bus, store, llm=slow) as running, anyio.create_task_group() as tg:

        async def submit() -> None:
            got.append(await running.submit(action, action_id="act-mine", timeout=30))

        tg.start_soon(submit)
        with anyio.fail_after(10):
            while not slow.calls:  # noqa: ASYNC110 - under review now
                await anyio.sleep(0.02)
        state = ReviewState(store, owner="other", retention_s=3600, review_deadline_s=60)
        await state.open()
        assert await state.standing.claim(other) is other
    (mine,) = got
    assert mine.outcome is Outcome.REJECTED
    assert mine.action_id == "act-mine"
    assert mine.blocking_reasons == other.blocking_reasons
    assert "act-other" in standing_note(mine)
    assert verify_decision(mine, DEPLOYMENT_KEY.public_key) is None


@pytest.mark.nats
async def test_a_lost_standing_record_is_found_in_the_events_stream(nats_url: str) -> None:
    """JetStream: the by-hash record is deleted (a lost write). The same action under a new id
    is reviewed (the script would approve it now), but before signing the events stream is
    asked: the first decision stands, and the record is written back."""
    from humangr.engine.bus.jetstream import JetStreamConfig, stream_names
    from humangr.engine.bus.nats import NatsBus

    subjects = Subjects(prefix=f"st{uuid.uuid4().hex[:10]}")
    bus = await NatsBus.connect(
        nats_url, jetstream=JetStreamConfig(storage="memory"), subjects=subjects
    )
    store = MemoryStateStore()
    llm = ScriptedLLM.from_lines(
        [{"match": {}, **CLEAN}, {"match": {"layer": "HL4", "action_id": "act-1"}, **CRITICAL}]
    )
    action = diff_action("01-clean-refactor.diff")
    try:
        async with run_engine(bus=bus, subjects=subjects, state=store, llm=llm) as running:
            first = await running.submit(action, action_id="act-1", timeout=30)
            assert first.outcome is Outcome.REJECTED
            standing = await store.bucket("standing")
            key = standing_key(first.action_hash, first.policy_version)
            with anyio.fail_after(10):
                while await standing.get(key) is None:  # noqa: ASYNC110 - store state
                    await anyio.sleep(0.02)
            await standing.delete(key)  # lost
            calls = llm.calls
            second = await running.submit(action, action_id="act-2", timeout=30)
            assert llm.calls > calls, "reviewed again: the record was gone"
            restored = await standing.get(key)
    finally:
        js = bus.client.jetstream()
        for name in stream_names(subjects):
            await js.delete_stream(name)
        await bus.close()
    assert second.outcome is Outcome.REJECTED, "the first decision stands"
    assert "act-1" in standing_note(second)
    assert restored is not None, "written back"


@pytest.mark.parametrize(("verdict", "outcome"), [("approve", "approved"), ("reject", "rejected")])
async def test_a_humans_resolution_of_the_standing_action_decides_later_resubmissions(
    bus: Bus, verdict: str, outcome: str
) -> None:
    """needs_review stands while pending (the second id gets its own pending review); once a
    human resolves the first, a third submission gets the human's outcome."""
    action = needs_review_action(int(uuid.uuid4().int % 1_000))
    async with engine_on(bus) as running:
        first = await running.submit(action, action_id="act-1", timeout=30)
        assert first.outcome is Outcome.NEEDS_REVIEW
        second = await running.submit(action, action_id="act-2", timeout=30)
        assert second.outcome is Outcome.NEEDS_REVIEW
        assert "act-1" in standing_note(second)
        with anyio.fail_after(10):
            while await pending_ids(bus, running) != {"act-1", "act-2"}:  # noqa: ASYNC110
                await anyio.sleep(0.05)
        s = running.subjects
        await bus.publish(s.review_resolve("act-1"), encode(resolution(first, verdict)))
        final = await final_of(running, "act-1")
        assert final.outcome.value == outcome
        third = await running.submit(action, action_id="act-3", timeout=30)
        assert await pending_ids(bus, running) == {"act-2"}, "act-3 waits for no one"
    assert third.outcome.value == outcome
    note = standing_note(third)
    assert "act-1" in note
    assert "resolved by alice" in note
    assert third.resolved_by is None, "the human resolved act-1, not act-3"


async def test_a_review_that_timed_out_does_not_stand_as_a_rejection() -> None:
    """No one looked at a review that timed out: the same action again still needs a human
    (needs_review with its own pending review), it is neither rejected unseen nor re-run."""
    from humangr.engine.bus import MemoryBus

    store = MemoryStateStore()
    action = needs_review_action(7_001)
    async with MemoryBus() as bus, engine(bus, store, review_deadline_s=0.5) as running:
        first = await running.submit(action, action_id="act-t1", timeout=30)
        assert (await final_of(running, "act-t1")).resolved_by == "timeout"
        again = await running.submit(action, action_id="act-t2", timeout=30)
    assert first.outcome is again.outcome is Outcome.NEEDS_REVIEW
    assert "act-t1" in standing_note(again)


async def test_a_changed_policy_reviews_anew() -> None:
    """A human rejected the action under one policy; under another policy version (here: a
    changed repair budget) the same action is reviewed anew, not given that rejection."""
    from humangr.engine.bus import MemoryBus

    store = MemoryStateStore()
    action = needs_review_action(7_002)
    async with MemoryBus() as bus:
        async with engine(bus, store) as running:
            first = await running.submit(action, action_id="act-p1", timeout=30)
            await bus.publish(
                running.subjects.review_resolve("act-p1"), encode(resolution(first, "reject"))
            )
            assert (await final_of(running, "act-p1")).outcome is Outcome.REJECTED
            same = await running.submit(action, action_id="act-p2", timeout=30)
            assert same.outcome is Outcome.REJECTED, "same policy: the rejection stands"
        async with engine(bus, store, max_repairs=1) as running:
            changed = await running.submit(action, action_id="act-p3", timeout=30)
    assert changed.policy_version != first.policy_version
    assert changed.outcome is Outcome.NEEDS_REVIEW, "reviewed anew"
    assert not [n for n in changed.policy_notes if n.startswith("standing decision")]


async def test_a_needs_review_that_only_says_a_layer_did_not_answer_does_not_stand(
    bus: Bus,
) -> None:
    """HL3 missed its deadline on the first id (an outage): that needs_review judged nothing,
    so the same action again is reviewed again — and approved once every layer answers."""
    llm = ScriptedLLM.from_lines(
        [
            {"match": {}, **CLEAN},
            {"match": {"layer": "HL3", "action_id": "act-late"}, **CLEAN, "delay_ms": 30_000},
        ]
    )
    action = diff_action("01-clean-refactor.diff", agent=f"agent-{uuid.uuid4().hex[:6]}")
    async with engine_on(bus, llm=llm, layer_deadline_s=0.5) as running:
        late = await running.submit(action, action_id="act-late", timeout=10)
        again = await running.submit(action, action_id="act-answered", timeout=10)
    assert late.outcome is Outcome.NEEDS_REVIEW
    assert again.outcome is Outcome.APPROVED
    assert "act-answered" in {r.tags.get("action_id") for r in llm.requests}, "reviewed"
    assert not [n for n in again.policy_notes if n.startswith("standing decision")]


async def test_the_same_command_guarded_twice_is_approved_twice(bus: Bus) -> None:
    """A legitimate repeat: two decisions (two ids, two report ids), the same outcome."""
    action = ActionContext(
        agent_id="agent-1",
        action_type="tool_call",
        action_description="",
        tool_call=ToolCall(name="bash", arguments={"command": "git status"}),
    )
    async with engine_on(bus) as running:
        one = await running.submit(action, timeout=30)
        two = await running.submit(action, timeout=30)
    assert one.outcome is two.outcome is Outcome.APPROVED
    assert one.action_id != two.action_id
    assert one.report_id != two.report_id
    assert one.action_hash == two.action_hash
