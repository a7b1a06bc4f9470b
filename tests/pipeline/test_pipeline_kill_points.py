"""Acceptance: ``humangr pipeline run`` killed with SIGKILL at 20 points across the shipped
scenario — while each of its 14 agent calls is in flight (so right after the previous stage's
output was written, reviewed or handed off) and in each of the three Dev outputs the layers
review (HL1–HL6 running, then HL7) — resumes to ``done`` every time.

The resumed run's agents answer afresh (their scripts go on where the killed run stopped). When
they answer as before instead (the script replayed from its start), a late kill has the Dev
return files the project already holds: the review engine refuses that empty diff, and the
pipeline takes it as "no change" rather than wait 600 s for a decision that never comes."""

from __future__ import annotations

import copy
import functools
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from pipeline_kill import (
    PROJECT,
    SLOW_MS,
    artifacts,
    audit,
    kill,
    project,
    records,
    run_args,
    start,
    wait_until,
    write_lines,
)
from pipeline_run import run_cli, script_lines

from humangr.contracts import AgentRunRecord
from humangr.engine.errors import ContractError

RESUME_DEADLINE = 45.0
"""A resume takes seconds; a run that waits for a decision that never comes fails here."""

CALLS: list[tuple[str, str, str | None]] = [
    ("cto", "spec_intake_and_normalize", None),
    ("engineer", "generate_engineering_docs", None),
    ("cto", "validate_engineer_docs", None),
    ("engineer", "generate_engineering_docs", None),
    ("cto", "validate_engineer_docs", None),
    ("pm", "generate_backlog", None),
    ("cto", "validate_backlog", None),
    ("dev", "implement_task", "TSK-1"),
    ("qa", "validate_task", "TSK-1"),
    ("dev", "implement_task", "TSK-2"),
    ("dev", "implement_task", "TSK-2"),
    ("qa", "validate_task", "TSK-2"),
    ("dev", "implement_task", "TSK-2"),
    ("qa", "validate_task", "TSK-2"),
]
"""The scenario's agent calls in order (agent, mode, task)."""
REVIEWED = [8, 11, 13]
"""The Dev calls (1-based, in ``CALLS``) whose output the layers review with LLM runs (the
first TSK-2 attempt is rejected by the local checks alone)."""
CLEAN = {"findings": [], "summary": "nothing to report."}


@dataclass(frozen=True)
class Point:
    """Where the first run is frozen (one slow LLM reply) and killed, and how many agent
    calls were answered by then."""

    lines: Callable[[], list[Any]]
    ready: Callable[[Path], bool]
    answered: int


def _match(agent: str, mode: str, task: str | None) -> dict[str, str]:
    found = {"agent": agent, "mode": mode}
    return found if task is None else {**found, "task_id": task}


def _slow_call(k: int) -> list[Any]:
    """The script with the reply to agent call ``k`` (1-based) held."""
    agent, mode, task = CALLS[k - 1]
    nth = CALLS[:k].count((agent, mode, task))
    lines, seen = copy.deepcopy(script_lines()), 0
    for line in lines:
        if line["match"] == _match(agent, mode, task):
            seen += 1
            if seen == nth:
                line["delay_ms"] = SLOW_MS
    assert seen >= nth, (k, seen)
    return lines


def _slow_review(nth: int, layer: str) -> list[Any]:
    """The script with ``layer``'s first run held in the ``nth`` LLM review (each review makes
    one run 1 of each layer; replies of one match are used in order)."""
    quick = {"match": {"layer": layer, "run": "1"}, "json": CLEAN}
    held = {**quick, "delay_ms": SLOW_MS}
    return [*script_lines(), *[quick] * (nth - 1), held]


def _continued(answered: int) -> list[Any]:
    """The script the resumed run gets: each agent's replies go on after those the killed
    run used (as a live model answers a new call afresh); replies of one match are used in
    order and the last one repeats, so it stays."""
    used = {_key(_match(*call)): CALLS[:answered].count(call) for call in set(CALLS)}
    lines, seen = [], dict.fromkeys(used, 0)
    for line in script_lines():
        key = _key(line["match"])
        if key in used:
            seen[key] += 1
            last = sum(1 for other in script_lines() if _key(other["match"]) == key)
            if seen[key] <= used[key] and seen[key] < last:
                continue
        lines.append(line)
    return lines


def _key(match: dict[str, str]) -> tuple[tuple[str, str], ...]:
    return tuple(sorted(match.items()))


def _audited(root: Path) -> int:
    try:
        found: list[AgentRunRecord] = audit(root)
    except (OSError, ContractError):
        return -1
    return len(found)


def _calling(k: int) -> Callable[[Path], bool]:
    agent, mode, _ = CALLS[k - 1]

    def ready(root: Path) -> bool:
        if _audited(root) != k - 1 or project(root) is None:
            return False
        return any(
            r.phase == "calling" and r.order.agent.value == agent and r.order.mode == mode
            for r in records(root)
        )

    return ready


def _reviewing(k: int) -> Callable[[Path], bool]:
    def ready(root: Path) -> bool:
        if _audited(root) != k or project(root) is None:
            return False
        return any(r.phase == "reviewing" and not r.waiting_human for r in records(root))

    return ready


POINTS: dict[str, Point] = {
    **{
        f"call {k:02d} {CALLS[k - 1][0]} {CALLS[k - 1][1]} {CALLS[k - 1][2] or ''}".strip(): Point(
            functools.partial(_slow_call, k), _calling(k), k - 1
        )
        for k in range(1, len(CALLS) + 1)
    },
    **{
        f"review {n} of dev call {k} at {layer}": Point(
            functools.partial(_slow_review, n, layer), _reviewing(k), k
        )
        for n, k in enumerate(REVIEWED, 1)
        for layer in ("HL1", "HL7")
    },
}


def test_there_are_twenty_kill_points() -> None:
    assert len(POINTS) == 20


@pytest.fixture(scope="module")
def reference_paths(tmp_path_factory: pytest.TempPathFactory) -> set[str]:
    """The artifacts an uninterrupted run leaves."""
    base = tmp_path_factory.mktemp("reference")
    script = write_lines(base / "script.jsonl", script_lines())
    done = run_cli(*run_args(base / "root", script), cwd=base)
    assert done.returncode == 0, done.stdout + done.stderr
    assert _audited(base / "root") == len(CALLS), "the scenario's calls are those listed"
    return set(artifacts(base / "root"))


@pytest.mark.parametrize("point", list(POINTS))
def test_a_run_killed_at_any_point_resumes_to_done(
    tmp_path: Path, point: str, reference_paths: set[str]
) -> None:
    where = POINTS[point]
    root = tmp_path / "root"
    slow = write_lines(tmp_path / "slow.jsonl", where.lines())
    plain = write_lines(tmp_path / "plain.jsonl", _continued(where.answered))
    log = tmp_path / "first.log"
    first = start(run_args(root, slow), log)
    wait_until(point, lambda: where.ready(root), first, log)
    kill(first)
    before = set(artifacts(root))

    again = run_cli(*run_args(root, plain, deadline=RESUME_DEADLINE), cwd=tmp_path)
    assert again.returncode == 0, again.stdout + again.stderr
    assert f"resuming project {PROJECT}" in again.stdout
    assert f"project {PROJECT}: DONE" in again.stdout
    state = project(root)
    assert state is not None
    assert state.state == "done"
    assert {t.status.value for t in state.tasks} == {"done"}, state.tasks
    after = set(artifacts(root))
    assert before <= after <= reference_paths, "nothing lost, nothing the scenario never writes"
    assert "apps/converter/settings.py" in after, "TSK-2's code was written after its review"
    assert [r.phase for r in records(root)] == ["done"], "only the last order's record is kept"


def test_a_resume_whose_dev_returns_the_files_already_written_ends_done(
    tmp_path: Path, reference_paths: set[str]
) -> None:
    """Killed while QA first checks TSK-2; the resumed run replays the script, so QA fails
    TSK-2 again and the Dev's rework returns the settings module the project already holds."""
    root = tmp_path / "root"
    k = CALLS.index(("qa", "validate_task", "TSK-2")) + 1
    slow = write_lines(tmp_path / "slow.jsonl", _slow_call(k))
    replay = write_lines(tmp_path / "replay.jsonl", script_lines())
    log = tmp_path / "first.log"
    first = start(run_args(root, slow), log)
    wait_until("QA of TSK-2", lambda: _calling(k)(root), first, log)
    kill(first)

    again = run_cli(*run_args(root, replay, deadline=RESUME_DEADLINE), cwd=tmp_path)
    assert again.returncode == 0, again.stdout + again.stderr
    assert f"project {PROJECT}: DONE" in again.stdout
    state = project(root)
    assert state is not None
    assert state.state == "done"
    assert set(artifacts(root)) <= reference_paths
