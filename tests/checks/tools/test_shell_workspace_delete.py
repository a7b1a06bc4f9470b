"""Deleting the whole workspace from inside it, however the folder is spelled, needs a person
(as deleting its ``.git`` alone does); a path that climbs back out with ``..`` is judged where
it lands. Beside each, the everyday delete that must still run."""

from __future__ import annotations

import pytest

from humangr.contracts import ActionContext, Outcome, ToolCall
from humangr.engine.checks.registry import run_checks
from humangr.engine.review import local_outcome

WS = "/home/agent/src"


def _outcome(command: str, **more: str) -> tuple[Outcome, list[str]]:
    call = ToolCall(name="bash", arguments={"command": command, **more}, workspace=WS)
    action = ActionContext(
        agent_id="t", action_type="tool_call", action_description="", tool_call=call
    )
    return local_outcome(run_checks(action, local_only=True))


@pytest.mark.parametrize(
    "command",
    [
        "rm -rf .",
        "rm -rf ./",
        "rm -rf *",
        "rm -r ./*",
        "rm -rf .[!.]* *",
        "rm -rf ./build/..",
        "rm -rf src/../",
        "rm -rf $PWD",
        "find . -delete",
        "find . -mindepth 1 -delete",
        "cd build/.. && rm -rf *",
    ],
)
def test_the_whole_workspace_deleted_needs_a_person(command: str) -> None:
    outcome, reasons = _outcome(command)
    assert outcome is Outcome.NEEDS_REVIEW
    assert any("deletes the whole workspace" in r for r in reasons)


@pytest.mark.parametrize(
    "command", ["rm -rf ./build/../..", "rm -rf build/../../etc", "rm -rf a/b/../../../x"]
)
def test_a_path_that_climbs_out_is_judged_where_it_lands(command: str) -> None:
    outcome, reasons = _outcome(command)
    assert outcome is not Outcome.APPROVED
    assert any("outside the workspace" in r for r in reasons)


@pytest.mark.parametrize(
    "command",
    [
        "rm -rf ./build",
        "rm -rf build/* dist/*",
        "rm -rf build/../dist",
        "cd build && rm -rf *",
        "cd /tmp/scratch-42 && rm -rf .",
        "find . -name '*.pyc' -delete",
        "find . -type d -name __pycache__ -delete",
        "rm -f *.log",
    ],
)
def test_everyday_deletes_inside_the_workspace_run(command: str) -> None:
    assert _outcome(command)[0] is Outcome.APPROVED


def test_a_tool_that_runs_elsewhere_is_not_deleting_the_workspace() -> None:
    assert _outcome("rm -rf *", cwd="/tmp/scratch-42")[0] is Outcome.APPROVED
    assert _outcome("rm -rf *", cwd=WS)[0] is not Outcome.APPROVED
