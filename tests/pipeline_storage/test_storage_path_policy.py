"""The pure path policy (``check_path``), the write sets and ``project_id`` validation of
docs/design.md#path-policy-and-storage."""

from __future__ import annotations

import pytest

from humangr.actors.pipeline.storage import (
    MAX_PATH_CHARS,
    MAX_SEGMENT_BYTES,
    check_path,
    validate_project_id,
)
from humangr.contracts import AgentName
from humangr.engine.errors import GateError, PathPolicyError
from humangr.engine.path_policy import WRITE_SETS, write_problem, write_set

ACCEPTED = [
    "docs/spec/PRODUCT_SPEC.md",
    "docs/pm/backend/BACKLOG.md",
    "docs/dev/dev_implementation_TSK-BE-001.md",
    "project/notes.txt",
    "apps/notes/src/notes/store.py",
    "apps/web/.eslintrc.json",
    "apps/a/b..c/file...name.py",
    "docs/" + "a" * MAX_SEGMENT_BYTES,
    "docs/" + "é" * (MAX_SEGMENT_BYTES // 2),
    "docs/" + "/".join(["d" * 50] * 9) + "/f.md",
    "apps/web/.gitignore",
    "apps/x/.github/workflows/ci.yml",
    "apps/ｘ.py",
    "docs/ .md",
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
    "overlong segment": ("docs/" + "a" * (MAX_SEGMENT_BYTES + 1), "longer than"),
    "overlong multi-byte segment": ("docs/" + "é" * 200, "400 bytes"),
    "overlong 4-byte segment": ("apps/" + "😀" * 64 + ".py", "bytes in UTF-8"),
    "trailing dot": ("apps/x.", "ends with a dot"),
    "trailing dots": ("apps/x.../y.py", "ends with a dot"),
    "trailing space": ("apps/x ", "or a space"),
    "trailing space in a folder": ("apps/x /y.py", "or a space"),
    "trailing no-break space": ("apps/x\u00a0", "NFKC"),
    "fullwidth dots": ("apps/．．/x", "NFKC"),
    "fullwidth dot segment": ("apps/．/x", "NFKC"),
    "one-dot leaders": ("apps/\u2024\u2024/x", "NFKC"),
    "two-dot leader": ("apps/\u2025/x", "NFKC"),
    "fullwidth solidus traversal": ("apps/..／..／x", "NFKC"),
    "fullwidth solidus at the top": ("apps／．．／x", "must start with"),
    ".git folder": ("apps/.git/config", "'.git'"),
    ".git at the top of a folder": ("project/.git/hooks/pre-commit", "'.git'"),
    ".git as a file": ("apps/.git", "'.git'"),
    ".git in upper case": ("apps/.GIT/config", "'.git'"),
    "fullwidth .git": ("apps/．git/config", "NFKC"),
    "the lock file": ("apps/.humangr.lock", "reserved"),
    "the breaker file": ("docs/.humangr-breakers.json", "reserved"),
    "a folder named like the store's files": ("apps/.humangr/x.py", "reserved"),
    "temp suffix on a folder": ("docs/a.humangr-tmp/x.md", "reserved"),
    "temp suffix in upper case": ("docs/x.HUMANGR-TMP", "reserved"),
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


WRITES = {
    AgentName.CTO: ["docs/spec/PRODUCT_SPEC.md", "docs/cto/cto_backlog_validation.md"],
    AgentName.ENGINEER: ["docs/engineer/engineer_architecture.md"],
    AgentName.PM: ["docs/pm/core/BACKLOG.md"],
    AgentName.QA: ["docs/qa/QA_REPORT_TSK-1.md"],
    AgentName.DEV: ["apps/converter/settings.py", "project/Makefile", "docs/dev/dev_1.md"],
}
OTHERS = [
    "apps/converter/backdoor.py",
    "project/setup.sh",
    "docs/spec/PRODUCT_SPEC.md",
    "docs/cto/x.md",
    "docs/engineer/x.md",
    "docs/pm/core/BACKLOG.md",
    "docs/qa/QA_REPORT_TSK-1.md",
    "docs/dev/dev_1.md",
    "docs/monitor/TASK_STATE.json",
    "docs/readme.md",
    "docs/QA/x.md",
    "docs/qa",
]


@pytest.mark.parametrize("agent", list(WRITES))
def test_each_agent_writes_its_own_folders_only(agent: AgentName) -> None:
    assert set(write_set(agent)) == set(WRITE_SETS[agent])
    for path in WRITES[agent]:
        assert write_problem(agent, path) is None
        assert write_problem(agent.value, path) is None
    refused = [p for p in OTHERS if not p.startswith(write_set(agent))]
    assert refused, "every agent has paths it may not write"
    for path in refused:
        problem = write_problem(agent, path)
        assert problem is not None
        assert repr(path) in problem
        assert agent.value in problem


@pytest.mark.parametrize("agent", [AgentName.CTO, AgentName.ENGINEER, AgentName.PM, AgentName.QA])
@pytest.mark.parametrize("path", ["apps/converter/backdoor.py", "project/run.sh"])
def test_only_the_dev_writes_code_and_the_refusal_says_so(agent: AgentName, path: str) -> None:
    problem = write_problem(agent, path)
    assert problem is not None
    assert "only as the Dev's output" in problem


@pytest.mark.parametrize("agent", ["monitor", "human", "", AgentName.MONITOR])
def test_an_agent_without_a_write_set_writes_nothing(agent: str) -> None:
    assert write_set(agent) == ()
    assert "nowhere" in (write_problem(agent, "docs/x.md") or "")


def test_no_write_set_reaches_the_monitors_folder() -> None:
    for folders in WRITE_SETS.values():
        assert all(f.endswith("/") and check_path(f + "x.md") for f in folders)
        assert not any(
            "docs/monitor/".startswith(f) or f.startswith("docs/monitor") for f in folders
        )
