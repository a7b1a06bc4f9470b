"""How a tool call is shown: each argument with the findings about it, the code it writes as
the diff the checks read, and hostile arguments (HTML, ANSI escapes, bidirectional overrides,
1 MB strings, 10,000 keys) shown escaped and bounded in the terminal and in markdown; and the
command line accepting a tool call (``review --action``, ``show``, ``submit``) or refusing a bad
one with one line and exit 3."""

from __future__ import annotations

import json
import re
import uuid
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import anyio
import pytest
from tool_call_samples import PICKLE_VIEW

from humangr.cli.main import main
from humangr.contracts import (
    ActionContext,
    ConsensusResult,
    Finding,
    FindingSource,
    HumanLayerReport,
    LayerID,
    LayerStatus,
    Outcome,
    Severity,
    Subjects,
    ToolCall,
    ToolKind,
    VetoLevel,
)
from humangr.engine.tool_json import pretty_json
from humangr.engine.tool_render import (
    MAX_CALL_CHARS,
    MAX_VALUE_CHARS,
    owner,
    split_findings,
    tool_call_shown,
)
from humangr.render.text import render_markdown, render_text
from humangr.render.tool import (
    MAX_CALL_LINES,
    MAX_LINE_CHARS,
    action_with_findings,
    call_summary,
    md_code,
    tool_call_lines,
)

TOKEN = "ghp_a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
HOSTILE = "<script>alert(1)</script>\x1b[2J\x1b]0;pwned\x07 abc\u202edcba \u2066x\u2069 \x00 \u2028"
_RAW = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u200b-\u200f\u2028-\u202e\u2066-\u2069]")


@pytest.fixture(autouse=True)
def no_api_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)


def finding(
    title: str,
    *,
    argument: str | None = None,
    file: str | None = None,
    line: int | None = None,
    tool: str | None = "bash",
    severity: Severity = Severity.CRITICAL,
) -> Finding:
    return Finding(
        id=f"HL4-R-x-{uuid.uuid4().hex[:6]}",
        layer_id=LayerID.HL4,
        severity=severity,
        title=title,
        description="what was found",
        file=file,
        line=line,
        source=FindingSource.RULES,
        argument=argument,
        tool=tool if argument else None,
    )


def call_action(name: str, arguments: dict[str, Any], **more: Any) -> ActionContext:
    return ActionContext(
        agent_id="a-1",
        action_type="tool_call",
        action_description="",
        tool_call=ToolCall(name=name, arguments=arguments, **more),
    )


def report_of(findings: list[Finding]) -> HumanLayerReport:
    result = ConsensusResult(
        status=LayerStatus.FAIL if findings else LayerStatus.PASS,
        veto_level=VetoLevel.STRONG if findings else VetoLevel.NONE,
        merged_findings=findings,
        agreement_ratio=1.0,
        dissent=False,
        valid_runs=0,
        planned_runs=0,
        local_only=True,
    )
    return HumanLayerReport(
        report_id="rpt-1",
        action_id="act-1",
        agent_id="a-1",
        action_hash="0" * 64,
        policy_version="p",
        outcome=Outcome.REJECTED if findings else Outcome.APPROVED,
        final_veto_level=result.veto_level,
        layer_results={LayerID.HL4: result},
        decided_at=datetime(2026, 1, 1, tzinfo=UTC),
    )


def assert_safe(text: str) -> None:
    """No control, bidirectional or invisible character reaches the output raw."""
    bad = [f"U+{ord(c):04X}" for c in _RAW.findall(text.replace("\n", ""))]
    assert not bad, bad[:10]


# --- where each finding goes --------------------------------------------------------------


@pytest.mark.parametrize(
    ("argument", "names", "expected"),
    [
        ("command", ["command", "timeout"], "command"),
        ("headers.Authorization", ["url", "headers"], "headers"),
        ("argv[2]", ["argv"], "argv"),
        ("edits[0].new_string", ["file_path", "edits"], "edits"),
        ("a.b", ["a", "a.b"], "a.b"),  # a key holding a dot is its own argument
        ("commands", ["command"], None),  # a prefix of a name is not its path
        ("missing", ["command"], None),
    ],
)
def test_a_finding_goes_under_the_top_level_argument_its_path_lies_in(
    argument: str, names: list[str], expected: str | None
) -> None:
    assert owner(argument, names) == expected


def test_findings_go_under_their_argument_the_written_file_or_the_rest() -> None:
    call = ToolCall(name="write_file", arguments={"path": "app/views.py", "content": PICKLE_VIEW})
    on_code = finding("Deserialization", argument="content", file="app/views.py", line=6)
    on_path = finding("Path outside", argument="path")
    nowhere = finding("Odd", argument="nope")
    shown = tool_call_shown(call, [on_code, on_path, nowhere])
    (written,) = shown.files
    assert written.diff.path == "app/views.py"
    assert written.argument == "content"
    assert written.findings == [on_code]
    by_name = {arg.name: arg for arg in shown.arguments}
    assert by_name["path"].findings == [on_path]
    assert by_name["content"].file == "app/views.py"
    assert by_name["content"].text == ""
    assert shown.other == [nowhere]
    assert (shown.kind, shown.kind_note) == ("file_write", "from the tool's name write_file")


def test_split_findings_keeps_diff_findings_apart() -> None:
    action = call_action("write_file", {"path": "app/views.py", "content": PICKLE_VIEW})
    ours = [finding("a", argument="content", file="app/views.py", line=6)]
    theirs = [finding("b", file="elsewhere.py"), finding("c")]
    assert split_findings(action, ours + theirs) == (ours, theirs)
    plain = ActionContext(agent_id="a", action_type="shell", action_description="d")
    assert split_findings(plain, ours) == ([], ours)


# --- bounded JSON ----------------------------------------------------------------------------


def test_pretty_json_is_the_value_when_it_fits() -> None:
    value = {"a": [1, 2.5, {"b": None, "c": True}], "d": "x\u202ey", "e": {}, "f": []}
    text, cut = pretty_json(value, 10_000)
    assert not cut
    assert json.loads(text) == value
    assert text.splitlines()[1] == '  "a": ['


def test_pretty_json_is_cut_at_the_budget_whatever_the_shape() -> None:
    many = {str(n): "<i>x</i>" for n in range(10_000)}
    deep: Any = "leaf"
    for _ in range(32):
        deep = {"k": [deep]}
    wide = [0] * 200_000
    for value in (many, deep, wide, "x" * 1_000_000):
        text, cut = pretty_json(value, 5_000)
        assert len(text) <= 5_000
        assert cut
    text, cut = pretty_json(deep, 100_000)  # 64 levels of JSON, no recursion
    assert not cut
    assert json.loads(text) == deep


# --- the terminal ---------------------------------------------------------------------------


def test_show_lays_out_each_argument_with_its_findings_under_it() -> None:
    call = ToolCall(
        name="bash",
        arguments={"command": "rm -rf ./build\nmake all", "timeout": 30, "env": {"A": [1, 2]}},
        workspace="/repo",
    )
    lines = tool_call_lines(
        call,
        [
            finding("Deletes the build cache", argument="command", line=1, tool=None),
            finding("No timeout", argument="timeout", severity=Severity.MEDIUM),
        ],
    )
    text = "\n".join(lines)
    assert lines[0] == "=== tool call bash (kind shell, from the tool's name bash)"
    assert "  workspace /repo" in lines
    at = lines.index("  argument `command` (string, 2 lines, 23 characters):")
    assert lines[at + 1].endswith(">| rm -rf ./build")  # the line the finding points at
    assert lines[at + 2].endswith(" | make all")
    assert lines[at + 3].startswith("      ^ [critical] HL4 argument `command` of bash: Deletes")
    assert lines[at + 3].endswith("(line 1) (rules)")
    assert "  argument `timeout` (number): 30" in lines
    assert "argument `timeout` of bash: No timeout" in text
    assert '  "A": [' in text


def test_show_gives_the_written_code_as_its_diff_with_the_finding_at_its_line() -> None:
    action = call_action("write_file", {"path": "app/views.py", "content": PICKLE_VIEW})
    bad = finding("Deserialization of request input", argument="content", file="app/views.py")
    bad = Finding(**{**_fields(bad), "line": 6, "tool": "write_file"})
    lines = action_with_findings(action, [bad, finding("Unrelated")])
    header = next(line for line in lines if line.startswith("=== app/views.py"))
    assert header == "=== app/views.py (new file), written by argument `content` of write_file"
    at = next(i for i, line in enumerate(lines) if "Deserialization" in line)
    assert "pickle.loads(request.data)" in lines[at - 1]
    assert "  argument `content` (string, 7 lines, 156 characters): written as app/views.py" in (
        "\n".join(lines)
    )
    rest = lines.index("=== findings about no argument of the call")
    assert "Unrelated" in lines[rest + 1]
    assert rest > at


def _fields(f: Finding) -> dict[str, Any]:
    return {name: getattr(f, name) for name in f.__struct_fields__}


def test_a_tool_call_with_a_diff_shows_both() -> None:
    action = ActionContext(
        agent_id="a",
        action_type="tool_call",
        action_description="d",
        code_diff="--- a/x.py\n+++ b/x.py\n@@ -1 +1 @@\n-a = 1\n+a = 2\n",
        tool_call=ToolCall(name="bash", arguments={"command": "pytest"}),
    )
    lines = action_with_findings(action, [finding("on the diff", file="x.py", line=1)])
    assert lines[0].startswith("=== tool call bash")
    assert "=== x.py (modified)" in lines
    assert any("on the diff" in line for line in lines)


def hostile_call() -> ToolCall:
    return ToolCall(
        name="bash",
        arguments={
            "command": HOSTILE,
            "huge": "A" * 1_000_000,
            "lines": "\n".join(f"line {n} {HOSTILE}" for n in range(5_000)),
            "many": {f"{HOSTILE}{n}": HOSTILE for n in range(10_000)},
            HOSTILE[:60]: [HOSTILE] * 100,
        },
        workspace="/w\u202e",
    )


def test_a_hostile_call_is_escaped_and_bounded_in_the_terminal() -> None:
    call = hostile_call()
    findings = [finding(HOSTILE, argument=name) for name in call.arguments]
    lines = tool_call_lines(call, findings)
    text = "\n".join(lines)
    assert_safe(text)
    assert "\\x1b[2J" in text
    assert "\\u202e" in text
    assert "<script>" in text
    values = [line for line in lines if re.match(r"^\s+(\d+\s+)?[ >]\| ", line)]
    assert len(values) <= MAX_CALL_LINES
    assert max(len(line) for line in lines) < MAX_LINE_CHARS + 400
    assert len(text) < 1_000_000
    assert "more lines not shown" in text
    assert "cut to fit" in text
    summary = "\n".join(call_summary(call))
    assert_safe(summary)
    assert len(summary) < 5_000


def test_a_hostile_call_is_escaped_and_bounded_for_display() -> None:
    shown = tool_call_shown(hostile_call(), [])
    total = sum(len(arg.text) for arg in shown.arguments)
    assert total <= MAX_CALL_CHARS
    assert all(len(arg.text) <= MAX_VALUE_CHARS for arg in shown.arguments)
    assert all(arg.text.count("\n") < 2_000 for arg in shown.arguments)
    huge = next(arg for arg in shown.arguments if arg.name == "huge")
    assert huge.clipped
    assert huge.total == 1_000_000
    assert huge.folded
    assert len(huge.preview) < 400


def test_the_decision_text_names_the_argument_and_shows_the_call() -> None:
    action = call_action("bash", {"command": HOSTILE, "timeout": 5}, kind=ToolKind.SHELL)
    report = report_of([finding("recursive delete of /", argument="command")])
    text = render_text("act-1", report, "local checks only", action)
    assert "  tool call bash (kind shell, as the call gives it)" in text
    assert "    timeout: 5" in text
    assert "[critical] argument `command` of bash: recursive delete of / (rules)" in text
    assert_safe(text)
    without = render_text("act-1", report, "local checks only")
    assert "tool call" not in without
    assert "argument `command` of bash: recursive delete of /" in without


def test_markdown_shows_the_call_as_code_and_escapes_titles() -> None:
    action = call_action("bash", {"command": "echo ``` `x`", "note": HOSTILE})
    report = report_of([finding("<img src=x onerror=alert(1)>", argument="command")])
    text = render_markdown("act-1", report, "note", action)
    assert "Tool call `bash`, kind shell, from the tool's name bash:" in text
    assert "- `command`: ```` echo ``` `x` ````" in text
    assert "argument `command` of bash: &lt;img src=x onerror=alert(1)&gt;" in text
    assert "<img" not in text
    assert "- `note`: `<script>alert(1)</script>\\x1b[2J" in text  # in a code span: literal
    assert_safe(text)


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("bash", "`bash`"),
        ("a`b", "``a`b``"),
        ("`x`", "`` `x` ``"),
        ("\x1b[0m", "`\\x1b[0m`"),
    ],
)
def test_md_code_fences_with_more_backticks_than_the_text_holds(text: str, code: str) -> None:
    assert md_code(text) == code


# --- the command line -------------------------------------------------------------------------


def write_action(path: Path, tool_call: Any, description: str = "") -> Path:
    body = {"agent_id": "cli", "action_type": "tool_call", "action_description": description}
    path.write_text(json.dumps({**body, "tool_call": tool_call}))
    return path


def test_review_action_with_a_tool_call_names_the_argument(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    call = {"name": "write_file", "arguments": {"path": "app/views.py", "content": PICKLE_VIEW}}
    source = write_action(tmp_path / "write.json", call)
    assert main(["review", "--action", str(source), "--llm", "none"]) == 2
    out = capsys.readouterr().out
    assert "REJECTED" in out
    assert "  tool call write_file (kind file_write, from the tool's name write_file)" in out
    assert "    content: written as app/views.py (7 lines, 156 characters)" in out
    assert "argument `content` of write_file: Deserialization of request input" in out
    assert "(app/views.py:6)" in out
    assert main(["review", "--action", str(source), "--llm", "none", "--format", "markdown"]) == 2
    assert "Tool call `write_file`" in capsys.readouterr().out


def test_review_action_of_a_hostile_call_prints_it_escaped(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    call = {"name": "http_request", "arguments": {"url": "https://example.com", "x": HOSTILE}}
    source = write_action(tmp_path / "hostile.json", call)
    main(["review", "--action", str(source), "--llm", "none"])
    out = capsys.readouterr().out
    assert_safe(out)
    assert "\\x1b[2J" in out


def deep(levels: int) -> Any:
    value: Any = "x"
    for _ in range(levels):
        value = [value]
    return value


@pytest.mark.parametrize(
    ("tool_call", "fragments"),
    [
        ({"name": "rm -rf", "arguments": {}}, ["$.tool_call.name", "a tool's name is"]),
        ({"name": "bash", "arguments": ["ls"]}, ["$.tool_call.arguments", "Expected `object`"]),
        ({"name": "bash", "arguments": {"c": deep(33)}}, ["nests deeper than 32 levels"]),
        ({"name": "bash", "arguments": {"c": "x" * 1_000_001}}, ["the limit is 1,000,000"]),
        ({"name": "bash", "arguments": {"c": "ls"}, "kind": "rocket"}, ["$.tool_call.kind"]),
        ({"name": "bash", "argv": ["ls"]}, ["unknown field $.tool_call.argv", "name, arguments"]),
        ({"name": "bash", "arguments": {"": 1}}, ["$.tool_call.arguments"]),
        ({"name": "bash", "arguments": {str(n): n for n in range(257)}}, ["length <= 256"]),
    ],
    ids=["name", "array", "depth", "size", "kind", "unknown-field", "empty-key", "keys"],
)
def test_a_bad_tool_call_is_refused_with_one_line_and_exit_3(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], tool_call: Any, fragments: list[str]
) -> None:
    source = write_action(tmp_path / "bad.json", tool_call, description="try it")
    assert main(["review", "--action", str(source), "--llm", "none"]) == 3
    captured = capsys.readouterr()
    assert captured.out == ""
    (line,) = captured.err.strip().splitlines()
    assert line.startswith(f"humangr review: {source}: ")
    for fragment in fragments:
        assert fragment in line, line
    assert len(line) < 2_000


def test_show_lays_out_a_stored_tool_call_review(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    script = tmp_path / "llm.jsonl"
    flagged = {"severity": "high", "title": "Deletes the shared cache", "argument": "command"}
    script.write_text(
        '{"match": {}, "json": {"findings": []}}\n'
        + json.dumps({"match": {"layer": "HL2"}, "json": {"findings": [flagged]}})
        + "\n"
    )
    call = {"name": "bash", "arguments": {"command": "rm -rf ./cache\nmake", "timeout": 9}}
    source = write_action(tmp_path / "call.json", call, description="clean the cache")
    state = str(tmp_path / "state.db")
    review = ["review", "--action", str(source), "--llm", f"scripted:{script}", "--state", state]
    assert main(review) == 1
    out = capsys.readouterr().out
    action_id = re.search(r"action (act-[0-9a-f]+)", out)
    assert action_id is not None, out
    assert main(["show", action_id.group(1), "--state", state]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert "=== tool call bash (kind shell, from the tool's name bash)" in lines
    at = lines.index("  argument `command` (string, 2 lines, 19 characters):")
    assert lines[at + 3].startswith("      ^ [high] HL2 argument `command` of bash: Deletes")
    assert "  argument `timeout` (number): 9" in lines
    assert not any("(no diff" in line for line in lines)


def test_submit_refuses_a_bad_tool_call_before_connecting(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = write_action(tmp_path / "bad.json", {"name": "bash", "arguments": {"c": deep(40)}})
    nowhere = "nats://127.0.0.1:9"
    assert main(["submit", str(source), "--nats", nowhere, "--timeout", "1"]) == 3
    (line,) = capsys.readouterr().err.strip().splitlines()
    assert "nests deeper than 32 levels" in line


@pytest.mark.anyio
@pytest.mark.nats
async def test_submit_sends_a_tool_call_and_its_decision_names_the_argument(
    nats_url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from humangr.actors.roles import run_engine
    from humangr.engine.bus.nats import NatsBus

    headers = {"Authorization": f"token {TOKEN}"}
    call = {
        "name": "http_request",
        "arguments": {"url": "https://example.com/hook", "headers": headers},
    }
    source = write_action(tmp_path / "call.json", call, description="post a hook")
    prefix = f"tc{uuid.uuid4().hex[:8]}"
    bus = await NatsBus.connect(nats_url)
    try:
        async with run_engine(bus=bus, subjects=Subjects(prefix)) as engine:
            args = ["submit", str(source), "--nats", nats_url, "--prefix", prefix, "--wait"]
            args += ["--public-key", engine.public_key]
            args += ["--format", "json", "--timeout", "20"]
            with anyio.fail_after(30):
                code = await anyio.to_thread.run_sync(main, args)
            assert code == 2
            decision = json.loads(capsys.readouterr().out)
    finally:
        await bus.close()
    (secret,) = decision["layer_results"]["HL6"]["merged_findings"]  # a token leaving its host
    assert (secret["argument"], secret["tool"]) == ("headers.Authorization", "http_request")
    assert "argument `headers.Authorization` of http_request" in decision["blocking_reasons"][0]
