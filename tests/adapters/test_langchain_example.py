"""``examples/langchain/agent.py`` runs as a user would run it, with no network: the approved
calls run; ``rm -rf /``, a file write carrying an AWS key and a deploy a human must decide never
run, and the model reads why (for the deploy: the action a human must review)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

AGENT = Path(__file__).resolve().parents[2] / "examples" / "langchain" / "agent.py"


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
        "ran: shell 'echo hello' -> (pretend) ran echo hello",
        "ran: write_file 'notes.md' -> wrote 18 characters to notes.md",
        "stopped: shell 'rm -rf /'",
        "stopped: write_file 'creds'",
        "stopped: deploy 'web'",
        "the model's last word: Done: some calls were stopped, and I told the user why.",
        "files in the work directory: notes.md",
    ]
    assert "recursive delete of /" in done.stdout
    assert "Hard-coded secret: AWS credential" in done.stdout
    assert "needs a human's review and did not run (action act-" in done.stdout
    assert "the call to deploy needs a human review" in done.stderr, "the human is told too"
    assert "Traceback" not in done.stderr
