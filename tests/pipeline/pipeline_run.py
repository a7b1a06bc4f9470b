"""Running the whole pipeline in a test: actors, the shipped scenario script, collectors."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import uuid
from collections.abc import AsyncIterator, Callable, Iterable, Mapping
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio

from humangr.actors.pipeline.agent import agent_actors
from humangr.actors.pipeline.monitor import MonitorActor
from humangr.actors.pipeline.supervisor import PipelineSupervisor
from humangr.actors.roles import Engine, run_engine
from humangr.contracts import (
    Handoff,
    HumanLayerReport,
    Limits,
    PipelineStart,
    PipelineStatus,
    Subjects,
    decode,
    encode,
)
from humangr.engine.actor import Actor, SupervisionPolicy
from humangr.engine.bus import Bus
from humangr.engine.enforcer import BreakerStore
from humangr.engine.llm import LLMClient, ScriptedLLM

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = REPO / "examples" / "pipeline"
SCRIPT = EXAMPLES / "script.jsonl"
SPEC = EXAMPLES / "spec.md"
POLICY = SupervisionPolicy(initial_backoff=0.01, drain_timeout=2.0)


def script_lines(
    drop: Callable[[Mapping[str, str]], bool] = lambda _: False, extra: Iterable[Any] = ()
) -> list[Any]:
    """The shipped scenario's lines without those ``drop`` picks (by match), plus ``extra``."""
    lines = [
        json.loads(line)
        for line in SCRIPT.read_text().splitlines()
        if line.strip() and not line.startswith("#")
    ]
    return [line for line in lines if not drop(line["match"])] + list(extra)


def subjects() -> Subjects:
    return Subjects(prefix=f"p{uuid.uuid4().hex[:10]}")


def worker_actors(root: Path, llm: LLMClient) -> list[Actor]:
    """The pipeline Supervisor and the five agents (everything but the Monitor)."""
    return [*agent_actors(llm, breakers=BreakerStore()), PipelineSupervisor(root)]


@asynccontextmanager
async def pipeline_engine(
    bus: Bus, root: Path, llm: LLMClient, subj: Subjects, *, monitor: bool = True
) -> AsyncIterator[Engine]:
    actors = [*worker_actors(root, llm), *([MonitorActor(root)] if monitor else [])]
    async with run_engine(
        bus=bus, llm=llm, subjects=subj, policy=POLICY, extra_actors=actors
    ) as engine:
        yield engine


@dataclass
class Trace:
    """What a run published: statuses, hand-offs and review decisions, in order."""

    statuses: list[PipelineStatus] = field(default_factory=list)
    handoffs: list[Handoff] = field(default_factory=list)
    decisions: list[HumanLayerReport] = field(default_factory=list)

    @property
    def final(self) -> PipelineStatus:
        return self.statuses[-1]


async def follow(
    bus: Bus,
    subj: Subjects,
    project_id: str,
    *,
    start: PipelineStart | None = None,
    send: tuple[str, bytes] | None = None,
    until: Callable[[PipelineStatus], bool] = lambda s: s.state != "running",
    timeout: float = 60.0,
    trace: Trace | None = None,
    handoffs_expected: int = 0,
) -> Trace:
    """Collect the project's events (publishing ``start``, or ``send`` = (subject, payload),
    first) until ``until`` holds and ``handoffs_expected`` hand-offs arrived."""
    trace = trace or Trace()
    async with (
        bus.subscribe(subj.pipeline_status(project_id)) as statuses,
        bus.subscribe(subj.handoff(project_id)) as handoffs,
        bus.subscribe(subj.decisions) as decisions,
        anyio.create_task_group() as tg,
    ):
        enough = anyio.Event()
        if handoffs_expected <= len(trace.handoffs):
            enough.set()

        async def collect(sub: Any, kind: type[Any], into: list[Any]) -> None:
            async for msg in sub:
                into.append(decode(msg.data, kind))
                if len(trace.handoffs) >= handoffs_expected:
                    enough.set()

        tg.start_soon(collect, handoffs, Handoff, trace.handoffs)
        tg.start_soon(collect, decisions, HumanLayerReport, trace.decisions)
        if start is not None:
            await bus.publish(subj.pipeline_start, encode(start))
        if send is not None:
            await bus.publish(*send)
        with anyio.fail_after(timeout):
            async for msg in statuses:
                status = decode(msg.data, PipelineStatus)
                trace.statuses.append(status)
                if until(status):
                    break
            await enough.wait()
        tg.cancel_scope.cancel()
    return trace


def dev_lines(task_id: str) -> list[dict[str, Any]]:
    return [
        line
        for line in script_lines()
        if line["match"] == {"agent": "dev", "mode": "implement_task", "task_id": task_id}
    ]


def secret_attempt(task_id: str) -> dict[str, Any]:
    """The scenario's hard-coded-key Dev reply (always rejected by HL4), for ``task_id``."""
    line = dev_lines("TSK-2")[0]
    reply = json.loads(json.dumps(line["json"]).replace("TSK-2", task_id))
    return {"match": {**line["match"], "task_id": task_id}, "json": reply}


def needs_info_first() -> list[Any]:
    """The scenario, but the CTO's first spec intake asks a question (NEEDS_INFO)."""
    question = {
        "match": {"agent": "cto", "mode": "spec_intake_and_normalize"},
        "json": {
            "status": "NEEDS_INFO",
            "summary": "Which temperature units?",
            "artifacts": [
                {"path": "docs/spec/QUESTIONS.md", "content": "# Questions\n\n- Which units?\n"}
            ],
            "next_actions": {"owner": "human", "questions": ["Which units?"]},
        },
    }
    spec = [
        line
        for line in script_lines()
        if line["match"] == {"agent": "cto", "mode": "spec_intake_and_normalize"}
    ]
    return script_lines(
        drop=lambda m: m.get("mode") == "spec_intake_and_normalize", extra=[question, *spec]
    )


def start_of(project_id: str, limits: Limits | None = None) -> PipelineStart:
    return PipelineStart(
        project_id=project_id, spec_raw=SPEC.read_text(), limits=limits or Limits()
    )


def scripted(lines: list[Any] | None = None) -> ScriptedLLM:
    return ScriptedLLM.from_lines(lines if lines is not None else script_lines())


def run_cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """``humangr ARGS`` in a subprocess (no Anthropic key: only scripted LLMs)."""
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


def write_script(path: Path, lines: Iterable[Any]) -> Path:
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path
