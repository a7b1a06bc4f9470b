"""How ``humangr show`` and ``reviews`` lay a review out: each finding under the line it points
at, the rest after its file or at the end, and nothing an agent wrote reaching the terminal
raw."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from humangr.contracts import (
    ActionContext,
    Finding,
    FindingSource,
    LayerID,
    ReviewListing,
    ReviewSummary,
    Severity,
)
from humangr.render.diff import diff_with_findings, printable
from humangr.render.text import render_listing, span

TWO_FILES = """\
diff --git a/app/a.py b/app/a.py
--- a/app/a.py
+++ b/app/a.py
@@ -3,3 +3,3 @@ def f():
     x = 1
-    y = 2
+    y = 3
     return x + y
diff --git a/tests/test_a.py b/tests/test_a.py
--- a/tests/test_a.py
+++ b/tests/test_a.py
@@ -1,6 +1,3 @@
 import app
-def test_one():
-    assert app.f() == 3
-
 def test_two():
     pass
"""


def finding(
    title: str,
    file: str | None = None,
    line: int | None = None,
    *,
    id_: str = "HL2-1",
    layer: LayerID = LayerID.HL2,
) -> Finding:
    return Finding(
        id=id_,
        layer_id=layer,
        severity=Severity.HIGH,
        title=title,
        file=file,
        line=line,
        source=FindingSource.RULES,
    )


def action(diff: str | None, files: list[str] | None = None) -> ActionContext:
    return ActionContext(
        agent_id="a-1",
        action_type="code_diff" if diff else "shell",
        action_description="d",
        code_diff=diff,
        affected_files=files or [],
    )


def under(lines: list[str], text: str) -> str:
    """The diff line just above the finding line that contains ``text``."""
    at = next(i for i, line in enumerate(lines) if text in line)
    assert "^ [high]" in lines[at], lines[at]
    return lines[at - 1]


def test_each_finding_is_under_its_line_in_its_file() -> None:
    findings = [
        finding("changed value", "app/a.py", 4),
        finding("context line", "b/app/a.py", 3),
        finding("in the test file", "tests/test_a.py", 2),
    ]
    lines = diff_with_findings(action(TWO_FILES), findings)
    assert lines[0] == "=== app/a.py (modified)"
    assert under(lines, "changed value").endswith("+    y = 3")
    assert under(lines, "context line").endswith("     x = 1")
    assert under(lines, "in the test file").endswith(" def test_two():")
    assert lines.index("=== tests/test_a.py (modified)") < lines.index(
        next(line for line in lines if "in the test file" in line)
    )


def test_a_line_number_on_both_sides_goes_to_the_new_side_but_deleted_tests_to_the_old() -> None:
    findings = [
        finding("new side", "tests/test_a.py", 2),
        finding("a test was deleted", "tests/test_a.py", 2, id_="HL2-R-deleted-test-1"),
    ]
    lines = diff_with_findings(action(TWO_FILES), findings)
    assert under(lines, "new side").split()[:3] == ["5", "2", "def"]
    assert under(lines, "a test was deleted").split()[:2] == ["2", "-def"]


def test_findings_at_no_line_follow_their_file_and_the_rest_come_last() -> None:
    findings = [
        finding("nowhere in particular"),
        finding("whole file", "app/a.py"),
        finding("line outside the hunks", "app/a.py", 90),
        finding("another file", "lib/other.py", 7),
    ]
    lines = diff_with_findings(action(TWO_FILES), findings)
    loose = lines.index("  findings on app/a.py at no line of the diff:")
    assert "whole file" in lines[loose + 1]
    assert lines[loose + 2].endswith("line outside the hunks (rules) (line 90)")
    assert lines[loose + 3] == "=== tests/test_a.py (modified)"
    end = lines.index("=== findings about no file of the diff")
    assert lines[end + 1:] == [
        "    [high] HL2 nowhere in particular (rules)",
        "    [high] HL2 another file (lib/other.py:7) (rules)",
    ]  # fmt: skip


@pytest.mark.parametrize(
    ("subject", "diff", "note"),
    [
        (None, None, "(no action stored)"),
        (action(None), None, "(no diff: the action is its description)"),
    ],
)
def test_without_a_diff_every_finding_is_listed(
    subject: ActionContext | None, diff: None, note: str
) -> None:
    lines = diff_with_findings(subject, [finding("f", "x.py", 3)])
    assert lines == [
        note,
        "=== findings about no file of the diff",
        "    [high] HL2 f (x.py:3) (rules)",
    ]


def test_content_that_is_no_diff_is_one_new_file_numbered_from_one() -> None:
    lines = diff_with_findings(
        action("print(1)\nprint(2)\n", ["tool.py"]), [finding("second", "tool.py", 2)]
    )
    assert lines[0] == "=== tool.py (new file)"
    assert under(lines, "second").split() == ["2", "+print(2)"]


def test_binary_and_renamed_files_say_so() -> None:
    diff = (
        "diff --git a/logo.png b/logo.png\nBinary files a/logo.png and b/logo.png differ\n"
        "diff --git a/old.py b/new.py\nsimilarity index 90%\nrename from old.py\n"
        "rename to new.py\n--- a/old.py\n+++ b/new.py\n@@ -1 +1 @@\n-a = 1\n+a = 2\n"
    )
    lines = diff_with_findings(action(diff), [finding("value changed", "old.py", 1)])
    assert "=== logo.png (modified)" in lines
    assert "    (binary file: its content is not shown)" in lines
    assert "=== new.py (renamed from old.py)" in lines
    assert under(lines, "value changed").endswith("+a = 2")


HOSTILE = "\x1b[2J\x1b[31mfine\rOK\u202egnp.exe\u200b\x07"


def test_nothing_an_agent_wrote_reaches_the_terminal_raw() -> None:
    diff = f"--- a/x.py\n+++ b/x.py\n@@ -1 +1 @@\n-a\n+b = '{HOSTILE}'\n"
    lines = diff_with_findings(
        action(diff, ["x.py"]), [finding(f"title {HOSTILE}", "x.py", 1), finding(HOSTILE)]
    )
    text = "\n".join(lines)
    for raw in ("\x1b", "\r", "\u202e", "\u200b", "\x07"):
        assert raw not in text
    assert "\\x1b[2J\\x1b[31mfine\\x0dOK\\u202egnp.exe\\u200b\\x07" in text
    assert printable("tab\tand é 日本") == "tab\tand é 日本"
    assert printable("a\nb") == "a\\x0ab"


def summary(**overrides: object) -> ReviewSummary:
    now = datetime(2030, 1, 1, 12, tzinfo=UTC)
    fields: dict[str, object] = {
        "action_id": "act-1",
        "agent_id": "agent-7",
        "action_type": "code_diff",
        "action_description": "first line\nsecond line",
        "report_id": "rpt-1",
        "action_hash": "0" * 64,
        "blocking_reasons": ["HL5 performance: medium veto", f"HL2 {HOSTILE}"],
        "findings": 1,
        "decided_at": now - timedelta(minutes=90),
        "deadline": now + timedelta(hours=3, minutes=5),
    }
    fields.update(overrides)
    return ReviewSummary(**fields)  # type: ignore[arg-type]


def test_the_list_shows_age_time_left_and_every_reason() -> None:
    now = datetime(2030, 1, 1, 12, tzinfo=UTC)
    late = summary(action_id="act-2", findings=2, deadline=now - timedelta(seconds=40))
    text = render_listing(ReviewListing(reviews=[summary(), late]), "via nats://x", now=now)
    assert text.splitlines() == [
        "2 reviews pending via nats://x, oldest deadline first",
        "act-1  agent agent-7  code_diff  1 finding  age 1h30m  3h05m left",
        "  first line",
        "  ! HL5 performance: medium veto",
        f"  ! HL2 {printable(HOSTILE)}",
        "act-2  agent agent-7  code_diff  2 findings  age 1h30m  overdue by 40s",
        "  first line",
        "  ! HL5 performance: medium veto",
        f"  ! HL2 {printable(HOSTILE)}",
    ]
    assert render_listing(ReviewListing(), "in s.db") == "no reviews pending in s.db"


@pytest.mark.parametrize(
    ("seconds", "shown"),
    [(-5, "0s"), (59.9, "59s"), (60, "1m"), (3599, "59m"), (3600, "1h00m"), (90061, "1d01h")],
)
def test_span(seconds: float, shown: str) -> None:
    assert span(seconds) == shown
