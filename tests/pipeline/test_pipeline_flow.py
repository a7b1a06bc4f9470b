"""The project flow as pure functions: stages, rounds, rework, blocking, stale hand-offs."""

from __future__ import annotations

import pytest
from msgspec.structs import replace
from pipeline_helpers import R, advance, approved, clock, rejected, reply, started, to_tasks

from humangr.contracts import AgentName, ArtifactRef, Limits, TaskStatus, WorkOrder
from humangr.engine.pipeline import Step, TransitionRefused, decode_state, encode_state, on_handoff

S = TaskStatus


def order_of(step: Step) -> WorkOrder:
    assert len(step.orders) == 1, step
    return step.orders[0]


def test_stages_run_in_order_with_one_cto_revision_round() -> None:
    step = started()
    seen = [(order_of(step).agent, order_of(step).mode)]
    assert order_of(step).inputs == {"spec_raw": "A greeting service."}
    for status in (R.OK, R.OK, R.REVISION, R.OK, R.OK):
        step = advance(step, reply(step.project, status, report="add a rate-limit section"))
        seen.append((order_of(step).agent, order_of(step).mode))
        if status is R.REVISION:
            assert order_of(step).inputs["cto_revision"] == "add a rate-limit section"
            assert step.project.round == 2
    assert seen == [
        (AgentName.CTO, "spec_intake_and_normalize"),
        (AgentName.ENGINEER, "generate_engineering_docs"),
        (AgentName.CTO, "validate_engineer_docs"),
        (AgentName.ENGINEER, "generate_engineering_docs"),
        (AgentName.CTO, "validate_engineer_docs"),
        (AgentName.PM, "generate_backlog"),
    ]


def test_revision_beyond_max_rounds_blocks_with_the_cto_as_owner() -> None:
    step = started(Limits(max_rounds=2))
    step = advance(step, reply(step.project))
    step = advance(step, reply(step.project))
    step = advance(step, reply(step.project, R.REVISION))
    step = advance(step, reply(step.project))
    step = advance(step, reply(step.project, R.REVISION, summary="still no error handling"))
    assert step.orders == ()
    assert step.project.state == "blocked"
    assert step.project.blocked_owner == "cto"
    assert "still REVISION after 2 round(s)" in step.project.reason
    assert step.project.pending is None


def test_the_backlog_becomes_tasks_and_the_first_goes_to_the_dev() -> None:
    step = to_tasks()
    project = step.project
    assert project.stage == "tasks"
    assert [t.task_id for t in project.tasks] == ["TSK-1", "TSK-2"]
    assert [t.status for t in project.tasks] == [S.IN_PROGRESS, S.NEW]
    order = order_of(step)
    assert (order.agent, order.mode, order.task_id) == (AgentName.DEV, "implement_task", "TSK-1")
    assert 'greet("Ada")' in order.inputs["task_spec"]
    assert project.next_owner == "dev"


def test_a_full_task_cycle_with_rejection_and_qa_fail_then_done() -> None:
    step = to_tasks()
    step = advance(step, approved(step.project, "apps/core/greet.py"))
    qa = order_of(step)
    assert (qa.agent, qa.mode, qa.inputs["code_refs"]) == (
        AgentName.QA,
        "validate_task",
        "apps/core/greet.py",
    )
    assert step.project.task("TSK-1").status is S.WAITING_REVIEW  # type: ignore[union-attr]
    step = advance(step, reply(step.project, R.QA_PASS))
    assert step.project.task("TSK-1").status is S.DONE  # type: ignore[union-attr]
    assert order_of(step).task_id == "TSK-2"

    step = advance(step, rejected(step.project))
    rework = order_of(step)
    assert rework.attempt == 2
    assert "Hard-coded AWS key (apps/core/config.py:3)" in rework.inputs["review_findings"]
    task2 = step.project.task("TSK-2")
    assert task2 is not None
    assert (task2.status, task2.rework, task2.attempt) == (S.IN_PROGRESS, 1, 2)

    step = advance(step, approved(step.project, "apps/core/config.py"))
    step = advance(step, reply(step.project, R.QA_FAIL, report="# QA\nmissing variable crashes"))
    rework = order_of(step)
    assert rework.inputs["qa_report"] == "# QA\nmissing variable crashes"
    assert rework.inputs["code_refs"] == "apps/core/config.py"
    step = advance(step, approved(step.project, "apps/core/config.py"))
    step = advance(step, reply(step.project, R.QA_PASS))
    assert step.orders == ()
    assert step.project.state == "done"
    assert step.project.stage == "done"
    assert [(t.status, t.rework) for t in step.project.tasks] == [(S.DONE, 0), (S.DONE, 2)]


@pytest.mark.parametrize("via", ["rejected", "qa_fail"])
def test_rework_limit_ends_blocked_with_escalation_never_done(via: str) -> None:
    step = to_tasks(Limits(max_rework=1))
    for _ in range(2):
        if via == "rejected":
            step = advance(step, rejected(step.project))
        else:
            step = advance(step, approved(step.project))
            step = advance(step, reply(step.project, R.QA_FAIL, report="fails"))
    project = step.project
    assert step.orders == ()
    assert project.state == "blocked"
    assert project.blocked_owner == "cto"
    task = project.task("TSK-1")
    assert task is not None
    assert task.status is S.BLOCKED
    assert task.rework == 1
    assert "rework limit reached" in task.reason
    assert all(t.status is not S.DONE for t in project.tasks)


def test_a_blocked_agent_blocks_the_project_and_names_the_owner() -> None:
    step = started()
    step = advance(step, reply(step.project, R.BLOCKED, reason="circuit breaker open"))
    assert step.project.state == "blocked"
    assert step.project.blocked_owner == "human"
    assert "circuit breaker open" in step.project.reason

    step = to_tasks()
    step = advance(step, reply(step.project, R.NEEDS_INFO, to=AgentName.PM, summary="which DB?"))
    assert step.project.blocked_owner == "pm"
    assert step.project.task("TSK-1").status is S.BLOCKED  # type: ignore[union-attr]


def test_qa_without_a_verdict_is_not_a_pass() -> None:
    step = to_tasks()
    step = advance(step, approved(step.project))
    step = advance(step, reply(step.project, R.OK, summary="approved, looks fine"))
    assert step.project.state == "blocked"
    assert step.project.task("TSK-1").status is S.BLOCKED  # type: ignore[union-attr]


def test_dev_ok_without_an_approved_review_is_refused() -> None:
    step = to_tasks()
    step = advance(step, reply(step.project, R.OK, code_refs=["apps/x.py"]))
    assert step.project.state == "blocked"
    assert "without an approved review" in step.project.reason


def test_needs_review_waits_for_a_human_and_keeps_the_order() -> None:
    step = to_tasks()
    pending = step.project.pending
    step = advance(step, reply(step.project, decision_outcome="needs_review", reason="HL2 error"))
    assert step.orders == ()
    assert step.project.waiting_human
    assert step.project.next_owner == "human"
    assert step.project.pending == pending
    again = advance(step, reply(step.project, decision_outcome="needs_review", reason="HL2 error"))
    assert not again.changed, "a needs_review hand-off sent again changes nothing"
    assert again.project == step.project
    step = advance(step, approved(step.project))
    assert order_of(step).agent is AgentName.QA
    assert not step.project.waiting_human


def test_stale_or_foreign_hand_offs_change_nothing() -> None:
    step = started()
    stale = reply(step.project)
    step = advance(step, stale)
    again = advance(step, stale)
    assert not again.changed
    assert again.project == step.project
    wrong = replace(reply(step.project), from_=AgentName.QA)
    assert not on_handoff(step.project, wrong, now=clock(99)).changed


def test_backlog_problems_block_with_the_pm_as_owner() -> None:
    step = started()
    for _ in range(3):
        step = advance(step, reply(step.project))
    step = advance(step, reply(step.project, artifacts=[ArtifactRef(path="docs/pm/a/BACKLOG.md")]))
    blocked = advance(step, reply(step.project), backlog="# Backlog\n\nnothing here\n")
    assert blocked.project.state == "blocked"
    assert blocked.project.blocked_owner == "pm"
    unreadable = advance(step, reply(step.project), backlog=None)
    assert unreadable.project.state == "blocked"


def test_a_refused_transition_raises_and_the_state_round_trips() -> None:
    step = to_tasks()
    broken = replace(step.project, tasks=[replace(t, status=S.DONE) for t in step.project.tasks])
    with pytest.raises(TransitionRefused):
        on_handoff(broken, approved(broken), now=clock(5))
    assert decode_state(encode_state(step.project)) == step.project
