"""A human's way out of ``blocked`` (``PipelineCommand``), as pure functions."""

from __future__ import annotations

import json
from typing import Any

import pytest
from msgspec.structs import replace
from pipeline_helpers import R, advance, approved, clock, rejected, reply, started, to_tasks

from humangr.contracts import (
    AgentName,
    ArtifactRef,
    Limits,
    PipelineCommand,
    Subjects,
    TaskStatus,
    WorkOrder,
    decode,
    encode,
)
from humangr.engine.errors import ContractError
from humangr.engine.pipeline import (
    CommandRefused,
    Step,
    apply_command,
    decode_state,
    encode_state,
    next_step,
    on_handoff,
    pipeline_status,
    render_status,
)

S = TaskStatus
WHY = "The QA report is precise; one more attempt is worth it."


def command(kind: str = "unblock", task: str | None = None, **fields: Any) -> PipelineCommand:
    return PipelineCommand(
        project_id="demo",
        command=kind,  # type: ignore[arg-type]
        task_id=task,
        reviewer="alice",
        reason=WHY,
        issued_at=clock(0),
        **fields,
    )


def run(step: Step, cmd: PipelineCommand) -> Step:
    return apply_command(step.project, cmd, now=clock(1_000 + step.project.orders))


def order_of(step: Step) -> WorkOrder:
    assert len(step.orders) == 1, step
    return step.orders[0]


def blocked_on_rework(via: str, limits: Limits | None = None) -> Step:
    step = to_tasks(limits or Limits(max_rework=1))
    for _ in range(2):
        if via == "rejected":
            step = advance(step, rejected(step.project))
        else:
            step = advance(step, approved(step.project))
            step = advance(step, reply(step.project, R.QA_FAIL, report="fails on empty names"))
    assert step.project.state == "blocked", step.project.reason
    return step


def blocked_on_revision() -> Step:
    step = started(Limits(max_rounds=2))
    for status in (R.OK, R.OK, R.REVISION, R.OK):
        step = advance(step, reply(step.project, status))
    step = advance(step, reply(step.project, R.REVISION, report="still no error handling"))
    assert step.project.state == "blocked"
    return step


@pytest.mark.parametrize(
    ("via", "key"), [("rejected", "review_findings"), ("qa_fail", "qa_report")]
)
def test_unblock_after_the_rework_limit_reworks_with_one_more_and_the_human_words(
    via: str, key: str
) -> None:
    step = blocked_on_rework(via)
    step = run(step, command(task="TSK-1", answers="Empty names greet 'Hello, friend!'."))
    project = step.project
    assert (project.state, project.stage, project.reason, project.resume) == (
        "running",
        "tasks",
        "",
        None,
    )
    task = project.task("TSK-1")
    assert task is not None
    assert (task.status, task.owner, task.rework, task.attempt) == (S.IN_PROGRESS, "dev", 2, 3)
    order = order_of(step)
    assert (order.agent, order.mode, order.task_id, order.attempt) == (
        AgentName.DEV,
        "implement_task",
        "TSK-1",
        3,
    )
    assert order.inputs["human_reason"] == f"alice: {WHY}"
    assert order.inputs["human_answers"] == "Empty names greet 'Hello, friend!'."
    assert key in order.inputs
    assert "task_spec" in order.inputs
    assert "inputs.human_reason" in order.task
    assert "inputs.human_answers" in order.task
    assert project.rework_grants == {"TSK-1": 1}
    assert project.max_rework("TSK-1") == 2
    record = project.commands[-1]
    assert (record.command, record.task_id, record.reviewer, record.reason, record.extra) == (
        "unblock",
        "TSK-1",
        "alice",
        WHY,
        1,
    )
    status = render_status(project)
    assert "## Human commands" in status
    assert f"**unblock** TSK-1 +1 by alice: {WHY}" in status
    assert "+1 rework(s) for TSK-1" in status

    again = blocked_on_rework_after(step, via)
    assert again.project.state == "blocked", "the grant is one rework, not unlimited"
    assert "rework limit reached (2 of max_rework 2)" in again.project.reason


def blocked_on_rework_after(step: Step, via: str) -> Step:
    if via == "rejected":
        return advance(step, rejected(step.project))
    step = advance(step, approved(step.project))
    return advance(step, reply(step.project, R.QA_FAIL, report="still fails"))


def test_an_unblocked_task_that_passes_qa_is_done_and_the_next_task_starts() -> None:
    step = run(blocked_on_rework("qa_fail"), command(task="TSK-1", extra=2))
    step = advance(step, approved(step.project))
    step = advance(step, reply(step.project, R.QA_FAIL, report="one more"))
    assert step.project.state == "running", "extra=2 grants two more reworks"
    step = advance(step, approved(step.project))
    step = advance(step, reply(step.project, R.QA_PASS))
    assert step.project.task("TSK-1").status is S.DONE  # type: ignore[union-attr]
    assert order_of(step).task_id == "TSK-2"


def test_stage_level_unblock_grants_rounds_and_reorders_the_revision() -> None:
    step = run(blocked_on_revision(), command(answers="Use typed errors."))
    project = step.project
    order = order_of(step)
    assert (order.agent, order.mode, order.task_id) == (
        AgentName.ENGINEER,
        "generate_engineering_docs",
        None,
    )
    assert order.inputs["cto_revision"] == "still no error handling"
    assert order.inputs["human_answers"] == "Use typed errors."
    assert (project.state, project.stage, project.round) == ("running", "engineer_docs", 3)
    assert project.round_grants == {"engineer_docs": 1}
    assert "**Round:** 3 of max 3" in render_status(project)

    step = advance(step, reply(step.project))
    assert order_of(step).mode == "validate_engineer_docs"
    blocked = advance(step, reply(step.project, R.REVISION, report="no"))
    assert blocked.project.state == "blocked"
    assert "still REVISION after 3 round(s) (max_rounds 3)" in blocked.project.reason
    step = advance(step, reply(step.project))
    assert order_of(step).agent is AgentName.PM
    assert step.project.round == 1


def test_needs_info_at_spec_intake_is_answered_and_the_same_step_ordered_again() -> None:
    step = started()
    step = advance(step, reply(step.project, R.NEEDS_INFO, summary="Which units?"))
    assert step.project.state == "blocked"
    step = run(step, command(answers="Celsius and Fahrenheit only."))
    order = order_of(step)
    assert (order.agent, order.mode) == (AgentName.CTO, "spec_intake_and_normalize")
    assert order.inputs == {
        "spec_raw": "A greeting service.",
        "human_reason": f"alice: {WHY}",
        "human_answers": "Celsius and Fahrenheit only.",
    }
    assert step.project.round_grants == {"spec_intake": 1}
    step = advance(step, reply(step.project))
    assert order_of(step).agent is AgentName.ENGINEER


def test_a_malformed_backlog_goes_back_to_the_pm_with_the_parse_error() -> None:
    step = started()
    for _ in range(3):
        step = advance(step, reply(step.project))
    step = advance(step, reply(step.project, artifacts=[ArtifactRef(path="docs/pm/a/BACKLOG.md")]))
    step = advance(step, reply(step.project), backlog="# Backlog\n\nnothing here\n")
    assert step.project.blocked_owner == "pm"
    problem = step.project.reason.removeprefix("backlog: ")
    step = run(step, command(extra=2))
    order = order_of(step)
    assert (order.agent, order.mode, step.project.stage) == (
        AgentName.PM,
        "generate_backlog",
        "backlog",
    )
    assert problem
    assert order.inputs["backlog_error"] == problem
    assert step.project.round_grants == {"backlog": 2}
    step = advance(step, reply(step.project, artifacts=[ArtifactRef(path="docs/pm/a/BACKLOG.md")]))
    step = advance(step, reply(step.project))
    assert order_of(step).task_id == "TSK-1"


def test_a_blocked_dev_or_qa_step_is_ordered_again_for_the_same_task() -> None:
    step = to_tasks()
    step = advance(step, reply(step.project, R.NEEDS_INFO, to=AgentName.PM, summary="which DB?"))
    step = run(step, command(task="TSK-1", answers="SQLite."))
    order = order_of(step)
    assert (order.agent, order.task_id, order.attempt) == (AgentName.DEV, "TSK-1", 2)
    task = step.project.task("TSK-1")
    assert (task.status, task.rework, task.attempt) == (S.IN_PROGRESS, 0, 2)  # type: ignore[union-attr]

    step = advance(step, approved(step.project))
    step = advance(step, reply(step.project, R.OK, summary="looks fine"))  # no QA verdict
    assert step.project.state == "blocked"
    step = run(step, command(task="TSK-1"))
    order = order_of(step)
    assert (order.agent, order.mode) == (AgentName.QA, "validate_task")
    assert order.inputs["code_refs"] == "apps/core/greet.py"
    assert step.project.task("TSK-1").status is S.WAITING_REVIEW  # type: ignore[union-attr]
    step = advance(step, reply(step.project, R.QA_PASS))
    assert step.project.task("TSK-1").status is S.DONE  # type: ignore[union-attr]


def test_cancelling_a_blocked_task_runs_the_next_and_the_project_ends_done_listing_it() -> None:
    step = run(blocked_on_rework("rejected"), command("cancel", task="TSK-1"))
    task = step.project.task("TSK-1")
    assert task is not None
    assert (task.status, task.reason) == (S.CANCELLED, f"cancelled by alice: {WHY}")
    assert order_of(step).task_id == "TSK-2"
    assert step.project.state == "running"
    step = advance(step, approved(step.project))
    step = advance(step, reply(step.project, R.QA_PASS))
    project = step.project
    assert (project.state, project.stage) == ("done", "done")
    assert project.message == "project done: 1 task(s) done, 1 cancelled (TSK-1)"
    assert "cancelled, not delivered: TSK-1" in next_step(project)
    status = render_status(project)
    assert f"**Cancelled tasks (not delivered):** TSK-1 — cancelled by alice: {WHY}" in status
    assert pipeline_status(project).state == "done"


def test_a_project_whose_every_task_is_cancelled_ends_cancelled_not_done() -> None:
    step = run(blocked_on_rework("rejected"), command("cancel", task="TSK-1"))
    step = advance(step, reply(step.project, R.BLOCKED, reason="cannot build"))
    step = run(step, command("cancel", task="TSK-2"))
    assert step.orders == ()
    assert step.project.state == "cancelled"
    assert step.project.reason == "every task was cancelled: nothing was delivered"
    assert [t.status for t in step.project.tasks] == [S.CANCELLED, S.CANCELLED]


def test_cancel_without_a_task_cancels_the_whole_project() -> None:
    step = run(blocked_on_rework("qa_fail"), command("cancel"))
    project = step.project
    assert step.orders == ()
    assert (project.state, project.pending, project.resume) == ("cancelled", None, None)
    assert [t.status for t in project.tasks] == [S.CANCELLED, S.NEW]
    assert pipeline_status(project).state == "cancelled"
    status = render_status(project)
    assert "**State:** cancelled" in status
    assert f"**Cancelled:** cancelled by alice: {WHY}" in status
    assert "**Never started:** TSK-2" in status
    assert "**cancel** (project) by alice" in status
    late = on_handoff(project, reply(to_tasks(Limits(max_rework=1)).project), now=clock(9_999))
    assert not late.changed

    stage = run(blocked_on_revision(), command("cancel"))
    assert (stage.project.state, stage.project.tasks) == ("cancelled", [])


def test_a_running_project_is_cancelled_at_any_stage_and_its_order_dropped() -> None:
    for step in (started(), to_tasks()):
        cancelled = run(step, command("cancel"))
        project = cancelled.project
        assert cancelled.orders == ()
        assert (project.state, project.pending, project.waiting_human) == ("cancelled", None, False)
        assert project.commands[-1].outcome == "project cancelled"
        late = on_handoff(project, reply(step.project), now=clock(9_999))
        assert not late.changed, "the answer to the dropped order changes nothing"
    assert [t.status for t in run(to_tasks(), command("cancel")).project.tasks] == [
        S.CANCELLED,
        S.NEW,
    ]


def test_a_project_waiting_for_a_human_is_cancelled() -> None:
    step = to_tasks()
    step = advance(step, reply(step.project, decision_outcome="needs_review", reason="HL2"))
    assert step.project.waiting_human
    project = run(step, command("cancel")).project
    assert (project.state, project.pending, project.waiting_human) == ("cancelled", None, False)
    assert project.next_owner == "human"


def test_the_task_in_progress_is_cancelled_and_the_next_one_starts() -> None:
    step = to_tasks()
    waiting = advance(step, reply(step.project, decision_outcome="needs_review", reason="HL2"))
    for current in (step, waiting):
        after = run(current, command("cancel", task="TSK-1"))
        order = order_of(after)
        assert (order.agent, order.task_id) == (AgentName.DEV, "TSK-2")
        project = after.project
        assert (project.state, project.waiting_human) == ("running", False)
        assert [t.status for t in project.tasks] == [S.CANCELLED, S.IN_PROGRESS]
        stale = on_handoff(project, approved(current.project), now=clock(9_999))
        assert not stale.changed, "the cancelled task's Dev output changes nothing"


def test_a_task_under_qa_or_not_current_cannot_be_cancelled_while_running() -> None:
    step = to_tasks()
    with pytest.raises(CommandRefused, match="project works on TSK-1"):
        run(step, command("cancel", task="TSK-2"))
    under_qa = advance(step, approved(step.project))
    with pytest.raises(CommandRefused, match=r"is waiting_review .*cancel the project, or wait"):
        run(under_qa, command("cancel", task="TSK-1"))
    with pytest.raises(CommandRefused, match="has no task TSK-9"):
        run(step, command("cancel", task="TSK-9"))
    with pytest.raises(CommandRefused, match="is running, not blocked: only a blocked project"):
        run(step, command())


def refusal_cases() -> list[tuple[str, Step, PipelineCommand, str]]:
    on_task = blocked_on_rework("qa_fail")
    on_stage = blocked_on_revision()
    done = replace(on_task.project, state="done")
    return [
        ("running", to_tasks(), command(task="TSK-1"), "is running, not blocked"),
        ("done", Step(done), command("cancel"), "has ended done: there is nothing to cancel"),
        ("unblock done", Step(done), command(task="TSK-1"), "is done, not blocked"),
        ("no task named", on_task, command(), "blocked on task TSK-1: name it"),
        ("unknown task", on_task, command(task="TSK-9"), "has no task TSK-9; its tasks: TSK-1"),
        (
            "task not blocked",
            on_task,
            command("cancel", task="TSK-2"),
            "task TSK-2 of project demo is new, not blocked",
        ),
        ("task at a stage block", on_stage, command(task="TSK-1"), "has no task TSK-1"),
        (
            "wrong project",
            on_task,
            replace(command(task="TSK-1"), project_id="other"),
            "command for project other sent to project demo",
        ),
        (
            "nothing to re-order",
            Step(replace(on_stage.project, resume=None)),
            command(),
            "nothing to re-order",
        ),
    ]


@pytest.mark.parametrize(
    ("case", "step", "cmd", "why"), refusal_cases(), ids=[c[0] for c in refusal_cases()]
)
def test_commands_that_do_not_apply_are_refused_with_a_reason(
    case: str, step: Step, cmd: PipelineCommand, why: str
) -> None:
    with pytest.raises(CommandRefused, match=why):
        run(step, cmd)


def test_the_commands_and_grants_are_persisted_and_old_state_files_still_load() -> None:
    step = run(blocked_on_rework("qa_fail"), command(task="TSK-1", answers="a"))
    assert decode_state(encode_state(step.project)) == step.project
    blocked = blocked_on_rework("qa_fail").project
    assert blocked.resume is not None
    assert blocked.resume.kind == "rework"
    assert decode_state(encode_state(blocked)) == blocked
    old = json.loads(encode_state(to_tasks().project))
    for key in ("resume", "rework_grants", "round_grants", "commands"):
        del old[key]
    assert decode_state(json.dumps(old)).commands == []


@pytest.mark.parametrize(
    ("field", "value", "path"),
    [
        ("reason", "too short", "$.reason"),
        ("extra", 0, "$.extra"),
        ("extra", 11, "$.extra"),
        ("command", "resume", "$.command"),
        ("reviewer", "", "$.reviewer"),
        ("project_id", "a.b", "$.project_id"),
    ],
)
def test_the_contract_bounds_every_field(field: str, value: object, path: str) -> None:
    raw = json.loads(encode(command(task="TSK-1")))
    assert decode(json.dumps(raw).encode(), PipelineCommand) == command(task="TSK-1")
    raw[field] = value
    with pytest.raises(ContractError, match=rf"\{path}"):
        decode(json.dumps(raw).encode(), PipelineCommand)


def test_the_command_subject_names_the_project() -> None:
    assert Subjects().pipeline_command("demo") == "hl.pipeline.demo.command"
    assert Subjects(prefix="x.y").pipeline_commands == "x.y.pipeline.*.command"
    with pytest.raises(ValueError, match="subject token"):
        Subjects().pipeline_command("a.b")
