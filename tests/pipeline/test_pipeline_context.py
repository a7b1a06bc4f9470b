"""The pipeline Supervisor's pure helpers: envelopes with excerpts, review diffs, targets."""

from __future__ import annotations

from humangr.contracts import (
    AgentName,
    AgentResult,
    NextActions,
    ResponseEnvelope,
    ResponseStatus,
    WorkOrder,
)
from humangr.engine.checks import parse_diff
from humangr.engine.pipeline.context import (
    EXCERPT_CHARS,
    build_envelope,
    handoff_report,
    handoff_target,
    relevant_paths,
    review_diff,
)

FILES = {
    "docs/spec/PRODUCT_SPEC.md": "# Spec\nFR-01",
    "docs/engineer/engineer_architecture.md": "# Architecture\n" + "x" * (EXCERPT_CHARS + 50),
    "docs/pm/core/BACKLOG.md": "# Backlog",
    "apps/app/main.py": "print('hi')\n",
}


def order(mode: str, agent: AgentName = AgentName.DEV, **inputs: str) -> WorkOrder:
    return WorkOrder(
        order_id="wo-1", project_id="p", agent=agent, mode=mode, task_id="TSK-1", inputs=inputs
    )


def result(
    mode: str,
    status: ResponseStatus,
    next_actions: NextActions | None = None,
) -> AgentResult:
    envelope = ResponseEnvelope(
        status=status, summary="s", next_actions=next_actions or NextActions()
    )
    return AgentResult(
        request_id="wo-1-1",
        project_id="p",
        agent=AgentName.CTO,
        mode=mode,
        envelope=envelope,
        validator_pass=True,
    )


def test_the_dev_gets_its_code_refs_and_the_docs_its_mode_needs_keyed_by_path() -> None:
    dev = order("implement_task", code_refs="apps/app/main.py\napps/gone.py")
    relevant = relevant_paths(dev, list(FILES))
    assert relevant == [
        "apps/app/main.py",
        "docs/spec/PRODUCT_SPEC.md",
        "docs/engineer/engineer_architecture.md",
    ]
    envelope = build_envelope(
        dev, request_id="wo-1-1", files=FILES, relevant=relevant, extra={"write_error": "bad path"}
    )
    assert envelope.inputs["apps/app/main.py"] == "print('hi')\n"
    assert envelope.inputs["docs/engineer/engineer_architecture.md"].endswith("… (truncated)")
    assert envelope.inputs["write_error"] == "bad path"
    assert "docs/pm/core/BACKLOG.md" not in envelope.inputs
    assert [r.path for r in envelope.existing_artifacts][:3] == relevant
    assert {r.path for r in envelope.existing_artifacts} == set(FILES)
    assert envelope.existing_artifacts[0].summary.startswith("print('hi')")


def test_the_review_diff_is_a_git_diff_the_checks_can_read() -> None:
    diff = review_diff(
        [("apps/new.py", "a = 1\nb = 2\n"), ("apps/old.py", "x = 2\n")],
        {"apps/old.py": "x = 1\n"},
    )
    parsed = parse_diff(diff)
    by_path = {f.path: f for f in parsed.files}
    assert by_path["apps/new.py"].new_file
    assert [line.text for line in by_path["apps/new.py"].added] == ["a = 1", "b = 2"]
    assert [line.text for line in by_path["apps/old.py"].removed] == ["x = 1"]
    assert review_diff([("apps/same.py", "s\n")], {"apps/same.py": "s\n"}) == ""


def test_handoff_targets_and_reports() -> None:
    revision = result(
        "validate_engineer_docs",
        ResponseStatus.REVISION,
        next_actions=NextActions(items=["add error handling"]),
    )
    assert handoff_target(revision) is AgentName.ENGINEER
    assert (
        handoff_report(order("validate_engineer_docs", AgentName.CTO), revision)
        == "- add error handling"
    )
    asks = result(
        "generate_backlog",
        ResponseStatus.NEEDS_INFO,
        next_actions=NextActions(owner="CTO", questions=["which squad?"]),
    )
    assert handoff_target(asks) is AgentName.CTO
    assert handoff_target(result("validate_task", ResponseStatus.QA_PASS)) is AgentName.MONITOR
    assert handoff_target(result("validate_task", ResponseStatus.QA_FAIL)) is AgentName.DEV
