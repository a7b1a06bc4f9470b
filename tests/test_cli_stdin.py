"""Standard input and output of ``humangr review``: what is read when, hostile stdin, a closed
output pipe and a terminal (run as subprocesses, with real pipes and a pseudo-terminal)."""

from __future__ import annotations

import os
import pty
import subprocess
import time
from pathlib import Path

import pytest
from cli_helpers import (
    CLEAN_DIFF,
    EXAMPLES,
    ROOT,
    SQL_ACTION,
    TIMEOUT,
    assert_error,
    command,
    environment,
    humangr,
)

from humangr.contracts.types import MAX_DIFF_BYTES

DIFF = CLEAN_DIFF.read_bytes()


@pytest.mark.parametrize("args", [("review", "-"), ("review",)])
def test_a_piped_diff_is_reviewed_with_or_without_dash(args: tuple[str, ...]) -> None:
    result = humangr(*args, stdin=DIFF)
    assert result.returncode == 0, result.stderr
    assert "<stdin>: APPROVED" in result.stdout


@pytest.mark.parametrize(
    ("data", "fragments"),
    [
        (b"\xff\xfe\x00\x01binary", ("<stdin>", "binary data")),
        (b"+caf\xe9\n", ("<stdin>", "not UTF-8", "0xe9")),
        (b"", ("<stdin>", "empty")),
        (b"\n\n   \n\t\n", ("<stdin>", "empty")),
        (b"+x\n" * (MAX_DIFF_BYTES // 3 + 1), ("<stdin>", f"limit of {MAX_DIFF_BYTES:,}")),
    ],
    ids=["binary", "latin-1", "nothing", "blank-lines", "oversized"],
)
@pytest.mark.parametrize("args", [("review", "-"), ("review",)], ids=["dash", "implicit"])
def test_hostile_stdin_is_an_error(
    args: tuple[str, ...], data: bytes, fragments: tuple[str, ...]
) -> None:
    assert_error(humangr(*args, stdin=data), "humangr review:", *fragments)


def test_an_oversized_stdin_fails_without_waiting_for_its_end() -> None:
    with subprocess.Popen(
        command("review", "-"),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=ROOT,
        env=environment(),
    ) as process:
        assert process.stdin is not None
        process.stdin.write(b"+" * (MAX_DIFF_BYTES + 1))
        process.stdin.flush()
        try:
            _, err = process.communicate(timeout=TIMEOUT)
        finally:
            process.kill()
    assert process.returncode == 3
    assert f"limit of {MAX_DIFF_BYTES:,}" in err.decode()


def test_action_never_reads_stdin() -> None:
    """``--action FILE`` with a stdin that stays open: the review ends all the same."""
    with subprocess.Popen(
        command("review", "--action", str(SQL_ACTION)),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=ROOT,
        env=environment(),
    ) as process:
        try:
            out, err = _wait(process)
        finally:
            process.kill()
    assert process.returncode == 2, err
    assert out.count(b": REJECTED") == 1


def _wait(process: subprocess.Popen[bytes]) -> tuple[bytes, bytes]:
    """Wait for ``process`` without closing its stdin (``communicate`` would close it)."""
    deadline = time.monotonic() + TIMEOUT
    while process.poll() is None:
        assert time.monotonic() < deadline, "the command waited for stdin"
        time.sleep(0.05)
    assert process.stdout is not None
    assert process.stderr is not None
    return process.stdout.read(), process.stderr.read()


def test_review_without_input_on_a_terminal_prints_its_usage() -> None:
    controller, terminal = pty.openpty()
    try:
        result = subprocess.run(
            command("review"),
            stdin=terminal,
            capture_output=True,
            cwd=ROOT,
            env=environment(),
            timeout=TIMEOUT,
            check=False,
        )
    finally:
        os.close(terminal)
        os.close(controller)
    err = result.stderr.decode()
    assert result.returncode == 3
    assert "Traceback" not in err
    assert err.startswith("usage: humangr review")
    assert err.strip().splitlines()[-1].startswith("humangr review: error: no input")


def test_an_explicit_dash_reads_even_a_terminal(tmp_path: Path) -> None:
    controller, terminal = pty.openpty()
    try:
        with subprocess.Popen(
            command("review", "-"),
            stdin=terminal,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=ROOT,
            env=environment(),
        ) as process:
            os.write(controller, b"+x = 1\n\x04")
            try:
                out, _ = process.communicate(timeout=TIMEOUT)
            finally:
                process.kill()
    finally:
        os.close(terminal)
        os.close(controller)
    assert b"<stdin>:" in out


def test_a_closed_output_pipe_ends_quietly() -> None:
    reader, writer = os.pipe()
    os.close(reader)
    try:
        result = subprocess.run(
            command("review", str(EXAMPLES)),
            stdin=subprocess.DEVNULL,
            stdout=writer,
            stderr=subprocess.PIPE,
            cwd=ROOT,
            env=environment(),
            timeout=TIMEOUT,
            check=False,
        )
    finally:
        os.close(writer)
    assert result.stderr == b""
    assert result.returncode == 3


def test_review_piped_into_head_ends_quietly() -> None:
    shell = f"{' '.join(command('review', str(EXAMPLES)))} | head -1"
    result = subprocess.run(
        ["bash", "-o", "pipefail", "-c", shell],
        capture_output=True,
        cwd=ROOT,
        env=environment(),
        timeout=TIMEOUT,
        check=False,
    )
    lines = result.stdout.decode().splitlines()
    assert len(lines) == 1
    assert lines[0].endswith("01-clean-refactor.diff: APPROVED (veto none)")
    assert b"Traceback" not in result.stdout + result.stderr
