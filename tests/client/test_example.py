"""``examples/client/agent.py`` runs as a user would run it: approved tools run, the file write
carrying an AWS key is rejected and never written."""

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
    assert lines[2] == "rejected: write_file did not run (rejected)"
    assert "Hard-coded secret: AWS credential" in lines[3]
    assert lines[-1] == "files in the work directory: notes/plan.md"
    assert "Traceback" not in done.stderr
