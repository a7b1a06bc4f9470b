"""Every error of every command exits 3 with one line on stderr and no traceback: usage
errors, unreadable, binary, empty, oversized and invalid inputs (run as a user runs them)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_helpers import CLEAN_DIFF, assert_error, humangr

from humangr.cli.failure import run_guarded
from humangr.contracts.types import MAX_DIFF_BYTES
from humangr.standins.nats_server import free_port

ACTION = {
    "agent_id": "a",
    "action_type": "code_diff",
    "action_description": "Add a helper.",
    "code_diff": "--- a/x.py\n+++ b/x.py\n@@ -0,0 +1 @@\n+x = 1\n",
}


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        ((), "the following arguments are required: COMMAND"),
        (("frobnicate",), "invalid choice: 'frobnicate'"),
        (("review", str(CLEAN_DIFF), "--nope"), "unrecognized arguments: --nope"),
        (("review", str(CLEAN_DIFF), "--deadline", "soon"), "argument --deadline"),
        (("layers", "--format", "yaml"), "invalid choice: 'yaml'"),
        (("schema", "A", "B"), "unrecognized arguments: B"),
        (("serve",), "--nats"),
        (("submit", "--nats", "nats://127.0.0.1:1"), "sources"),
        (("watch",), "--nats"),
        (("report", "--nats", "nats://127.0.0.1:1"), "id"),
        (("bench", "--actions", "many"), "argument --actions"),
        (("mcp", "--transport", "carrier-pigeon"), "invalid choice"),
        (("pipeline",), "ACTION"),
        (("pipeline", "run", "--project", "p"), "--spec-file"),
        (("pipeline", "cancel", "p", "--reason", "r" * 20), "--reviewer"),
    ],
)
def test_usage_errors_exit_3_not_2(args: tuple[str, ...], fragment: str) -> None:
    line = assert_error(humangr(*args), fragment, "error:")
    assert "--help" in line


def test_help_still_exits_0() -> None:
    result = humangr("review", "--help")
    assert result.returncode == 0
    assert "--action" in result.stdout


def test_an_unknown_schema_name_is_an_error() -> None:
    assert_error(humangr("schema", "Nope"), "humangr schema:", "unknown message 'Nope'")


def write(path: Path, data: bytes) -> str:
    path.write_bytes(data)
    return str(path)


@pytest.mark.parametrize(
    ("name", "data", "fragments"),
    [
        ("nul.diff", b"--- a/x\n+++ b/x\n\x00\x01\x02", ("binary data", "offset 16")),
        ("latin1.diff", "+caf\xe9\n".encode("latin-1"), ("not UTF-8", "0xe9", "offset 4")),
        ("empty.diff", b"", ("empty", "no diff to review")),
        ("blank.diff", b"\n  \n\t\n", ("empty", "no diff to review")),
        ("big.diff", b"+x\n" * (MAX_DIFF_BYTES // 3 + 1), (f"limit of {MAX_DIFF_BYTES:,}",)),
        ("bin.json", b'{"agent_id": "\xff\xfe"}', ("not UTF-8", "0xff")),
        ("broken.json", b'{"agent_id": ', ("not valid JSON",)),
        ("nested.json", b"[" * 1000 + b"]" * 1000, ("invalid ActionContext",)),
        ("typo.json", json.dumps({**ACTION, "diff": ACTION["code_diff"]}).encode(), ("$.diff",)),
        ("missing.json", b'{"agent_id": "a"}', ("missing required field",)),
        (
            "nothing.json",
            json.dumps({**ACTION, "code_diff": "\n"}).encode(),
            ("code_diff is empty",),
        ),
        ("long-path.diff", b"--- a/x\n+++ b/" + b"p" * 600 + b"\n+x\n", ("$.affected_files[0]",)),
    ],
)
def test_bad_input_files(
    tmp_path: Path, name: str, data: bytes, fragments: tuple[str, ...]
) -> None:
    path = write(tmp_path / name, data)
    assert_error(humangr("review", path), "humangr review:", path, *fragments)


def test_an_unknown_field_names_its_path_and_the_known_fields(tmp_path: Path) -> None:
    path = write(tmp_path / "typo.json", json.dumps({**ACTION, "diff": "+x"}).encode())
    for args in (("review", path), ("review", "--action", path)):
        line = assert_error(humangr(*args), "unknown field $.diff")
        assert "code_diff" in line


def test_a_json_action_given_with_action_is_read_as_json_whatever_its_name(
    tmp_path: Path,
) -> None:
    path = write(tmp_path / "action.txt", json.dumps({**ACTION, "diff": "+x"}).encode())
    assert_error(humangr("review", "--action", path), "unknown field $.diff")


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        (("review", "missing.diff"), "missing.diff: no such file or directory"),
        (("review", "-", "-"), "standard input (-) is named more than once"),
        (("review", str(CLEAN_DIFF), "--layers", "HL9"), "unknown layer 'HL9'"),
        (("review", str(CLEAN_DIFF), "--llm", "gpt"), "unknown --llm"),
        (("review", str(CLEAN_DIFF), "--llm", "anthropic"), "ANTHROPIC_API_KEY"),
        (("review", str(CLEAN_DIFF), "--llm", "scripted:nope.jsonl"), "nope.jsonl"),
    ],
)
def test_review_errors(args: tuple[str, ...], fragment: str) -> None:
    assert_error(humangr(*args), fragment)


def test_directories_and_dangling_links(tmp_path: Path) -> None:
    assert_error(humangr("review", str(tmp_path)), "the directory holds no actions")
    (tmp_path / "a.diff").symlink_to(tmp_path / "gone.diff")
    assert_error(humangr("review", str(tmp_path / "a.diff")), "no such file or directory")
    write(tmp_path / "b.diff", b"@@ -1 +1 @@\n-x\n+fine\n")
    write(tmp_path / "c.diff", b"\x00")
    assert_error(humangr("review", str(tmp_path)), str(tmp_path / "c.diff"), "binary data")


def test_a_binary_llm_script_is_named(tmp_path: Path) -> None:
    script = write(tmp_path / "llm.jsonl", b"\xff\xfe{}\n")
    assert_error(humangr("review", str(CLEAN_DIFF), "--llm", f"scripted:{script}"), script)


def test_commands_that_reach_nats_fail_with_one_line() -> None:
    url = f"nats://127.0.0.1:{free_port()}"
    for args in (
        ("submit", str(CLEAN_DIFF), "--nats", url, "--wait", "--insecure-unsigned"),
        ("watch", "--nats", url, "--insecure-unsigned"),
        ("report", "some-id", "--nats", url, "--insecure-unsigned"),
        ("serve", "--nats", url, "--role", "supervisor"),
        ("mcp", "--nats", url, "--insecure-unsigned"),
        ("bench", "--bus", "nats", "--nats", url, "--actions", "1"),
    ):
        assert_error(humangr(*args), f"humangr {args[0]}:", url)


def test_pipeline_errors(tmp_path: Path) -> None:
    spec = write(tmp_path / "spec.md", b"\xff\xfe binary spec")
    run = ("pipeline", "run", "--spec-file", spec, "--project", "p", "--root", str(tmp_path))
    assert_error(humangr(*run, "--llm", "none"), "humangr pipeline run:", spec, "not UTF-8")
    empty = write(tmp_path / "empty.md", b"\n")
    run = ("pipeline", "run", "--spec-file", empty, "--project", "p", "--root", str(tmp_path))
    assert_error(humangr(*run), empty, "empty")
    missing = ("pipeline", "run", "--spec-file", str(tmp_path / "no.md"), "--project", "p")
    assert_error(humangr(*missing, "--root", str(tmp_path)), "no.md")
    assert_error(
        humangr("pipeline", "status", "nope", "--root", str(tmp_path)),
        "humangr pipeline status:",
        "no project nope",
    )
    answers = write(tmp_path / "answers.txt", b"\x00")
    unblock = ("pipeline", "unblock", "nope", "--reviewer", "a", "--reason", "r" * 20)
    assert_error(
        humangr(*unblock, "--answers-file", answers, "--root", str(tmp_path)),
        "humangr pipeline unblock:",
        answers,
        "binary",
    )


def test_an_unexpected_error_is_one_line_and_exit_3(capsys: pytest.CaptureFixture[str]) -> None:
    def broken() -> int:
        raise RuntimeError("a bug\nover two lines")

    assert run_guarded("humangr review", broken) == 3
    err = capsys.readouterr().err
    assert err == (
        "humangr review: internal error (RuntimeError: a bug; over two lines); run with -v "
        "for the traceback and report it\n"
    )


def test_errors_inside_a_task_group_are_reported_plainly(
    capsys: pytest.CaptureFixture[str],
) -> None:
    def grouped() -> int:
        raise ExceptionGroup("tasks", [ExceptionGroup("inner", [OSError(5, "I/O error")])])

    assert run_guarded("humangr serve", grouped) == 3
    assert capsys.readouterr().err == "humangr serve: I/O error\n"


def test_interrupt_exits_130() -> None:
    def interrupted() -> int:
        raise KeyboardInterrupt

    assert run_guarded("humangr watch", interrupted) == 130
