"""Claude Code's ``PreToolUse`` input read into the action HUMANGR reviews
(``humangr.adapters.claude_code``): each tool's kind, the edit's real diff against the file on
disk (or, when it cannot be built, the edit as given with a note), the session kept for the
reviewer, and every malformed input refused with a reason."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from humangr.adapters.claude_code import (
    HookInputError,
    action_of,
    answer,
    answer_of,
    edit_diff,
    hook_input,
    tool_call_of,
)
from humangr.contracts import HumanLayerReport, Outcome, ToolKind, VetoLevel


def _input(tool: str, arguments: Any, cwd: str = "/work/repo", **extra: Any) -> dict[str, Any]:
    return {
        "session_id": "sess-1",
        "transcript_path": "/home/u/.claude/projects/x.jsonl",
        "cwd": cwd,
        "permission_mode": "default",
        "hook_event_name": "PreToolUse",
        "tool_name": tool,
        "tool_input": arguments,
        "tool_use_id": "toolu_01",
        **extra,
    }


@pytest.mark.parametrize(
    ("tool", "arguments", "kind"),
    [
        ("Bash", {"command": "ls -la", "description": "list"}, ToolKind.SHELL),
        ("Write", {"file_path": "/work/repo/a.py", "content": "x = 1\n"}, ToolKind.FILE_WRITE),
        ("Read", {"file_path": "/work/repo/a.py"}, ToolKind.FILE_READ),
        ("Grep", {"pattern": "TODO", "path": "/work/repo"}, ToolKind.FILE_READ),
        ("Glob", {"pattern": "**/*.py"}, ToolKind.FILE_READ),
        ("WebFetch", {"url": "https://example.com", "prompt": "summarise"}, ToolKind.HTTP),
        ("WebSearch", {"query": "python anyio"}, ToolKind.HTTP),
        ("TodoWrite", {"todos": [{"content": "x", "status": "pending"}]}, ToolKind.OTHER),
        ("Task", {"description": "d", "prompt": "p", "subagent_type": "general"}, ToolKind.OTHER),
        ("mcp__github__create_issue", {"title": "t", "body": "b"}, None),
        ("SomeFutureTool", {"whatever": 1}, None),
    ],
)
def test_each_tool_becomes_its_tool_call(
    tool: str, arguments: dict[str, Any], kind: ToolKind | None
) -> None:
    hook = hook_input(_input(tool, arguments))
    call = tool_call_of(hook)
    assert call.name == tool
    assert call.arguments == arguments, "the arguments are reviewed exactly as the tool gets them"
    assert call.kind is kind
    assert call.workspace == "/work/repo"
    action = action_of(hook, call, agent_id="claude-code")
    assert action.tool_call == call
    assert action.environment["claude_code.session_id"] == "sess-1"
    assert action.environment["claude_code.tool_use_id"] == "toolu_01"
    assert "session sess-1" in action.action_description


def test_an_edit_is_reviewed_as_the_diff_it_makes_in_the_file(tmp_path: Path) -> None:
    view = tmp_path / "app.py"
    view.write_text(
        "from flask import request\n\n\n@app.post('/load')\ndef load():\n    data = None\n"
        "    return data\n"
    )
    hook = hook_input(
        _input(
            "Edit",
            {
                "file_path": str(view),
                "old_string": "    data = None\n",
                "new_string": "    data = pickle.loads(request.data)\n",
            },
            cwd=str(tmp_path),
        )
    )
    call = tool_call_of(hook)
    diff, problem = edit_diff(call)
    assert problem is None
    assert diff is not None
    assert "-    data = None" in diff
    assert "+    data = pickle.loads(request.data)" in diff
    assert " def load():" in diff, "the diff carries the file's context"
    action = action_of(hook, call, agent_id="claude-code", diff=diff)
    assert action.code_diff == diff


def test_a_multiedit_applies_its_edits_in_order(tmp_path: Path) -> None:
    target = tmp_path / "m.py"
    target.write_text("a = 1\nb = 2\n")
    edits = [
        {"old_string": "a = 1", "new_string": "a = 10"},
        {"old_string": "a = 10\nb = 2", "new_string": "a = 10\nb = 20"},
    ]
    call = tool_call_of(hook_input(_input("MultiEdit", {"file_path": str(target), "edits": edits})))
    diff, problem = edit_diff(call)
    assert problem is None
    assert diff is not None
    assert "+a = 10" in diff
    assert "+b = 20" in diff


def test_replace_all_replaces_every_occurrence(tmp_path: Path) -> None:
    target = tmp_path / "r.py"
    target.write_text("x = 1\nx = 1\n")
    arguments = {"file_path": str(target), "old_string": "x = 1", "new_string": "x = 2"}
    call = tool_call_of(hook_input(_input("Edit", {**arguments, "replace_all": True})))
    diff, problem = edit_diff(call)
    assert problem is None
    assert diff is not None
    assert diff.count("+x = 2") == 2


@pytest.mark.parametrize(
    ("content", "arguments", "problem"),
    [
        (None, {"old_string": "a", "new_string": "b"}, "does not exist"),
        ("abc\n", {"old_string": "zzz", "new_string": "b"}, "not in the file"),
        ("x\nx\n", {"old_string": "x", "new_string": "y"}, "occurs 2 times"),
        ("abc\n", {"old_string": 3, "new_string": "b"}, "missing or not text"),
        ("abc\n", {"old_string": "", "new_string": "b"}, "missing or not text"),
    ],
)
def test_an_edit_that_cannot_be_applied_is_reviewed_as_given_and_says_so(
    tmp_path: Path, content: str | None, arguments: dict[str, Any], problem: str
) -> None:
    target = tmp_path / "f.py"
    if content is not None:
        target.write_text(content)
    hook = hook_input(_input("Edit", {"file_path": str(target), **arguments}, cwd=str(tmp_path)))
    call = tool_call_of(hook)
    diff, why = edit_diff(call)
    assert diff is None
    assert why is not None
    assert problem in why
    action = action_of(hook, call, agent_id="claude-code", diff=diff, diff_problem=why)
    assert action.code_diff is None, "never a diff of some other edit"
    assert action.tool_call is not None
    assert action.tool_call.arguments["old_string"] is not None
    assert "could not be built" in action.action_description


def test_an_edit_of_a_fifo_does_not_hang(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    call = tool_call_of(
        hook_input(_input("Edit", {"file_path": str(fifo), "old_string": "a", "new_string": "b"}))
    )
    diff, why = edit_diff(call)
    assert diff is None
    assert why is not None
    assert "not a regular file" in why


def test_a_relative_edit_path_is_read_from_cwd(tmp_path: Path) -> None:
    (tmp_path / "rel.py").write_text("old\n")
    hook = hook_input(
        _input(
            "Edit", {"file_path": "rel.py", "old_string": "old", "new_string": "new"}, str(tmp_path)
        )
    )
    diff, why = edit_diff(tool_call_of(hook))
    assert why is None
    assert diff is not None
    assert "+new" in diff


def test_a_notebook_code_cell_is_reviewed_as_code() -> None:
    hook = hook_input(
        _input(
            "NotebookEdit",
            {"notebook_path": "/work/repo/n.ipynb", "new_source": "import os\nos.system('x')"},
        )
    )
    call = tool_call_of(hook)
    action = action_of(hook, call, agent_id="claude-code")
    assert action.code_diff is not None
    assert "+os.system('x')" in action.code_diff


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ([1, 2], "not an object"),
        ("text", "not an object"),
        ({"tool_name": "Bash"}, "no tool_input"),
        ({"tool_name": "Bash", "tool_input": "ls"}, "not an object"),
        ({"tool_name": "Bash", "tool_input": ["ls"]}, "not an object"),
        ({"tool_input": {}}, "not a tool name"),
        ({"tool_name": "rm -rf /", "tool_input": {}}, "not a tool name"),
        ({"tool_name": 7, "tool_input": {}}, "not a tool name"),
        ({"tool_name": "Bash", "tool_input": {}, "cwd": 3}, "`cwd` is int"),
        ({"tool_name": "Bash", "tool_input": {}, "cwd": "relative"}, "not an absolute path"),
        ({"tool_name": "Bash", "tool_input": {}, "session_id": "x" * 300}, "limit"),
        (
            {"tool_name": "Bash", "tool_input": {}, "hook_event_name": "PostToolUse"},
            "PreToolUse only",
        ),
    ],
)
def test_malformed_input_is_refused_with_a_reason(data: object, message: str) -> None:
    with pytest.raises(HookInputError, match=message):
        hook_input(data)


def test_a_call_nested_too_deeply_is_refused() -> None:
    deep: Any = "x"
    for _ in range(40):
        deep = {"a": deep}
    hook = hook_input(_input("mcp__x__y", {"arg": deep}))
    with pytest.raises(HookInputError, match="cannot be reviewed"):
        action_of(hook, tool_call_of(hook), agent_id="claude-code")


def _report(outcome: Outcome, reasons: list[str], by: str | None = None) -> HumanLayerReport:
    return HumanLayerReport(
        report_id="rep-1",
        action_id="act-1",
        agent_id="claude-code",
        action_hash="0" * 64,
        policy_version="v",
        outcome=outcome,
        final_veto_level=VetoLevel.NONE,
        blocking_reasons=reasons,
        resolved_by=by,
        resolution_reason="too risky for a friday" if by else None,
    )


def test_answers_map_outcomes_and_carry_reasons_for_the_agent() -> None:
    assert answer_of(_report(Outcome.APPROVED, []), "Bash")[0] == "allow"
    permission, reason = answer_of(
        _report(Outcome.REJECTED, ["HL4 security: argument `command` of Bash: rm -rf /"]), "Bash"
    )
    assert permission == "deny"
    assert "argument `command`" in reason
    assert "act-1" in reason
    assert "Do not run it" in reason
    permission, reason = answer_of(_report(Outcome.REJECTED, ["x"], by="alice"), "Bash")
    assert permission == "deny"
    assert "alice: too risky for a friday" in reason
    permission, reason = answer_of(
        _report(Outcome.NEEDS_REVIEW, ["prod"]), "Bash", resolve_hint="(hint)"
    )
    assert permission == "ask"
    assert reason.endswith("(hint)")
    _, noted = answer_of(_report(Outcome.APPROVED, []), "Edit", diff_problem="gone")
    assert "could not be built: gone" in noted


def test_the_answer_has_the_documented_shape_and_a_bounded_reason() -> None:
    out = answer("deny", "r" * 10_000)
    inner = out["hookSpecificOutput"]
    assert set(inner) == {"hookEventName", "permissionDecision", "permissionDecisionReason"}
    assert inner["hookEventName"] == "PreToolUse"
    assert len(inner["permissionDecisionReason"]) <= 4_000
