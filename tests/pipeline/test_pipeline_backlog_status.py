"""Backlog parsing and the Monitor's status outputs (STATUS.md, TASK_STATE.json, events)."""

from __future__ import annotations

import json

import pytest
from pipeline_helpers import BACKLOG, R, advance, approved, reply, to_tasks

from humangr.engine.pipeline import (
    BacklogError,
    BacklogTask,
    decode_state,
    order_tasks,
    parse_backlog,
    pipeline_status,
    render_status,
    render_task_state,
)


def test_sections_become_tasks_with_titles_bodies_and_dependencies() -> None:
    tasks = parse_backlog(BACKLOG)
    assert [(t.task_id, t.title, t.depends_on) for t in tasks] == [
        ("TSK-1", "Greeting function", ()),
        ("TSK-2", "Config loader", ("TSK-1",)),
    ]
    assert tasks[0].body.startswith("## TSK-1 Greeting function")
    assert "Acceptance criteria" in tasks[1].body
    assert "TSK-2" not in tasks[0].body


def test_dependencies_listed_below_the_field_and_bold_labels_are_read() -> None:
    text = (
        "## TSK-A first\n- **Dependencies:**\n  - TSK-C\n  - TSK-B\n- Scope: x\n"
        "## TSK-B second\n### Dependencies\nnone\n"
        "## TSK-C third\n"
    )
    tasks = parse_backlog(text)
    assert tasks[0].depends_on == ("TSK-C", "TSK-B")
    assert [t.task_id for t in order_tasks(tasks)] == ["TSK-B", "TSK-C", "TSK-A"]


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("# Backlog\nno tasks\n", "no tasks"),
        ("## TSK-1 a\n## TSK-1 b\n", "appears twice"),
        ("## TSK-" + "x" * 70 + " long\n", "not a valid token"),
    ],
)
def test_bad_backlogs_are_refused(text: str, problem: str) -> None:
    with pytest.raises(BacklogError, match=problem):
        parse_backlog(text)


def test_unknown_dependencies_and_cycles_are_refused() -> None:
    with pytest.raises(BacklogError, match="unknown"):
        order_tasks([BacklogTask("TSK-1", "a", "", ("TSK-9",))])
    with pytest.raises(BacklogError, match="cycle"):
        order_tasks(
            [BacklogTask("TSK-1", "a", "", ("TSK-2",)), BacklogTask("TSK-2", "b", "", ("TSK-1",))]
        )


def test_status_always_names_the_next_owner() -> None:
    step = to_tasks()
    text = render_status(step.project)
    assert "**Next owner:** dev — dev: implement_task TSK-1 (attempt 1)" in text
    assert "| TSK-1 | Greeting function | in_progress | dev | 1 | 0 |" in text
    step = advance(step, approved(step.project, "apps/core/greet.py"))
    assert "**Next owner:** qa" in render_status(step.project)
    step = advance(step, reply(step.project, R.BLOCKED, reason="breaker open"))
    text = render_status(step.project)
    assert "**State:** blocked" in text
    assert "**Next owner:** human" in text
    assert "breaker open" in text
    event = pipeline_status(step.project)
    assert (event.state, event.next_owner) == ("blocked", "human")
    assert "breaker open" in event.message


def test_task_state_json_is_the_resumable_state() -> None:
    step = to_tasks()
    text = render_task_state(step.project)
    data = json.loads(text)
    assert data["stage"] == "tasks"
    assert data["pending"]["mode"] == "implement_task"
    assert [t["status"] for t in data["tasks"]] == ["in_progress", "new"]
    assert decode_state(text) == step.project
