"""Every envelope gate (docs/design.md#the-enforcer-and-envelope-gates): one reply that passes
and one that fails, per gate."""

from __future__ import annotations

import re
from typing import Any

import pytest
from enforcer_helpers import (
    BACKLOG,
    MODES,
    QA_REPORT,
    SPEC,
    TASK,
    envelope,
    good,
    reply,
)

from humangr.engine.enforcer import check_reply, request_problems


def gates(agent: str, mode: str, data: dict[str, Any], **request: Any) -> list[str]:
    return [v.gate for v in check_reply(envelope(agent, mode, **request), reply(data))]


def messages(agent: str, mode: str, data: dict[str, Any]) -> str:
    return " | ".join(str(v) for v in check_reply(envelope(agent, mode), reply(data)))


def with_artifact(data: dict[str, Any], path: str, content: str) -> dict[str, Any]:
    data["artifacts"] = [a for a in data["artifacts"] if a["path"] != path]
    data["artifacts"].append({"path": path, "content": content})
    return data


@pytest.mark.parametrize(("agent", "mode"), list(MODES))
def test_the_golden_reply_of_every_mode_passes(agent: str, mode: str) -> None:
    assert check_reply(envelope(agent, mode), reply(good(agent, mode))) == []


# --- global gates -------------------------------------------------------------------------


def test_unknown_mode_is_refused_before_any_reply() -> None:
    request = envelope("dev", "write_poetry")
    assert request_problems(request)
    assert [v.gate for v in check_reply(request, reply(good("dev", "implement_task")))] == ["mode"]


def test_a_task_mode_without_task_id_is_refused() -> None:
    assert request_problems(envelope("dev", "implement_task", task_id=None))
    assert request_problems(envelope("dev", "implement_task")) == []


def test_status_not_allowed_for_the_mode_fails() -> None:
    data = good("cto", "spec_intake_and_normalize")
    data["status"] = "QA_PASS"
    assert "status" in gates("cto", "spec_intake_and_normalize", data)


def test_empty_summary_fails() -> None:
    data = good("engineer", "generate_engineering_docs")
    data["summary"] = "  "
    assert gates("engineer", "generate_engineering_docs", data) == ["summary"]


def test_ok_without_evidence_is_refused() -> None:
    data = good("engineer", "generate_engineering_docs")
    data["evidence"] = []
    assert gates("engineer", "generate_engineering_docs", data) == ["evidence"]


QUESTIONS_DOC = [{"path": "docs/dev/questions_TSK-001.md", "content": "# Questions\n"}]


@pytest.mark.parametrize("count", [1, 7])
def test_needs_info_with_1_to_7_questions_passes(count: int) -> None:
    data = {
        "status": "NEEDS_INFO",
        "summary": "Which database?",
        "artifacts": QUESTIONS_DOC,
        "next_actions": {"owner": "pm", "questions": [f"q{i}?" for i in range(count)]},
    }
    assert gates("dev", "implement_task", data) == []


@pytest.mark.parametrize("count", [0, 8])
def test_needs_info_without_1_to_7_questions_fails(count: int) -> None:
    data = {
        "status": "NEEDS_INFO",
        "summary": "Which database?",
        "artifacts": QUESTIONS_DOC,
        "next_actions": {"owner": "pm", "questions": [f"q{i}?" for i in range(count)]},
    }
    assert gates("dev", "implement_task", data) == ["questions"]


def test_a_deliverable_reply_without_artifacts_fails() -> None:
    data = good("pm", "generate_backlog")
    data["artifacts"] = []
    assert "artifacts" in gates("pm", "generate_backlog", data)


def test_a_blocked_reply_without_artifacts_fails() -> None:
    data = {"status": "BLOCKED", "summary": "The spec contradicts itself on auth."}
    assert gates("pm", "generate_backlog", data) == ["artifacts"]


def test_a_blocked_reply_need_not_carry_the_modes_files() -> None:
    data = {
        "status": "BLOCKED",
        "summary": "The spec contradicts itself on auth.",
        "artifacts": [{"path": "docs/pm/blocked.md", "content": "FR-01 vs FR-04"}],
    }
    assert gates("pm", "generate_backlog", data) == []


def test_the_same_path_twice_fails() -> None:
    data = good("dev", "implement_task")
    data["artifacts"].append({"path": "apps/api/todos.py", "content": "x = 1\n"})
    assert gates("dev", "implement_task", data) == ["artifacts"]


@pytest.mark.parametrize(
    "path",
    [
        "/etc/passwd",
        "apps/../../etc/passwd",
        "~/notes.md",
        "apps\\api\\todos.py",
        "apps/api/todo\x00s.py",
        "C:/apps/x.py",
        "src/main.py",
        "apps//x.py",
        "docs/monitor/STATUS.md",
    ],
    ids=[
        "absolute",
        "dotdot",
        "tilde",
        "backslash",
        "nul",
        "drive",
        "outside",
        "empty-segment",
        "monitor-files",
    ],
)
def test_refused_paths_are_reported(path: str) -> None:
    data = good("dev", "implement_task")
    data["artifacts"].append({"path": path, "content": "x = 1\n"})
    found = check_reply(envelope("dev", "implement_task"), reply(data))
    assert [v.gate for v in found] == ["path_policy"]
    assert repr(path) in found[0].message


# --- CTO spec_intake_and_normalize --------------------------------------------------------

SPEC_MODE = ("cto", "spec_intake_and_normalize")


def test_spec_missing_fails() -> None:
    data = good(*SPEC_MODE)
    data["artifacts"] = [{"path": "docs/spec/OTHER.md", "content": SPEC}]
    assert gates(*SPEC_MODE, data) == ["required_artifact"]


def test_spec_without_section_7_fails() -> None:
    data = with_artifact(
        good(*SPEC_MODE),
        "docs/spec/PRODUCT_SPEC.md",
        SPEC.replace("## 7 Constraints", "## Constraints"),
    )
    assert gates(*SPEC_MODE, data) == ["spec_sections"]
    assert "## 7" in messages(*SPEC_MODE, data)


def test_spec_sections_inside_code_fences_do_not_count() -> None:
    fenced = SPEC.replace("## 9 Open questions\nUNKNOWN", "```\n## 9 Open questions\n```")
    data = with_artifact(good(*SPEC_MODE), "docs/spec/PRODUCT_SPEC.md", fenced)
    assert gates(*SPEC_MODE, data) == ["spec_sections"]


def test_spec_empty_section_needs_tbd_or_unknown() -> None:
    data = with_artifact(
        good(*SPEC_MODE),
        "docs/spec/PRODUCT_SPEC.md",
        SPEC.replace("## 5 Data\nUNKNOWN", "## 5 Data\n"),
    )
    assert gates(*SPEC_MODE, data) == ["spec_sections"]
    assert "TBD or UNKNOWN" in messages(*SPEC_MODE, data)


def test_spec_without_fr_fails() -> None:
    content = SPEC.replace("FR-01", "req one").replace("FR-02", "req two")
    data = with_artifact(good(*SPEC_MODE), "docs/spec/PRODUCT_SPEC.md", content)
    assert gates(*SPEC_MODE, data) == ["spec_fr"]


def test_spec_with_only_nfr_ids_has_no_fr() -> None:
    content = re.sub(r"(?<!N)FR-0", "req ", SPEC)
    assert "NFR-01" in content
    data = with_artifact(good(*SPEC_MODE), "docs/spec/PRODUCT_SPEC.md", content)
    assert "spec_fr" in gates(*SPEC_MODE, data)


@pytest.mark.parametrize("count", [2, 5])
def test_spec_with_2_to_5_spec_raw_refs_passes(count: int) -> None:
    data = good(*SPEC_MODE)
    data["evidence"] = [{"type": "spec_ref", "ref": f"inputs.spec_raw#{i}"} for i in range(count)]
    assert gates(*SPEC_MODE, data) == []


@pytest.mark.parametrize("count", [1, 6])
def test_spec_with_too_few_or_many_spec_raw_refs_fails(count: int) -> None:
    data = good(*SPEC_MODE)
    data["evidence"] = [{"type": "spec_ref", "ref": f"inputs.spec_raw#{i}"} for i in range(count)]
    data["evidence"].append({"type": "note", "ref": "elsewhere"})
    assert gates(*SPEC_MODE, data) == ["spec_evidence"]


# --- Engineer and CTO validations -----------------------------------------------------------


def test_engineer_without_architecture_doc_fails() -> None:
    data = good("engineer", "generate_engineering_docs")
    data["artifacts"] = [a for a in data["artifacts"] if "architecture" not in a["path"]]
    assert gates("engineer", "generate_engineering_docs", data) == ["required_artifact"]
    assert "engineer_architecture.md" in messages("engineer", "generate_engineering_docs", data)


def test_engineer_with_an_empty_doc_fails() -> None:
    data = with_artifact(
        good("engineer", "generate_engineering_docs"),
        "docs/engineer/engineer_dependencies.md",
        "\n  \n",
    )
    assert gates("engineer", "generate_engineering_docs", data) == ["required_artifact"]


@pytest.mark.parametrize("mode", ["validate_engineer_docs", "validate_backlog"])
def test_cto_validation_without_its_doc_fails(mode: str) -> None:
    data = good("cto", mode)
    data["artifacts"] = [{"path": "docs/cto/notes.md", "content": "fine"}]
    assert gates("cto", mode, data) == ["required_artifact"]


def test_cto_revision_with_the_gap_list_passes() -> None:
    data = good("cto", "validate_engineer_docs")
    data["status"] = "REVISION"
    data["next_actions"] = {"owner": "engineer", "items": ["Name the database (FR-02)."]}
    assert gates("cto", "validate_engineer_docs", data) == []


def test_cto_revision_without_the_gap_list_fails() -> None:
    data = good("cto", "validate_backlog")
    data["status"] = "REVISION"
    assert gates("cto", "validate_backlog", data) == ["revision"]


# --- PM backlog -----------------------------------------------------------------------------

PM = ("pm", "generate_backlog")


def test_backlog_at_the_wrong_path_fails() -> None:
    data = good(*PM)
    data["artifacts"] = [{"path": "docs/pm/BACKLOG.md", "content": BACKLOG}]
    assert gates(*PM, data) == ["required_artifact"]


def test_backlog_without_tasks_fails() -> None:
    data = with_artifact(good(*PM), "docs/pm/core/BACKLOG.md", "# Backlog\n\nNothing yet.\n")
    assert gates(*PM, data) == ["backlog_tasks"]


@pytest.mark.parametrize(
    ("label", "name"),
    [
        ("- Objective:", "objective"),
        ("- Scope:", "scope"),
        ("- Acceptance criteria:", "acceptance criteria"),
        ("- Expected test:", "expected test"),
        ("- Dependencies:", "dependencies"),
    ],
)
def test_backlog_task_missing_a_field_fails(label: str, name: str) -> None:
    content = BACKLOG.replace(label, "- Note:", 1)
    data = with_artifact(good(*PM), "docs/pm/core/BACKLOG.md", content)
    assert gates(*PM, data) == ["backlog_tasks"]
    text = messages(*PM, data)
    assert "TSK-001" in text
    assert name in text
    assert "TSK-002" not in text


def test_backlog_with_a_duplicate_task_id_fails() -> None:
    content = BACKLOG.replace("## TSK-002", "## TSK-001")
    data = with_artifact(good(*PM), "docs/pm/core/BACKLOG.md", content)
    assert gates(*PM, data) == ["backlog_tasks"]


# --- Dev ------------------------------------------------------------------------------------

DEV = ("dev", "implement_task")


def test_dev_explanation_only_fails() -> None:
    data = good(*DEV)
    data["artifacts"] = [a for a in data["artifacts"] if not a["path"].startswith("apps/")]
    assert gates(*DEV, data) == ["dev_apps"]


def test_dev_with_only_empty_apps_files_fails() -> None:
    data = with_artifact(good(*DEV), "apps/api/todos.py", "   \n")
    assert gates(*DEV, data) == ["dev_apps"]


def test_dev_without_the_implementation_doc_of_this_task_fails() -> None:
    data = good(*DEV)
    data["artifacts"][1]["path"] = "docs/dev/dev_implementation_TSK-999.md"
    assert gates(*DEV, data) == ["required_artifact"]
    assert f"dev_implementation_{TASK}.md" in messages(*DEV, data)


# --- QA -------------------------------------------------------------------------------------

QA = ("qa", "validate_task")


def test_qa_status_ok_saying_not_approved_is_not_a_pass() -> None:
    data = good(*QA)
    data["status"] = "OK"
    data["summary"] = "not approved"
    assert gates(*QA, data) == ["status"]
    assert "QA_FAIL, QA_PASS" in messages(*QA, data)


def test_qa_fail_is_a_valid_verdict() -> None:
    data = good(*QA)
    data["status"] = "QA_FAIL"
    data["summary"] = "FR-01 returns 500 on an empty title."
    assert gates(*QA, data) == []


@pytest.mark.parametrize("status", ["BLOCKED", "NEEDS_INFO", "FAIL"])
def test_qa_must_answer_qa_pass_or_qa_fail(status: str) -> None:
    data = good(*QA)
    data["status"] = status
    data["next_actions"] = {"questions": ["Which endpoint?"]}
    assert "status" in gates(*QA, data)


def test_qa_without_its_report_fails() -> None:
    data = good(*QA)
    data["artifacts"] = [{"path": "docs/qa/QA_REPORT.md", "content": QA_REPORT}]
    assert gates(*QA, data) == ["required_artifact"]


def test_qa_report_without_fr_mapping_fails() -> None:
    content = QA_REPORT.replace("FR-01", "the add endpoint")
    data = with_artifact(good(*QA), f"docs/qa/QA_REPORT_{TASK}.md", content)
    assert gates(*QA, data) == ["qa_report"]
    assert "FR/NFR" in messages(*QA, data)


@pytest.mark.parametrize("field", ["Steps", "Evidence", "Severity", "Recommendation"])
def test_qa_report_missing_a_field_fails(field: str) -> None:
    content = QA_REPORT.replace(f"## {field}", "## Notes")
    data = with_artifact(good(*QA), f"docs/qa/QA_REPORT_{TASK}.md", content)
    assert gates(*QA, data) == ["qa_report"]
    assert field.lower() in messages(*QA, data)
