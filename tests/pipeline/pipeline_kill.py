"""Driving ``humangr pipeline run`` as a real process that is killed with SIGKILL, and reading
what it left: the project files, the audit log and the pipeline Supervisor's records."""

from __future__ import annotations

import collections
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

import anyio
from pipeline_run import REPO, SPEC

from humangr.actors.pipeline.ledger import OrderRecord, WorkLedger
from humangr.actors.pipeline.storage import ProjectStore
from humangr.contracts import AgentRunRecord, decode
from humangr.engine.pipeline import ProjectState, decode_state
from humangr.engine.state import SqliteStateStore

PROJECT = "demo"
SLOW_MS = 60_000
"""An LLM call that is still running when the test kills the process."""


def slowed(lines: Iterable[Any], pick: Callable[[Mapping[str, str]], bool]) -> list[Any]:
    """``lines`` with the replies ``pick`` chooses (by match) held for a minute."""
    return [{**line, "delay_ms": SLOW_MS} if pick(line["match"]) else line for line in lines]


def run_args(root: Path, script: Path, *extra: str, deadline: float = 90) -> list[str]:
    return [
        *["pipeline", "run", "--spec-file", str(SPEC), "--project", PROJECT],
        *["--root", str(root), "--llm", f"scripted:{script}", "--deadline", str(deadline)],
        *extra,
    ]


def start(args: list[str], log: Path) -> subprocess.Popen[bytes]:
    """``humangr ARGS`` in the background, its output in ``log``."""
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    env.pop("ANTHROPIC_API_KEY", None)
    with log.open("wb") as out:
        return subprocess.Popen(
            [sys.executable, "-m", "humangr", *args],
            cwd=log.parent,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
        )


def kill(process: subprocess.Popen[bytes]) -> None:
    process.send_signal(signal.SIGKILL)
    process.wait(timeout=10)


def project(root: Path) -> ProjectState | None:
    path = root / PROJECT / "docs" / "monitor" / "TASK_STATE.json"
    try:
        return decode_state(path.read_bytes())
    except (OSError, ValueError):
        return None


def records(root: Path) -> list[OrderRecord]:
    """The pipeline Supervisor's records in the project's state file."""

    async def read() -> list[OrderRecord]:
        store = SqliteStateStore(root / PROJECT / ".humangr-state.db")
        try:
            ledger = WorkLedger(store)
            await ledger.open()
            return [held.record for held in await ledger.all()]
        finally:
            await store.close()

    return anyio.run(read)


def wait_until(
    what: str, ready: Callable[[], bool], process: subprocess.Popen[bytes], log: Path
) -> None:
    deadline = time.monotonic() + 60
    while not ready():
        if process.poll() is not None:
            raise AssertionError(f"the run ended before {what}:\n{log.read_text()}")
        if time.monotonic() > deadline:
            kill(process)
            raise AssertionError(f"never reached {what}:\n{log.read_text()}")
        time.sleep(0.1)


def calling(agent: str, mode: str) -> Callable[[Path], bool]:
    """The Supervisor has sent an order of ``agent``/``mode`` and waits for the answer."""

    def ready(root: Path) -> bool:
        state = project(root)
        if state is None or state.pending is None or state.pending.mode != mode:
            return False
        return any(
            r.phase == "calling" and r.order.agent.value == agent and r.order.mode == mode
            for r in records(root)
        )

    return ready


def reviewing(root: Path) -> bool:
    """A Dev output is under review (no decision yet)."""
    return project(root) is not None and any(
        r.phase == "reviewing" and not r.waiting_human for r in records(root)
    )


def waiting_human(root: Path) -> bool:
    """The Monitor recorded that the project waits for a human review."""
    state = project(root)
    return state is not None and state.waiting_human


def artifacts(root: Path) -> dict[str, tuple[int, str]]:
    """Every agent artifact (not the Monitor's files): path → (inode, content)."""
    store = ProjectStore(root, PROJECT)
    found = {}
    for path in store.list():
        if not path.startswith("docs/monitor/"):
            found[path] = (os.stat(store.dir / path).st_ino, store.read(path))
    return found


def audit(root: Path) -> list[AgentRunRecord]:
    """Every audit record; each line must decode."""
    folder = root / PROJECT / "docs" / "monitor" / "audit"
    lines = [
        line for path in sorted(folder.glob("*.jsonl")) for line in path.read_text().splitlines()
    ]
    return [decode(line.encode(), AgentRunRecord) for line in lines]


def calls(records: list[AgentRunRecord]) -> collections.Counter[tuple[str, str, str, bool]]:
    """Agent calls by (agent, mode, task, passed)."""
    return collections.Counter(
        (r.agent.value, r.mode, r.task_id or "-", r.validator_pass) for r in records
    )


def outline(state: ProjectState) -> list[tuple[str, str, int, int]]:
    return [(t.task_id, t.status.value, t.attempt, t.rework) for t in state.tasks]


def write_lines(path: Path, lines: Iterable[Any]) -> Path:
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path
