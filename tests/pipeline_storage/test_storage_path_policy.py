"""The pure path policy (``check_path``) and ``project_id`` validation of DESIGN.md §7."""

from __future__ import annotations

import pytest

from humangr.engine.errors import GateError, PathPolicyError
from humangr.engine.storage import (
    MAX_PATH_CHARS,
    MAX_SEGMENT_CHARS,
    check_path,
    validate_project_id,
)

ACCEPTED = [
    "docs/spec/PRODUCT_SPEC.md",
    "docs/pm/backend/BACKLOG.md",
    "docs/dev/dev_implementation_TSK-BE-001.md",
    "project/notes.txt",
    "apps/notes/src/notes/store.py",
    "apps/web/.eslintrc.json",
    "apps/a/b..c/file...name.py",
    "docs/" + "a" * MAX_SEGMENT_CHARS,
    "docs/" + "/".join(["d" * 50] * 9) + "/f.md",
]

REFUSED = {
    "empty": ("", "empty"),
    "absolute": ("/etc/passwd", "absolute"),
    "absolute under an allowed top": ("/docs/x.md", "absolute"),
    "drive letter": ("C:/Windows/x.md", "drive letter"),
    "drive letter without slash": ("c:docs/x.md", "drive letter"),
    "home": ("~/docs/x.md", "'~'"),
    "home of a user": ("docs/~root/x.md", "'~'"),
    "dot-dot at the start": ("../docs/x.md", "'..'"),
    "dot-dot inside": ("docs/../../etc/passwd", "'..'"),
    "dot-dot at the end": ("docs/spec/..", "'..'"),
    "dot segment": ("docs/./x.md", "'.'"),
    "backslash": ("docs\\spec\\x.md", "backslash"),
    "backslash traversal": ("docs/..\\..\\x.md", "backslash"),
    "NUL": ("docs/x.md\x00.png", "U+0000"),
    "newline": ("docs/x\n.md", "U+000A"),
    "tab": ("docs/x\t.md", "U+0009"),
    "escape": ("docs/\x1b[31mx.md", "U+001B"),
    "DEL": ("docs/x\x7f.md", "U+007F"),
    "C1 control": ("docs/x\x85.md", "U+0085"),
    "bidi override": ("apps/x\u202egnp.py", "U+202E"),
    "double slash": ("docs//x.md", "empty segment"),
    "trailing slash": ("docs/spec/", "empty segment"),
    "overlong path": ("docs/" + "a/" * (MAX_PATH_CHARS // 2) + "x.md", "longer than"),
    "overlong segment": ("docs/" + "a" * (MAX_SEGMENT_CHARS + 1), "longer than"),
    "outside the allowed tops": ("src/main.py", "must start with"),
    "allowed top as a prefix only": ("docsx/x.md", "must start with"),
    "upper-case top": ("Docs/x.md", "must start with"),
    "bare top folder": ("docs", "must name a file"),
    "dot file at the root": (".humangr.lock", "must start with"),
    "reserved temp suffix": ("docs/x.md.humangr-tmp", "reserved"),
}


@pytest.mark.parametrize("path", ACCEPTED)
def test_accepted_paths_are_returned_unchanged(path: str) -> None:
    assert check_path(path) == path


@pytest.mark.parametrize(("path", "problem"), REFUSED.values(), ids=REFUSED.keys())
def test_refused_paths_raise_with_the_problem(path: str, problem: str) -> None:
    with pytest.raises(PathPolicyError, match="path_policy") as info:
        check_path(path)
    assert problem in str(info.value)
    assert info.value.gate == "path_policy"
    assert isinstance(info.value, GateError)


def test_a_non_string_is_refused() -> None:
    with pytest.raises(PathPolicyError):
        check_path(None)  # type: ignore[arg-type]


@pytest.mark.parametrize("pid", ["demo", "a", "0", "my-project_2", "a" * 63])
def test_valid_project_ids(pid: str) -> None:
    assert validate_project_id(pid) == pid


@pytest.mark.parametrize(
    "pid",
    ["", "Demo", "-demo", "_demo", "a" * 64, "../x", "x/y", "x.y", "x y", "demo\n", "~", "é"],
)
def test_invalid_project_ids_are_refused(pid: str) -> None:
    with pytest.raises(PathPolicyError, match="project_id"):
        validate_project_id(pid)
