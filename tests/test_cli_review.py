"""``humangr review`` and ``humangr layers`` as a user runs them."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from humangr.cli.main import main

EXAMPLES = Path(__file__).resolve().parents[1] / "examples" / "actions"


@pytest.fixture(autouse=True)
def no_api_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)


@pytest.mark.parametrize(
    ("example", "code", "outcome"),
    [
        ("01-clean-refactor.diff", 0, "APPROVED"),
        ("02-hardcoded-key-and-shell.diff", 2, "REJECTED"),
        ("03-sql-from-request.json", 2, "REJECTED"),
        ("04-blocking-call-in-async.diff", 2, "REJECTED"),
    ],
)
def test_exit_code_follows_the_outcome(
    example: str, code: int, outcome: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["review", str(EXAMPLES / example)]) == code
    out = capsys.readouterr().out
    assert f": {outcome}" in out
    assert "no LLM configured: local checks only" in out


def test_sql_from_request_input_is_named_in_the_blocking_reason(
    capsys: pytest.CaptureFixture[str],
) -> None:
    main(["review", str(EXAMPLES / "03-sql-from-request.json")])
    out = capsys.readouterr().out
    assert "HL4 security: strong veto (local checks only) — SQL built from request input" in out
    assert "(app/users.py:16)" in out


def test_json_format_is_the_decision_contract(capsys: pytest.CaptureFixture[str]) -> None:
    assert (
        main(["review", str(EXAMPLES / "02-hardcoded-key-and-shell.diff"), "--format", "json"]) == 2
    )
    report = json.loads(capsys.readouterr().out)
    assert report["outcome"] == "rejected"
    lines = {f["line"] for f in report["layer_results"]["HL4"]["merged_findings"]}
    assert {3, 9} <= lines


def test_markdown_and_layers_option(capsys: pytest.CaptureFixture[str]) -> None:
    args = ["review", str(EXAMPLES / "01-clean-refactor.diff"), "--format", "markdown"]
    assert main([*args, "--layers", "HL4,hl6"]) == 0
    out = capsys.readouterr().out
    assert "**approved**" in out
    assert "| HL4 security |" in out
    assert "HL1" not in out


def test_stdin_and_scripted_llm(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    script = tmp_path / "llm.jsonl"
    script.write_text(
        '{"match": {}, "json": {"findings": []}}\n'
        '{"match": {"layer": "HL2"}, "json": {"findings": [{"severity": "high",'
        ' "title": "Wrong total"}]}}\n'
    )
    diff = (EXAMPLES / "01-clean-refactor.diff").read_text()
    monkeypatch.setattr("sys.stdin", io.StringIO(diff))
    assert main(["review", "-", "--llm", f"scripted:{script}"]) == 1
    out = capsys.readouterr().out
    assert "NEEDS_REVIEW" in out
    assert "Wrong total" in out
    assert "LLM: ScriptedLLM" in out


def test_whole_examples_directory_with_exit_zero(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["review", str(EXAMPLES), "--exit-zero"]) == 0
    out = capsys.readouterr().out
    assert out.count("report rpt-") == 4


def test_errors_exit_3_with_a_clear_message(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["review", str(tmp_path / "missing.diff")]) == 3
    assert "no such file or directory" in capsys.readouterr().err
    assert main(["review", str(EXAMPLES / "01-clean-refactor.diff"), "--layers", "HL9"]) == 3
    assert "unknown layer 'HL9'" in capsys.readouterr().err
    assert main(["review", str(EXAMPLES / "01-clean-refactor.diff"), "--llm", "gpt"]) == 3
    assert "unknown --llm" in capsys.readouterr().err
    bad = tmp_path / "bad.json"
    bad.write_text('{"agent_id": "a"}')
    assert main(["review", str(bad)]) == 3
    assert "missing required field" in capsys.readouterr().err


def test_anthropic_without_a_key_is_a_clear_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["review", str(EXAMPLES / "01-clean-refactor.diff"), "--llm", "anthropic"]) == 3
    assert "ANTHROPIC_API_KEY" in capsys.readouterr().err


def test_layers_lists_seven_with_veto_power(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["layers", "--format", "json"]) == 0
    layers = json.loads(capsys.readouterr().out)
    assert [layer["id"] for layer in layers] == [f"HL{i}" for i in range(1, 8)]
    assert {layer["id"]: layer["veto_power"] for layer in layers}["HL4"] == "strong"
