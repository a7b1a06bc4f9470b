"""How file tool paths are resolved without the disk (``paths_norm``) and how a call's paths are
found (``paths_args``)."""

from __future__ import annotations

from typing import Any

import pytest
from tool_helpers import tool_action

from humangr.contracts import ToolCall, ToolKind
from humangr.engine.checks.tools.paths_args import MAX_TARGETS, file_operation, targets
from humangr.engine.checks.tools.paths_norm import inside, resolve, spellings
from humangr.engine.checks.tools.view import tool_view

# (path, workspace, key the rules read, reason)
RESOLVED = [
    ("/etc/shadow", None, "/etc/shadow", "absolute"),
    ("//etc//./shadow/.", None, "/etc/shadow", "slashes and dots"),
    ("/../../etc", None, "/etc", "above the root stays at the root"),
    ("~/.ssh/id_rsa", None, "~/.ssh/id_rsa", "tilde"),
    ("$HOME/.bashrc", None, "~/.bashrc", "$HOME"),
    ("${HOME}/.bashrc", None, "~/.bashrc", "${HOME}"),
    ("%USERPROFILE%\\.aws\\config", None, "~/.aws/config", "%USERPROFILE%"),
    ("%HOMEDRIVE%%HOMEPATH%\\x", None, "~/x", "%HOMEDRIVE%%HOMEPATH%"),
    ("$env:USERPROFILE\\x", None, "~/x", "PowerShell"),
    ("%APPDATA%\\x", None, "~/appdata/roaming/x", "%APPDATA%"),
    ("%SystemRoot%\\System32", None, "c:/windows/system32", "%SystemRoot%"),
    ("/home/bob/x", None, "~/x", "a Linux home"),
    ("/Users/Bob/Library/x", None, "~/library/x", "a macOS home"),
    ("/root/x", None, "~/x", "root's home"),
    ("~root/x", None, "~/x", "~name"),
    ("~/../bob/.ssh", None, "~/.ssh", "from one home into another"),
    ("~/../../etc/passwd", None, "/etc/passwd", "out of the home"),
    ("/private/etc/sudoers", None, "/etc/sudoers", "macOS /private"),
    ("/System/Volumes/Data/Users/a/x", None, "~/x", "macOS firmlink"),
    ("C:\\Users\\bob\\x", None, "~/x", "a Windows home"),
    ("\\\\?\\C:\\Windows\\x", None, "c:/windows/x", "a Win32 device path"),
    ("\\\\srv\\share\\x", None, "//srv/share/x", "a share"),
    ("c:\\a\\b. \\c::$DATA", None, "c:/a/b/c", "Windows trailing dots and streams"),
    ("file:///etc/%70asswd", None, "/etc/passwd", "a file URI"),
    ("file://localhost/etc/x", None, "/etc/x", "a file URI with its host"),
    ("src/app.py", None, "src/app.py", "relative, no workspace"),
    ("./src/../app.py", None, "app.py", "relative dots"),
    ("../../x", None, "../../x", "climbing, no workspace"),
    ("src/app.py", "/work/repo", "/work/repo/src/app.py", "joined to the workspace"),
    ("../../../../x", "/work/repo", "/x", "climbing out of the workspace"),
    ("x", "C:\\Users\\bob\\repo", "~/repo/x", "a Windows workspace"),
    ("x", "~/proj", "~/proj/x", "a workspace in the home"),
]


@pytest.mark.parametrize(
    ("path", "workspace", "key", "reason"), RESOLVED, ids=[r[3] for r in RESOLVED]
)
def test_resolve(path: str, workspace: str | None, key: str, reason: str) -> None:
    assert resolve(path, workspace).key == key, reason


def test_escapes_count_the_climb() -> None:
    assert resolve("../../a").escapes == 2
    assert resolve("a/../../b").escapes == 1
    assert resolve("a/b").escapes == 0


@pytest.mark.parametrize(
    ("path", "folder", "expected"),
    [
        ("/work/repo/a", "/work/repo", True),
        ("/work/repo", "/work/repo", True),
        ("/work/repository", "/work/repo", False),
        ("/work", "/work/repo", False),
        ("/home/bob/p/x", "~/p", True),
        ("/home/alice/p/x", "/home/bob/p", False),
        ("C:\\Users\\Bob\\P\\x", "c:/users/bob/p", True),
        ("/Work/Repo/a", "/work/repo", False),
    ],
)
def test_inside(path: str, folder: str, expected: bool) -> None:
    assert inside(resolve(path), resolve(folder)) is expected


@pytest.mark.parametrize(
    ("raw", "texts", "problems"),
    [
        ("/etc/x", ["/etc/x"], set()),
        ("/etc/x\x00.txt", ["/etc/x", "/etc/x.txt"], {"nul"}),
        ("/e\u200btc", ["/etc"], {"hidden"}),
        ("／ｅｔｃ", ["／ｅｔｃ", "/etc"], set()),
        ("/еtc", ["/еtc", "/etc"], set()),
        ("x" * 70_000, ["x" * 65_536], {"long"}),
    ],
    ids=["plain", "nul", "zero-width", "full-width", "cyrillic", "long"],
)
def test_spellings(raw: str, texts: list[str], problems: set[str]) -> None:
    readings, found = spellings(raw)
    assert [r.text for r in readings] == texts
    assert found == problems
    assert not readings[0].folded


def _view(name: str, arguments: dict[str, Any], kind: ToolKind | None = None) -> Any:
    return tool_view(ToolCall(name=name, arguments=arguments, kind=kind))


@pytest.mark.parametrize(
    ("name", "arguments", "kind", "op"),
    [
        ("Read", {"file_path": "a"}, None, "read"),
        ("Write", {"file_path": "a", "content": "b"}, None, "write"),
        ("MultiEdit", {"file_path": "a", "edits": []}, None, "edit"),
        ("Grep", {"pattern": "a"}, None, "search"),
        ("Glob", {"pattern": "a"}, None, "list"),
        ("LS", {"path": "a"}, None, "list"),
        ("mcp__filesystem__read_multiple_files", {"paths": []}, None, "read"),
        ("mcp__filesystem__move_file", {"source": "a", "destination": "b"}, None, "move"),
        ("mcp__github__push_files", {"files": []}, None, "write"),
        ("copy_file", {"source_path": "a"}, None, "copy"),
        ("search_file_content", {"pattern": "a", "path": "."}, None, "search"),
        ("str_replace_editor", {"command": "view", "path": "a"}, None, "read"),
        ("str_replace_editor", {"command": "create", "path": "a"}, None, "write"),
        ("cleanup", {"path": "a"}, ToolKind.FILE_DELETE, "delete"),
        ("bash", {"command": "cat a"}, None, None),
        ("run_python", {"code": "1"}, None, None),
        ("TodoWrite", {"todos": []}, None, None),
        ("WebFetch", {"url": "https://a.test"}, None, None),
    ],
)
def test_file_operation(
    name: str, arguments: dict[str, Any], kind: ToolKind | None, op: str | None
) -> None:
    assert file_operation(_view(name, arguments, kind)) == op


def test_targets_name_their_argument() -> None:
    view = _view(
        "move_file",
        {"source": "a", "destination": "b", "files": [{"path": "c", "content": "d"}]},
    )
    found, skipped = targets(view, "move")
    assert [(t.op, t.argument, t.raw) for t in found] == [
        ("move", "source", "a"),
        ("write", "destination", "b"),
        ("move", "files[0].path", "c"),
    ]
    assert skipped is None


def test_targets_read_patch_headers() -> None:
    patch = (
        "diff --git a/x.py b/y.py\nrename from x.py\nrename to y.py\n"
        "--- /dev/null\n+++ b/new.py\n@@ -0,0 +1 @@\n+a\n"
        "--- a/old.py\n+++ /dev/null\n@@ -1 +0,0 @@\n-a\n"
        "*** Begin Patch\n*** Add File: p.py\n*** Delete File: q.py\n*** Update File: r.py\n"
    )
    found, _ = targets(_view("apply_patch", {"patch": patch}), "edit")
    assert [(t.op, t.raw) for t in found] == [
        ("delete", "x.py"),
        ("write", "y.py"),
        ("write", "new.py"),
        ("delete", "old.py"),
        ("write", "p.py"),
        ("delete", "q.py"),
        ("edit", "r.py"),
    ]


def test_targets_join_a_search_folder_and_its_globs() -> None:
    found, _ = targets(_view("Grep", {"pattern": "x", "path": "~", "glob": "*.pem"}), "search")
    assert [(t.argument, t.raw, t.pattern) for t in found] == [
        ("path", "~", False),
        ("glob", "~/**/*.pem", True),
    ]


def test_targets_are_bounded_and_deduplicated() -> None:
    view = tool_view(
        tool_action(
            "read_multiple_files", {"paths": ["a"] * 5 + [str(i) for i in range(999)]}
        ).tool_call  # type: ignore[arg-type]
    )
    found, skipped = targets(view, "read")
    assert len(found) == MAX_TARGETS
    assert [t.raw for t in found[:2]] == ["a", "0"]
    assert skipped == ("paths", 999 + 1 - MAX_TARGETS)
