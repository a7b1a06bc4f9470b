"""``examples/client/agent.py`` runs as a user would run it: approved tools run; a file write
carrying an AWS key, a download piped to a shell and a write to ``authorized_keys`` are rejected,
never run, and the reasons name the argument."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

AGENT = Path(__file__).resolve().parents[2] / "examples" / "client" / "agent.py"


def test_the_example_agent_runs_approved_tools_and_not_the_rejected_one(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, str(AGENT)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == "approved: write_file wrote 28 bytes to notes/plan.md"
    assert lines[1] == "approved: run_command printed 'hello from a tool'"
    assert lines[2] == "approved: shell printed '1'"
    assert lines[3] == "rejected: write_file did not run"
    assert "argument `content` of write_file: Hard-coded secret: AWS credential" in lines[4]
    assert lines[5] == "rejected: shell did not run"
    assert "argument `command` of shell: download piped to a shell" in lines[6]
    assert lines[7] == "rejected: write_file did not run"
    assert "argument `path` of write_file" in lines[8]
    assert "authorized_keys" in lines[8]
    assert lines[-1] == "files in the work directory: notes/plan.md"
    assert "Traceback" not in done.stderr
