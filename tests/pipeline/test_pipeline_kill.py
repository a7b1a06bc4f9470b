"""Acceptance: ``humangr pipeline run`` killed with SIGKILL at each stage resumes to ``done``
when run again, with every artifact present once, none written again, and the audit log the
same as an uninterrupted run's; a project waiting for a human survives the kill and is
resolved over NATS, or cancelled."""

from __future__ import annotations

import subprocess
import uuid
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import anyio
import pytest
from pipeline_kill import (
    PROJECT,
    artifacts,
    audit,
    calling,
    calls,
    kill,
    outline,
    project,
    records,
    reviewing,
    run_args,
    slowed,
    start,
    wait_until,
    waiting_human,
    write_lines,
)
from pipeline_run import run_cli, script_lines

from humangr.contracts import ReviewListing, ReviewQuery, ReviewResolution, Subjects, decode, encode
from humangr.engine.bus.nats import NatsBus
from humangr.engine.pipeline import ProjectState

WHY = "The finding is a false positive: the value is read from the environment."


def _agent(agent: str, mode: str) -> Callable[[Mapping[str, str]], bool]:
    return lambda match: match.get("agent") == agent and match.get("mode") == mode


STAGES: dict[str, tuple[Callable[[Mapping[str, str]], bool], Callable[[Path], bool]]] = {
    "spec intake": (
        _agent("cto", "spec_intake_and_normalize"),
        calling("cto", "spec_intake_and_normalize"),
    ),
    "engineering docs": (
        _agent("engineer", "generate_engineering_docs"),
        calling("engineer", "generate_engineering_docs"),
    ),
    "backlog": (_agent("pm", "generate_backlog"), calling("pm", "generate_backlog")),
    "dev order under review": (lambda match: "layer" in match, reviewing),
}


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory) -> tuple[ProjectState, dict[str, str], Any]:
    """The scenario run once without interruption: its state, artifacts and agent calls."""
    base = tmp_path_factory.mktemp("reference")
    script = write_lines(base / "script.jsonl", script_lines())
    done = run_cli(*run_args(base / "root", script), cwd=base)
    assert done.returncode == 0, done.stdout + done.stderr
    state = project(base / "root")
    assert state is not None
    files = {path: content for path, (_, content) in artifacts(base / "root").items()}
    return state, files, calls(audit(base / "root"))


@pytest.mark.parametrize("stage", list(STAGES))
def test_a_run_killed_at_each_stage_resumes_to_done(
    tmp_path: Path, stage: str, reference: tuple[ProjectState, dict[str, str], Any]
) -> None:
    pick, ready = STAGES[stage]
    root = tmp_path / "root"
    slow = write_lines(tmp_path / "slow.jsonl", slowed(script_lines(), pick))
    plain = write_lines(tmp_path / "plain.jsonl", script_lines())
    log = tmp_path / "first.log"
    first = start(run_args(root, slow), log)
    wait_until(stage, lambda: ready(root), first, log)
    kill(first)
    before = artifacts(root)

    again = run_cli(*run_args(root, plain), cwd=tmp_path)
    assert again.returncode == 0, again.stdout + again.stderr
    assert f"resuming project {PROJECT}" in again.stdout
    assert f"project {PROJECT}: DONE" in again.stdout

    ref_state, ref_files, ref_calls = reference
    state = project(root)
    assert state is not None
    assert (state.state, outline(state)) == ("done", outline(ref_state))
    after = artifacts(root)
    assert sorted(after) == sorted(ref_files), "every artifact present, none extra"
    assert {path: content for path, (_, content) in after.items()} == ref_files
    for path, (inode, content) in before.items():
        assert after[path] == (inode, content), f"{path} was written again after the restart"
    assert calls(audit(root)) == ref_calls, "each agent call recorded once, none repeated"
    assert [r.phase for r in records(root)] == ["done"], "only the last order's record is kept"


def needs_review_script() -> list[Any]:
    """The scenario, but HL2 finds a high-severity problem in the first Dev output reviewed
    (one medium veto: the review waits for a human)."""
    finding = {
        "match": {"layer": "HL2"},
        "json": {
            "findings": [
                {
                    "severity": "high",
                    "title": "Conversion rounds too early",
                    "description": "The result is rounded before the offset is added.",
                }
            ],
            "summary": "HL2: one problem.",
        },
    }
    lines = script_lines()
    clean = next(line for line in lines if line["match"] == {"layer": "HL2"})
    rest = [line for line in lines if line["match"] != {"layer": "HL2"}]
    return [finding, finding, finding, clean, *rest]


def _wait_for_human(tmp_path: Path, *extra: str) -> Path:
    root = tmp_path / "root"
    script = write_lines(tmp_path / "review.jsonl", needs_review_script())
    log = tmp_path / "first.log"
    first = start(run_args(root, script, *extra), log)
    wait_until("waiting for a human", lambda: waiting_human(root), first, log)
    kill(first)
    return script


def test_a_project_waiting_for_a_human_survives_a_kill_and_is_resolved_over_nats(
    tmp_path: Path, nats_url: str
) -> None:
    prefix = f"k{uuid.uuid4().hex[:8]}"
    nats = ("--nats", nats_url, "--prefix", prefix)
    script = _wait_for_human(tmp_path, *nats)
    root = tmp_path / "root"
    status = run_cli("pipeline", "status", PROJECT, "--root", str(root), cwd=tmp_path)
    assert status.returncode == 5
    assert "waiting for a human review" in status.stdout.lower()
    (waiting,) = [r for r in records(root) if r.phase == "reviewing"]
    assert waiting.waiting_human

    log = tmp_path / "second.log"
    second = start(run_args(root, script, *nats), log)
    resolved = anyio.run(_resolve_until_done, nats_url, prefix, second)
    assert second.wait(timeout=60) == 0, log.read_text()
    output = log.read_text()
    assert f"project {PROJECT}: DONE" in output
    assert resolved, "a pending review was listed and resolved after the restart"
    state = project(root)
    assert state is not None
    assert state.state == "done"
    dev_tsk1 = [r for r in audit(root) if r.agent.value == "dev" and r.task_id == "TSK-1"]
    assert len(dev_tsk1) == 1, "the Dev was not asked again: its output's review was taken up"
    assert (root / PROJECT / "apps/converter/convert.py").is_file()


async def _resolve_until_done(url: str, prefix: str, run: subprocess.Popen[bytes]) -> list[str]:
    """Approve every review the engine lists as pending until the run ends."""
    subjects = Subjects(prefix)
    bus = await NatsBus.connect(url)
    resolved: list[str] = []
    try:
        with anyio.fail_after(90):
            while run.poll() is None:
                try:
                    reply = await bus.request(
                        subjects.review_query, encode(ReviewQuery()), timeout=2
                    )
                except Exception:
                    await anyio.sleep(0.3)
                    continue
                for review in decode(reply.data, ReviewListing).reviews:
                    if review.action_id in resolved:
                        continue
                    resolution = ReviewResolution(
                        action_id=review.action_id,
                        action_hash=review.action_hash,
                        verdict="approve",
                        reviewer="alice",
                        reason=WHY,
                    )
                    await bus.publish(subjects.review_resolve(review.action_id), encode(resolution))
                    resolved.append(review.action_id)
                await anyio.sleep(0.3)
    finally:
        await bus.close()
    return resolved


def test_a_project_waiting_for_a_human_survives_a_restart_and_can_be_cancelled(
    tmp_path: Path,
) -> None:
    script = _wait_for_human(tmp_path)
    root = tmp_path / "root"
    again = run_cli(*run_args(root, script, deadline=4), cwd=tmp_path)
    assert again.returncode == 5, again.stdout + again.stderr
    assert "waits for a human review" in again.stdout
    state = project(root)
    assert state is not None
    assert (state.state, state.waiting_human) == ("running", True)
    (waiting,) = [r for r in records(root) if r.phase == "reviewing"]
    assert waiting.waiting_human, "the review is still recorded as waiting for a human"

    cancel = run_cli(
        *["pipeline", "cancel", PROJECT, "--root", str(root), "--reviewer", "bob"],
        *["--reason", "The product was dropped; nothing more is needed here."],
        cwd=tmp_path,
    )
    assert cancel.returncode == 0, cancel.stdout + cancel.stderr
    assert f"project {PROJECT}: CANCELLED" in cancel.stdout
    state = project(root)
    assert state is not None
    assert (state.state, state.pending, state.waiting_human) == ("cancelled", None, False)
    assert [(c.command, c.reviewer) for c in state.commands] == [("cancel", "bob")]
    assert records(root) == [], "the cancelled project's orders are dropped"
    assert not (root / PROJECT / "apps").exists(), "nothing of the Dev output was written"
    status = run_cli("pipeline", "status", PROJECT, "--root", str(root), cwd=tmp_path)
    assert status.returncode == 4
