"""``examples/openai_agents/agent.py`` runs as a user would run it, with no network: the approved
calls run, ``rm -rf /`` and a file write carrying an AWS key never run and the model reads why,
and the deploy a human must decide stops the run until the SDK's approval."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

AGENT = Path(__file__).resolve().parents[2] / "examples" / "openai_agents" / "agent.py"


def test_the_example_runs_approved_calls_and_stops_the_others(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, str(AGENT)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        cwd=tmp_path,
        env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "HUMANGR_HOME": str(tmp_path)},
    )
    assert done.returncode == 0, done.stdout + done.stderr
    lines = [line for line in done.stdout.splitlines() if not line.startswith("  ")]
    assert lines == [
        "needs a human: deploy (the run is interrupted)",
        "a human approves deploy (state.approve), and the run resumes",
        "ran: shell 'echo hello' -> (pretend) ran echo hello",
        "ran: write_file 'notes.md' -> wrote 18 characters to notes.md",
        "stopped: shell 'rm -rf /'",
        "stopped: write_file 'creds'",
        "ran: deploy 'web' -> (pretend) deployed web",
        "the model's last word: Done: some calls were stopped, and I told the user why.",
        "files in the work directory: notes.md",
    ]
    assert "recursive delete of /" in done.stdout
    assert "Hard-coded secret: AWS credential" in done.stdout
    assert "Traceback" not in done.stderr
