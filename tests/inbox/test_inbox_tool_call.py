"""The review page of a tool call: its name and kind, each argument (escaped, long values folded,
nested JSON indented) with the findings under the argument they concern, the code it writes as
a diff with its findings at their lines; hostile arguments rendered inert and bounded."""

from __future__ import annotations

import html
import re
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from inbox_helpers import engine_on, needs_review, served_inbox, signed_in
from tool_call_samples import PICKLE_VIEW

from humangr.contracts import (
    ActionContext,
    ConsensusResult,
    Finding,
    FindingSource,
    HumanLayerReport,
    LayerID,
    LayerStatus,
    Outcome,
    ReviewDetail,
    Severity,
    ToolCall,
    VetoLevel,
)
from humangr.engine.llm import ScriptedLLM
from humangr.engine.tool_render import MAX_CALL_CHARS
from humangr.inbox.app import templates
from humangr.inbox.pages import review_page
from humangr.inbox.security import CSP
from humangr.inbox.sessions import Session

HOSTILE = '<script>window.__xss = 1</script><img src=x onerror="window.__xss = 2">'
CONTROL = "\x1b[2J\x1b]0;pwned\x07 abc\u202edcba"


def finding(title: str, **where: Any) -> Finding:
    return Finding(
        id=f"HL4-R-{title[:8]}",
        layer_id=LayerID.HL4,
        severity=Severity.CRITICAL,
        title=title,
        description=f"found in {where}",
        source=FindingSource.RULES,
        **where,
    )


def detail_of(call: ToolCall, findings: list[Finding], **action: Any) -> ReviewDetail:
    result = ConsensusResult(
        status=LayerStatus.FAIL,
        veto_level=VetoLevel.MEDIUM,
        merged_findings=findings,
        agreement_ratio=1.0,
        dissent=False,
        valid_runs=0,
        planned_runs=0,
        local_only=True,
    )
    now = datetime(2026, 1, 1, tzinfo=UTC)
    report = HumanLayerReport(
        report_id="rpt-1",
        action_id="act-1",
        agent_id="agent-1",
        action_hash="0" * 64,
        policy_version="p",
        outcome=Outcome.NEEDS_REVIEW,
        final_veto_level=VetoLevel.MEDIUM,
        layer_results={LayerID.HL4: result},
        decided_at=now,
    )
    context = ActionContext(
        agent_id="agent-1",
        action_type="tool_call",
        action_description="a call",
        tool_call=call,
        **action,
    )
    return ReviewDetail(
        report=report, action=context, pending=True, deadline=now + timedelta(hours=1)
    )


def render(detail: ReviewDetail) -> str:
    return (
        templates()
        .get_template("review.html")
        .render(
            view=review_page(detail),
            session=Session("s", "alice", 0),
            csrf="c",
            error="",
            reason="",
        )
    )


def section(page: str, argument: str) -> str:
    """The HTML of one argument's section."""
    start = page.index('<section class="argument')
    start = page.index(f'data-argument="{html.escape(argument)}"', start)
    return page[start : page.index("</section>", start)]


def test_each_argument_is_shown_with_the_findings_about_it() -> None:
    call = ToolCall(
        name="notify",
        workspace="/repo",
        arguments={
            "url": "https://example.com/hook",
            "headers": {"Authorization": "token x", "Accept": "*/*"},
            "retries": 3,
            "body": "line\n" * 40,
        },
    )
    on_header = finding("Secret in a header", argument="headers.Authorization", line=1)
    on_body = finding("Personal data", argument="body", line=7)
    loose = finding("About the whole call", argument="nope")
    page = render(detail_of(call, [on_header, on_body, loose]))
    assert '<code id="tool-name">notify</code>' in page
    assert '<span id="tool-kind">http</span>' in page
    assert "from the argument `url`" in page
    headers = section(page, "headers")
    assert "Secret in a header" in headers
    assert "argument <code>headers.Authorization</code>" in headers
    assert "&#34;Authorization&#34;: &#34;token x&#34;," in headers  # indented JSON, escaped
    body = section(page, "body")
    assert "Personal data" in body
    assert '<details class="value">' in body  # 41 lines: folded behind its first ones
    assert 'class="line ctx flagged" data-line="7"' in body
    assert "show all 41 lines" in body
    retries = section(page, "retries")
    assert '<code class="inline-value">3</code>' in retries
    assert "<table" not in retries
    assert "Secret in a header" not in section(page, "url")
    orphans = page[page.index("Findings about the call that name none of its arguments") :]
    assert "About the whole call" in orphans
    assert "<h2>Diff</h2>" not in page


def test_written_code_is_shown_as_a_diff_with_the_finding_at_its_line() -> None:
    call = ToolCall(name="write_file", arguments={"path": "app/views.py", "content": PICKLE_VIEW})
    bad = finding("Deserialization", argument="content", file="app/views.py", line=6)
    page = render(detail_of(call, [bad]))
    assert "Written as <code>app/views.py</code>: shown as its diff below." in page
    diff = page[page.index('<section class="file" data-path="app/views.py">') :]
    assert "written by argument <code>content</code>" in diff
    line = diff.index('data-new="6"')
    assert diff.index("pickle.loads(request.data)", line) < diff.index("Deserialization", line)


def test_a_tool_call_with_a_diff_shows_both() -> None:
    call = ToolCall(name="bash", arguments={"command": "pytest"})
    diff = "--- a/x.py\n+++ b/x.py\n@@ -1 +1 @@\n-a = 1\n+a = 2\n"
    page = render(detail_of(call, [finding("On x", file="x.py", line=1)], code_diff=diff))
    assert "<h2>Tool call</h2>" in page
    assert "<h2>Diff</h2>" in page
    assert page.index("On x") > page.index('data-path="x.py"')


def test_a_hostile_call_is_escaped_and_bounded() -> None:
    call = ToolCall(
        name="bash",
        workspace=f"/w{HOSTILE[:40]}",
        arguments={
            HOSTILE[:100]: HOSTILE + CONTROL,
            "huge": HOSTILE * 8_000,
            "many": {f"{HOSTILE}{n}": [CONTROL, n] for n in range(10_000)},
        },
    )
    page = render(detail_of(call, [finding(HOSTILE, argument=HOSTILE[:100])]))
    main = page[page.index("<main>") :]
    assert "<script" not in main
    assert "<img" not in main
    assert "&lt;script&gt;window.__xss = 1&lt;/script&gt;" in main
    assert "\\x1b[2J" in main
    assert "\\u202e" in main
    assert not re.search(r"[\x00-\x08\x0b-\x1f\x7f\u202a-\u202e\u2066-\u2069]", page)
    tags = re.sub(r'"[^"]*"', '""', main)  # attribute values quoted and escaped: inert
    assert not re.search(r"<[^>]*\s(?:on\w+|style)=", tags)  # no handler, no inline style
    assert len(page) < MAX_CALL_CHARS * 8
    assert page.count('class="note clipped"') == 2  # huge and many are cut, and say so
    assert "Only the first 64,000 of 568,000 characters are shown here" in page


@pytest.mark.anyio
async def test_the_served_page_shows_the_call_under_the_security_headers() -> None:
    flagged = {"severity": "high", "title": "Deletes the shared cache", "argument": "command"}
    llm = ScriptedLLM.from_lines(
        [
            {"match": {}, "json": {"findings": []}},
            {"match": {"layer": "HL2"}, "json": {"findings": [flagged]}},
        ]
    )
    action = ActionContext(
        agent_id="agent-1",
        action_type="tool_call",
        action_description="clean up",
        tool_call=ToolCall(name="bash", arguments={"command": f"rm -rf ./cache # {HOSTILE}"}),
    )
    async with engine_on(llm=llm) as engine, served_inbox(engine) as served:
        report = await needs_review(engine, action)
        async with signed_in(served) as client:
            page = await client.get(f"/reviews/{report.action_id}")
    assert page.status_code == 200
    assert page.headers["content-security-policy"] == CSP
    command = section(page.text, "command")
    assert "Deletes the shared cache" in command
    assert "rm -rf ./cache # &lt;script&gt;" in command
    assert "<script>window" not in page.text
