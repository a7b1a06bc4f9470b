"""Suppressions mark local-check findings; a marked finding stays and vetoes nothing — but only the
finding the entry names: its check, its paths and the exact words it matches."""

from __future__ import annotations

import pytest
from policy_helpers import SAMPLE_KEY, call, policy

from humangr.contracts import ActionContext, LayerID, Outcome
from humangr.engine.checks import run_checks
from humangr.engine.policy import check_id, suppress
from humangr.engine.review.local import local_outcome


def docs_diff(path: str, line: str) -> ActionContext:
    diff = (
        f"diff --git a/{path} b/{path}\n--- a/{path}\n+++ b/{path}\n@@ -1,1 +1,2 @@\n"
        f" # Setup\n+{line}\n"
    )
    return ActionContext(
        agent_id="coder", action_type="code_diff", action_description="docs", code_diff=diff
    )


def reviewed(action: ActionContext, text: str | None = None) -> tuple[Outcome, list[str]]:
    findings = run_checks(action, local_only=True)
    marked, applied = suppress(policy() if text is None else policy(text), action, findings)
    outcome, _ = local_outcome(marked)
    return outcome, applied


def test_the_sample_key_in_a_docs_diff_is_suppressed_and_vetoes_nothing() -> None:
    action = docs_diff("docs/aws.md", f"export AWS_ACCESS_KEY_ID={SAMPLE_KEY}")
    findings = run_checks(action, local_only=True)
    assert local_outcome(findings)[0] is Outcome.REJECTED
    marked, applied = suppress(policy(), action, findings)
    assert applied == ["aws-doc-sample-key"]
    (secret,) = [f for f in marked[LayerID.HL4] if check_id(f) == "secret"]
    assert secret.suppressed_by == "aws-doc-sample-key"
    assert local_outcome(marked) == (Outcome.APPROVED, [])


@pytest.mark.parametrize(
    ("path", "line"),
    [
        ("src/settings.py", f'AWS_KEY = "{SAMPLE_KEY}"'),
        ("docs/../src/settings.md", f"key {SAMPLE_KEY}"),
        ("docs/aws.md", "key AKIAZ7VQXN3LKDLR5W2P"),
        ("docs/aws.md", f"keys {SAMPLE_KEY} AKIAZ7VQXN3LKDLR5W2P"),
        ("docs/aws.md", f"keys {SAMPLE_KEY}, AKIAZ7VQXN3LKDLR5W2P."),
    ],
)
def test_what_the_entry_does_not_name_is_not_suppressed(path: str, line: str) -> None:
    assert reviewed(docs_diff(path, line)) == (Outcome.REJECTED, [])


def test_a_suppression_never_touches_another_check() -> None:
    text = '[[suppress]]\nid = "s"\ncheck = "shell*"\nmatch = "AKIA*"\nreason = "not this one"\n'
    assert reviewed(docs_diff("docs/aws.md", f"key {SAMPLE_KEY}"), text) == (Outcome.REJECTED, [])


def test_a_suppression_by_title_without_match_words() -> None:
    text = (
        '[[suppress]]\nid = "all-aws-in-docs"\ncheck = "secret"\n'
        'match = "*AWS credential*"\npaths = ["docs/**"]\nreason = "docs show examples"\n'
    )
    action = docs_diff("docs/aws.md", "key AKIAZ7VQXN3LKDLR5W2P")
    assert reviewed(action, text) == (Outcome.APPROVED, ["all-aws-in-docs"])


def test_a_tool_call_write_is_suppressed_like_a_diff() -> None:
    action = call("Write", file_path="/work/repo/docs/aws.md", content=f"key {SAMPLE_KEY}\n")
    assert reviewed(action) == (Outcome.APPROVED, ["aws-doc-sample-key"])


def test_a_suppressed_finding_is_shown_as_such_in_the_terminal_and_the_inbox() -> None:
    from humangr.inbox.app import templates
    from humangr.render.text import suppressed

    action = docs_diff("docs/aws.md", f"export AWS_ACCESS_KEY_ID={SAMPLE_KEY}")
    marked, _ = suppress(policy(), action, run_checks(action, local_only=True))
    (finding,) = [f for f in marked[LayerID.HL4] if f.suppressed_by]
    line = suppressed(finding)
    assert line == " — suppressed by aws-doc-sample-key: AWS's documented example key"
    macro = '{% from "finding.html" import finding %}{{ finding(f) }}'
    html = templates().from_string(macro).render(f=finding)
    assert "Suppressed by the policy (aws-doc-sample-key)" in html
    assert "AWS&#39;s documented example key" in html
    assert SAMPLE_KEY not in html
