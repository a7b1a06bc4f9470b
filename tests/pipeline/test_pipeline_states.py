"""The task state machine: every one of the 81 (from, to) pairs is either allowed or refused."""

from __future__ import annotations

import itertools

import pytest

from humangr.contracts import TaskState, TaskStatus
from humangr.engine.pipeline import ALLOWED, TERMINAL, TransitionRefused, can_transition, transition

S = TaskStatus

EXPECTED_ALLOWED = {
    (S.NEW, S.ASSIGNED),
    (S.ASSIGNED, S.IN_PROGRESS),
    (S.IN_PROGRESS, S.WAITING_REVIEW),
    (S.IN_PROGRESS, S.BLOCKED),
    (S.IN_PROGRESS, S.CANCELLED),
    (S.WAITING_REVIEW, S.QA_PASS),
    (S.WAITING_REVIEW, S.QA_FAIL),
    (S.QA_PASS, S.DONE),
    (S.QA_FAIL, S.IN_PROGRESS),
    (S.QA_FAIL, S.BLOCKED),
    (S.QA_FAIL, S.CANCELLED),
    (S.BLOCKED, S.IN_PROGRESS),
    (S.BLOCKED, S.CANCELLED),
}
"""docs/design.md#task-states, written out independently of the implementation's table."""

ALL_PAIRS = list(itertools.product(S, S))


def task(status: TaskStatus) -> TaskState:
    return TaskState(task_id="TSK-1", title="Add the endpoint", status=status)


@pytest.mark.parametrize(("current", "target"), ALL_PAIRS, ids=lambda s: str(s))
def test_every_pair_is_allowed_exactly_when_the_design_says_so(
    current: TaskStatus, target: TaskStatus
) -> None:
    allowed = (current, target) in EXPECTED_ALLOWED
    assert can_transition(current, target) is allowed
    if allowed:
        moved = transition(task(current), target, owner="qa", reason="why")
        assert moved.status is target
        assert (moved.owner, moved.reason) == ("qa", "why")
    else:
        before = task(current)
        with pytest.raises(TransitionRefused) as refused:
            transition(before, target)
        assert (refused.value.current, refused.value.target) == (current, target)
        assert f"{current} → {target} refused" in str(refused.value)
        assert before.status is current


def test_the_table_covers_every_status_and_only_done_and_cancelled_are_terminal() -> None:
    assert set(ALLOWED) == set(S)
    assert {(a, b) for a, targets in ALLOWED.items() for b in targets} == EXPECTED_ALLOWED
    assert frozenset({S.DONE, S.CANCELLED}) == TERMINAL


def test_a_transition_keeps_the_other_fields_and_applies_changes() -> None:
    start = TaskState(task_id="TSK-9", title="t", status=S.QA_FAIL, rework=1, attempt=2)
    moved = transition(start, S.IN_PROGRESS, rework=2, attempt=3, code_refs=["apps/x.py"])
    assert (moved.task_id, moved.rework, moved.attempt, moved.code_refs) == (
        "TSK-9",
        2,
        3,
        ["apps/x.py"],
    )
    assert moved.updated_at >= start.updated_at


def test_no_path_from_a_fresh_task_reaches_done_without_qa_pass() -> None:
    reachable_without_pass = {S.NEW}
    frontier = [S.NEW]
    while frontier:
        current = frontier.pop()
        for target in ALLOWED[current]:
            if target is S.QA_PASS or target in reachable_without_pass:
                continue
            reachable_without_pass.add(target)
            frontier.append(target)
    assert S.DONE not in reachable_without_pass
