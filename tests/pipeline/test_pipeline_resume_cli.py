"""A restarted Monitor resumes from its persisted state; the CLI runs the shipped scenario."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import anyio
import pytest
from pipeline_run import (
    POLICY,
    SCRIPT,
    SPEC,
    follow,
    pipeline_engine,
    script_lines,
    scripted,
    start_of,
    subjects,
)

from humangr.actors.pipeline.monitor import MonitorActor
from humangr.actors.pipeline.storage import ProjectStore
from humangr.contracts import AgentName, Handoff, decode
from humangr.engine.actor import ActorSystem
from humangr.engine.bus import Bus
from humangr.engine.llm import LLMReply, LLMRequest, ScriptedLLM
from humangr.engine.pipeline import decode_state

REPO = Path(__file__).resolve().parents[2]


def calls(llm: ScriptedLLM, agent: str, mode: str | None = None) -> int:
    return sum(
        1
        for r in llm.requests
        if r.tags.get("agent") == agent
        and (mode is None or r.tags.get("mode") == mode)
        and "repair" not in r.tags
    )


class GatedLLM:
    """A real ``LLMClient`` that holds the PM's calls until ``gate`` is set."""

    def __init__(self, inner: ScriptedLLM, gate: anyio.Event) -> None:
        self.inner = inner
        self.gate = gate

    async def complete(self, request: LLMRequest) -> LLMReply:
        if request.tags.get("agent") == "pm":
            await self.gate.wait()
        return await self.inner.complete(request)


@pytest.mark.anyio
async def test_a_monitor_stopped_mid_project_resumes_from_its_persisted_state(
    bus: Bus, tmp_path: Path
) -> None:
    llm = scripted()
    pm_may_answer = anyio.Event()
    subj = subjects()
    store = ProjectStore(tmp_path, "resume")
    gated = GatedLLM(llm, pm_may_answer)
    async with (
        pipeline_engine(bus, tmp_path, gated, subj, monitor=False),
        bus.subscribe(subj.handoff("resume")) as handoffs,
    ):
        first = ActorSystem(bus, subjects=subj, policy=POLICY)
        first.add(MonitorActor(tmp_path))
        async with first.running():
            await follow(
                bus, subj, "resume", start=start_of("resume"), until=lambda s: s.stage == "backlog"
            )
        saved = decode_state(store.read("docs/monitor/TASK_STATE.json"))
        assert (saved.state, saved.stage) == ("running", "backlog")
        assert saved.pending is not None
        assert saved.pending.agent is AgentName.PM
        pm_may_answer.set()
        with anyio.fail_after(10):  # the PM answers while no Monitor listens: that hand-off is lost
            async for msg in handoffs:
                if decode(msg.data, Handoff).from_ is AgentName.PM:
                    break

        second = ActorSystem(bus, subjects=subj, policy=POLICY)
        second.add(MonitorActor(tmp_path))
        async with second.running():
            trace = await follow(bus, subj, "resume")
    assert trace.final.state == "done", trace.final.message
    final = decode_state(store.read("docs/monitor/TASK_STATE.json"))
    assert (final.run_id, final.created_at) == (saved.run_id, saved.created_at)
    assert final.events > saved.events
    assert calls(llm, "cto", "spec_intake_and_normalize") == 1, "not restarted from scratch"
    assert calls(llm, "engineer") == 2
    assert calls(llm, "pm") == 1, "the re-issued order was answered with its hand-off, not re-run"


def run_cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    env.pop("ANTHROPIC_API_KEY", None)
    return subprocess.run(
        [sys.executable, "-m", "humangr", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_the_cli_runs_the_scenario_and_writes_only_under_the_project(tmp_path: Path) -> None:
    root, cwd = tmp_path / "root", tmp_path / "cwd"
    root.mkdir()
    cwd.mkdir()
    done = run_cli(
        "pipeline",
        "run",
        "--spec-file",
        str(SPEC),
        "--project",
        "demo",
        "--root",
        str(root),
        "--llm",
        f"scripted:{SCRIPT}",
        cwd=cwd,
    )
    assert done.returncode == 0, done.stderr
    assert "project demo: DONE" in done.stdout
    assert "REJECTED — HL4 security: strong veto" in done.stdout
    assert "TSK-2 in_progress attempt 2 rework 1" in done.stdout
    assert [p.name for p in root.iterdir()] == ["demo"]
    assert list(cwd.iterdir()) == []
    project = root / "demo"
    assert (project / "docs/monitor/STATUS.md").is_file()
    assert (project / "apps/converter/settings.py").is_file()

    status = run_cli("pipeline", "status", "demo", "--root", str(root), cwd=cwd)
    assert status.returncode == 0
    assert "**State:** done" in status.stdout
    again = run_cli(
        "pipeline",
        "run",
        "--spec-file",
        str(SPEC),
        "--project",
        "demo",
        "--root",
        str(root),
        "--llm",
        f"scripted:{SCRIPT}",
        cwd=cwd,
    )
    assert again.returncode == 3
    assert "already ended done" in again.stderr
    missing = run_cli("pipeline", "status", "nope", "--root", str(root), cwd=cwd)
    assert missing.returncode == 3


def test_the_cli_exits_1_when_the_project_blocks(tmp_path: Path) -> None:
    script = tmp_path / "blocked.jsonl"
    lines = script_lines(drop=lambda m: m.get("agent") == "pm")
    lines.append(
        {
            "match": {"agent": "pm", "mode": "generate_backlog"},
            "json": {
                "status": "NEEDS_INFO",
                "summary": "Which squad owns this?",
                "artifacts": [
                    {"path": "docs/pm/QUESTIONS.md", "content": "# Questions\n\n- Which squad?\n"}
                ],
                "next_actions": {"owner": "cto", "questions": ["Which squad?"]},
            },
        }
    )

    script.write_text("\n".join(json.dumps(line) for line in lines) + "\n")
    result = run_cli(
        "pipeline",
        "run",
        "--spec-file",
        str(SPEC),
        "--project",
        "needs",
        "--root",
        str(tmp_path / "root"),
        "--llm",
        f"scripted:{script}",
        cwd=tmp_path,
    )
    assert result.returncode == 1, result.stderr
    assert "project needs: BLOCKED" in result.stdout
    assert "next: cto: unblock" in result.stdout
    assert "Which squad?" in result.stdout


def test_serve_role_monitor_runs_the_monitor_and_the_pipeline_supervisor(tmp_path: Path) -> None:
    from humangr.actors.pipeline.supervisor import PipelineSupervisor, serve_actors

    actors = serve_actors(llm=None, root=tmp_path)
    assert [type(a) for a in actors] == [PipelineSupervisor, MonitorActor]
    assert [a.name for a in actors] == ["pipeline-supervisor", "monitor"]
