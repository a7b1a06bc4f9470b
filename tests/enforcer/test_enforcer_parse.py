"""Strict reply parsing and the markdown helpers behind the gates."""

from __future__ import annotations

import pytest

from humangr.engine.enforcer.parse import has_field, reply_problems, sections

VALID = '{"status": "OK", "summary": "done"}'


def test_exactly_one_json_object_passes() -> None:
    assert reply_problems(VALID) == []
    assert reply_problems(f"\n  {VALID}\n") == []


@pytest.mark.parametrize(
    "raw",
    [f"Sure! {VALID}", f"{VALID}\nHope this helps.", f"```json\n{VALID}\n```", f"{VALID}{VALID}"],
    ids=["prose-before", "prose-after", "markdown-fence", "two-objects"],
)
def test_text_around_the_json_is_refused(raw: str) -> None:
    assert reply_problems(raw)


def test_prose_beside_a_tool_call_is_refused() -> None:
    problems = reply_problems(VALID, "Let me think about this first.")
    assert len(problems) == 1
    assert "text outside the JSON" in problems[0]
    assert reply_problems(VALID, "  \n") == []


def test_a_json_array_is_refused() -> None:
    assert reply_problems("[1, 2]")


def test_unknown_top_level_fields_are_reported() -> None:
    problems = reply_problems('{"status": "OK", "summary": "x", "evidences": []}')
    assert len(problems) == 1
    assert "evidences" in problems[0]


def test_unknown_nested_fields_are_reported() -> None:
    raw = (
        '{"status": "OK", "summary": "x", "artifacts": [{"path": "docs/a.md", "content": "",'
        ' "body": "y"}], "next_actions": {"owner": "qa", "who": "qa"}}'
    )
    problems = reply_problems(raw)
    assert len(problems) == 2
    assert "artifacts[0]" in problems[0]
    assert "'body'" in problems[0]
    assert "next_actions" in problems[1]


def test_sections_ignore_fenced_code_and_stop_at_higher_headings() -> None:
    text = "# T\n## 0 A\nbody a\n### sub\nmore\n```\n## 1 fake\n```\n# Other\n## 1 B\nbody b\n"
    found = sections(text, 2)
    assert [s.title for s in found] == ["0 A", "1 B"]
    assert "### sub" in found[0].body
    assert "fake" in found[0].body
    assert found[1].body == "body b"


@pytest.mark.parametrize(
    "line",
    ["## Steps", "- **Steps:** run it", "Steps: run it", "1. steps to reproduce", "> *Steps*"],
)
def test_has_field_accepts_headings_and_labels(line: str) -> None:
    assert has_field(f"intro\n{line}\n", ["steps"])


def test_has_field_ignores_code_and_mid_line_mentions() -> None:
    assert not has_field("see the steps below\n```\nSteps: x\n```\n", ["steps"])
