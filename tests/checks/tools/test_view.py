"""How the checks read a tool call: its kind (given, else from the name, else from the argument
names), every string with its path, and the files it writes or runs."""

from __future__ import annotations

from typing import Any

import pytest
from tool_helpers import tool_action

from humangr.contracts import ActionContext, LayerID, Outcome, ToolCall, ToolKind
from humangr.engine.checks import CheckInput, run_checks
from humangr.engine.checks.tools.edits import edited_diff
from humangr.engine.checks.tools.files import tool_files, workspace_path
from humangr.engine.checks.tools.view import infer_kind, tool_view
from humangr.engine.review import local_outcome

K = ToolKind


@pytest.mark.parametrize(
    ("name", "arguments", "kind", "from_"),
    [
        ("Bash", {"command": "ls"}, K.SHELL, "name"),
        ("run_shell_command", {"cmd": "ls"}, K.SHELL, "name"),
        ("Write", {"file_path": "a.py", "content": ""}, K.FILE_WRITE, "name"),
        ("write_file", {"path": "a.py", "content": ""}, K.FILE_WRITE, "name"),
        ("Edit", {"file_path": "a.py", "old_string": "a", "new_string": "b"}, K.FILE_EDIT, "name"),
        ("MultiEdit", {"file_path": "a.py", "edits": []}, K.FILE_EDIT, "name"),
        ("Read", {"file_path": "a.py"}, K.FILE_READ, "name"),
        ("delete_file", {"path": "a.py"}, K.FILE_DELETE, "name"),
        ("WebFetch", {"url": "https://x.io", "prompt": "summarise"}, K.HTTP, "name"),
        ("execute_sql", {"query": "select 1"}, K.SQL, "name"),
        ("send_email", {"to": "a@b.c", "body": "hi"}, K.EMAIL, "name"),
        ("run_python", {"code": "print(1)"}, K.CODE, "name"),
        ("mcp__github__create_issue", {"title": "t", "body": "b"}, K.MCP, "name"),
        ("mcp__filesystem__write_file", {"path": "a", "content": "b"}, K.FILE_WRITE, "MCP"),
        ("mcp__postgres__query", {"sql": "select 1"}, K.SQL, "MCP"),
        ("mcp__shell__run", {"command": "ls"}, K.SHELL, "MCP"),
        ("mcp__x__do_it", {"url": "https://a.io"}, K.HTTP, "argument"),
        ("tool1", {"argv": ["ls"]}, K.SHELL, "argument"),
        ("tool2", {"path": "x.md", "content": "y"}, K.FILE_WRITE, "argument"),
        ("tool3", {"url": "https://x.io", "method": "POST"}, K.HTTP, "argument"),
        ("tool4", {"sql": "select 1"}, K.SQL, "argument"),
        ("tool5", {"to": ["a@b.c"], "subject": "s"}, K.EMAIL, "argument"),
        ("tool6", {"source": "x = 1"}, K.CODE, "argument"),
        ("tool7", {"file_path": "a.py", "old_string": "a"}, K.FILE_EDIT, "argument"),
        ("tool8", {"path": "a.py"}, K.FILE_READ, "argument"),
        ("tool9", {"n": 3}, K.OTHER, "other"),
        ("replace_in_file", {"path": "a.py", "diff": "<<<<<<< SEARCH"}, K.FILE_EDIT, "name"),
        ("tool10", {"path": "a.py", "diff": "--- a/a.py"}, K.FILE_EDIT, "argument"),
        ("web_search", {"query": "drop table syntax"}, K.HTTP, "name"),
        (
            "str_replace_editor",
            {"command": "create", "path": "a", "file_text": "x"},
            K.FILE_EDIT,
            "name",
        ),
    ],
)
def test_the_kind_is_inferred_and_says_from_where(
    name: str, arguments: dict[str, Any], kind: ToolKind, from_: str
) -> None:
    got, notes = infer_kind(ToolCall(name=name, arguments=arguments))
    assert got is kind
    note = " ".join(notes)
    expected = {
        "name": "tool's name",
        "MCP": "MCP tool's name",
        "argument": "from the argument",
        "other": "kind other",
    }
    assert expected[from_] in note


def test_a_given_kind_wins_over_the_name() -> None:
    kind, notes = infer_kind(ToolCall(name="Read", arguments={"x": "ls"}, kind=K.SHELL))
    assert kind is K.SHELL
    assert notes == ("kind shell, as the call gives it",)


def test_every_string_is_read_with_its_path() -> None:
    view = tool_view(
        ToolCall(
            name="http",
            arguments={
                "url": "https://a.io",
                "headers": {"Cookie": "s=1", "n": 2},
                "argv": ["a", ["b"]],
                "k" * 40: {"x": None},
            },
        )
    )
    got = dict(view.strings())
    assert got["url"] == "https://a.io"
    assert got["headers.Cookie"] == "s=1"
    assert got["argv[0]"] == "a"
    assert got["argv[1][0]"] == "b"
    assert got["k" * 40 + ".<key>"] == "k" * 40, "long keys are read as text too"


@pytest.mark.parametrize(
    ("path", "workspace", "shown"),
    [
        ("/work/repo/src/a.py", "/work/repo", "src/a.py"),
        ("./src/a.py", None, "src/a.py"),
        ("/etc/passwd", "/work/repo", "/etc/passwd"),
        ("/work/repo2/a.py", "/work/repo", "/work/repo2/a.py"),
        ("C:\\repo\\a.py", None, "C:/repo/a.py"),
    ],
)
def test_paths_are_named_relative_to_the_workspace(
    path: str, workspace: str | None, shown: str
) -> None:
    assert workspace_path(path, workspace) == shown


def test_a_write_is_the_new_file_it_creates_and_other_strings_are_text() -> None:
    view = tool_view(
        ToolCall(
            name="Write",
            arguments={"file_path": "/w/app.py", "content": "x = 1\ny = 2\n", "note": "hi"},
            workspace="/w",
        )
    )
    files = tool_files(view)
    by_path = {f.path: f for f in files.files}
    assert [ln.text for ln in by_path["app.py"].added] == ["x = 1", "y = 2"]
    assert files.arguments["app.py"] == "content"
    assert "app.py" not in files.pseudo
    assert files.arguments["<Write note>"] == "note"
    assert "<Write note>" in files.pseudo


def test_an_edit_is_a_diff_of_its_old_and_new_strings() -> None:
    view = tool_view(
        ToolCall(
            name="MultiEdit",
            arguments={
                "file_path": "a.py",
                "edits": [
                    {"old_string": "x = 1", "new_string": "x = 2"},
                    {"old_string": "", "new_string": "import os\nos.system(cmd)"},
                ],
            },
        )
    )
    (f,) = [f for f in tool_files(view).files if f.path == "a.py"]
    assert [ln.text for ln in f.removed] == ["x = 1"]
    assert [ln.text for ln in f.added] == ["x = 2", "import os", "os.system(cmd)"]


def test_code_to_run_is_a_python_file_bound_to_its_argument() -> None:
    action = tool_action("run_python", {"code": "import os\nos.system(input())\n"})
    ctx = CheckInput(action)
    (path,) = [p for p, a in ctx.tool_files.arguments.items() if a == "code"]
    assert path.endswith(".py")
    found = run_checks(action)[LayerID.HL4]
    bound = [f for f in found if f.argument == "code"]
    assert bound
    assert all(f.file is None and f.tool == "run_python" for f in bound)


def test_a_secret_in_any_argument_is_found_and_named() -> None:
    action = tool_action(
        "mcp__slack__post_message",
        {
            "channel": "#ops",
            "text": "key: AKIAZ3MHALXQ4TESTKEY secret wJalrXUtnFEMI/K7MDENG/bPxRfiCY",
        },
    )
    found = [f for fs in run_checks(action).values() for f in fs]
    assert any(f.argument == "text" and "AWS" in f.title for f in found), found


def test_an_argument_not_fully_reviewed_needs_a_human() -> None:
    whole = tool_action("upload", {"blob": "abc"}, kind=K.OTHER)
    assert local_outcome(run_checks(whole))[0] is Outcome.APPROVED
    cut = ActionContext(
        agent_id="a",
        action_type="tool_call",
        action_description="",
        tool_call=ToolCall(name="upload", arguments={"blob": "abc…"}, truncated=["blob"]),
    )
    outcome, reasons = local_outcome(run_checks(cut))
    assert outcome is Outcome.NEEDS_REVIEW
    assert any("argument `blob` of upload: not fully reviewed" in r for r in reasons)


def test_an_edit_applied_to_its_file_is_a_diff_with_context() -> None:
    call = ToolCall(
        name="Edit",
        arguments={"file_path": "/w/a.py", "old_string": "x = 1", "new_string": "x = 2"},
        workspace="/w",
    )
    diff = edited_diff(call, "import os\nx = 1\nprint(x)\n")
    assert diff is not None
    assert diff.startswith("--- a/a.py\n+++ b/a.py\n")
    assert " import os\n-x = 1\n+x = 2\n print(x)\n" in diff
    assert edited_diff(call, "y = 3\n") is None, "an edit that does not apply is not a diff"


def test_a_decoy_diff_never_hides_what_an_edit_adds() -> None:
    evil = "import os\nos.system(request.args['c'])"
    call = ToolCall(
        name="Edit", arguments={"file_path": "a.py", "old_string": "pass", "new_string": evil}
    )
    decoy = "--- a/a.py\n+++ b/a.py\n@@ -1 +1 @@\n-pass\n+x = 1\n"
    action = ActionContext(
        agent_id="a",
        action_type="tool_call",
        action_description="",
        code_diff=decoy,
        tool_call=call,
    )
    outcome, reasons = local_outcome(run_checks(action))
    assert outcome is not Outcome.APPROVED
    assert any("new_string" in r for r in reasons)


def test_search_replace_blocks_and_an_editors_create_are_read_as_code() -> None:
    from tool_helpers import decide

    blocks = (
        "<<<<<<< SEARCH\n    rows = db.execute('SELECT 1 WHERE n = ?', (n,))\n=======\n"
        "    rows = db.execute(f\"SELECT 1 WHERE n = '{request.args['n']}'\")\n>>>>>>> REPLACE\n"
    )
    outcome, findings, _ = decide("replace_in_file", {"path": "app/db.py", "diff": blocks})
    assert outcome is Outcome.REJECTED
    assert any(f.argument == "diff" and f.file == "app/db.py" for f in findings)
    view = (
        "import pickle\nfrom flask import request\n\n"
        "def f():\n    return pickle.loads(request.data)\n"
    )
    outcome, findings, _ = decide(
        "str_replace_editor", {"command": "create", "path": "app/v.py", "file_text": view}
    )
    assert outcome is Outcome.REJECTED
    assert any(f.argument == "file_text" and f.line == 5 for f in findings)
