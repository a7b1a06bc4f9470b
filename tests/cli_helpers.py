"""Run ``humangr`` as a user does (``python -m humangr`` in a subprocess) and check its errors."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples" / "actions"
CLEAN_DIFF = EXAMPLES / "01-clean-refactor.diff"
SQL_ACTION = EXAMPLES / "03-sql-from-request.json"
TIMEOUT = 120


def command(*args: str) -> list[str]:
    return [sys.executable, "-m", "humangr", *args]


def environment(**extra: str) -> dict[str, str]:
    """The environment of a run: no Anthropic key (local checks only) unless given."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("ANTHROPIC_")}
    return {**env, **extra}


def humangr(
    *args: str,
    stdin: bytes | None = None,
    cwd: Path | None = None,
    env: dict[str, str] | None = None,
) -> subprocess.CompletedProcess[str]:
    """``humangr ARGS`` with ``stdin`` (default: empty, not a terminal); output as text."""
    result = subprocess.run(
        command(*args),
        input=stdin if stdin is not None else b"",
        capture_output=True,
        cwd=cwd or ROOT,
        env=env or environment(),
        timeout=TIMEOUT,
        check=False,
    )
    return subprocess.CompletedProcess(
        result.args,
        result.returncode,
        result.stdout.decode("utf-8", "replace"),
        result.stderr.decode("utf-8", "replace"),
    )


def assert_error(result: subprocess.CompletedProcess[str], *fragments: str) -> str:
    """Exit 3, one line on stderr naming the command, no traceback, each fragment in it."""
    err = result.stderr
    assert result.returncode == 3, (result.returncode, result.stdout[-2000:], err[-2000:])
    assert "Traceback" not in err, err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("humangr"), err
    for fragment in fragments:
        assert fragment in lines[0], (fragment, lines[0])
    return lines[0]
