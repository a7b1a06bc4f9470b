"""Unblock and cancel through the Monitor, over MemoryBus and a real NatsBus alike."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import anyio
import pytest
from pipeline_run import (
    dev_lines,
    follow,
    needs_info_first,
    pipeline_engine,
    script_lines,
    scripted,
    secret_attempt,
    start_of,
    subjects,
)

from humangr.actors.pipeline.storage import ProjectStore
from humangr.contracts import (
    DeadLetter,
    Limits,
    PipelineCommand,
    Subjects,
    TaskStatus,
    decode,
    encode,
)
from humangr.engine.bus import Bus
from humangr.engine.llm import ScriptedLLM
from humangr.engine.pipeline import decode_state

pytestmark = pytest.mark.anyio

WHY = "The QA report is precise; one more attempt is worth it."
ANSWERS = "Temperatures are in Celsius and Fahrenheit only; round to 2 decimals."
S = TaskStatus


def command(project_id: str, kind: str = "unblock", **fields: Any) -> PipelineCommand:
    return PipelineCommand(
        project_id=project_id,
        command=kind,  # type: ignore[arg-type]
        reviewer="alice",
        reason=WHY,
        **fields,
    )


def sent(subj: Subjects, cmd: PipelineCommand) -> tuple[str, bytes]:
    return subj.pipeline_command(cmd.project_id), encode(cmd)


def requests(llm: ScriptedLLM, **tags: str) -> list[str]:
    return [
        "\n".join(m.content for m in r.messages)
        for r in llm.requests
        if "repair" not in r.tags and all(r.tags.get(k) == v for k, v in tags.items())
    ]


def state_of(root: Path, project_id: str) -> Mapping[str, Any]:
    state: Mapping[str, Any] = json.loads(
        ProjectStore(root, project_id).read("docs/monitor/TASK_STATE.json")
    )
    return state


async def test_unblock_after_the_rework_limit_resumes_in_a_new_engine_to_done(
    bus: Bus, tmp_path: Path
) -> None:
    llm = scripted()
    subj = subjects()
    async with pipeline_engine(bus, tmp_path, llm, subj):
        first = await follow(bus, subj, "rw", start=start_of("rw", Limits(max_rework=1)))
    assert first.final.state == "blocked"
    assert "TSK-2: rework limit reached (1 of max_rework 1)" in first.final.message

    unblock = command("rw", task_id="TSK-2", answers=ANSWERS)
    async with pipeline_engine(bus, tmp_path, llm, subj):  # a fresh Monitor reads the disk
        trace = await follow(bus, subj, "rw", send=sent(subj, unblock))
    assert trace.final.state == "done", trace.final.message
    assert "alice: unblock — TSK-2 unblocked, +1 rework(s) (max 2)" in trace.statuses[0].message
    assert [(t.status, t.attempt, t.rework) for t in trace.final.tasks] == [
        (S.DONE, 1, 0),
        (S.DONE, 3, 2),
    ]
    third = requests(llm, agent="dev", task_id="TSK-2")[2]
    assert WHY in third
    assert ANSWERS in third
    assert "KeyError" in third, "the QA report still goes with the rework"

    state = state_of(tmp_path, "rw")
    assert state["rework_grants"] == {"TSK-2": 1}
    [record] = state["commands"]
    assert (
        record["command"],
        record["task_id"],
        record["reviewer"],
        record["reason"],
        record["answers"],
        record["extra"],
    ) == ("unblock", "TSK-2", "alice", WHY, ANSWERS, 1)
    status = ProjectStore(tmp_path, "rw").read("docs/monitor/STATUS.md")
    assert "**unblock** TSK-2 +1 by alice" in status


async def test_cancelling_a_blocked_task_lets_the_next_run_and_the_project_ends_done(
    bus: Bus, tmp_path: Path
) -> None:
    tsk2 = dev_lines("TSK-2")[1:]  # without the hard-coded key: approved, QA_FAIL, then fixed
    lines = script_lines(
        drop=lambda m: m.get("agent") == "dev", extra=[secret_attempt("TSK-1"), *tsk2]
    )
    llm = scripted(lines)
    subj = subjects()
    async with pipeline_engine(bus, tmp_path, llm, subj):
        first = await follow(bus, subj, "cx", start=start_of("cx", Limits(max_rework=1)))
        assert first.final.state == "blocked"
        assert [t.status for t in first.final.tasks] == [S.BLOCKED, S.NEW]
        trace = await follow(
            bus, subj, "cx", send=sent(subj, command("cx", "cancel", task_id="TSK-1"))
        )
    final = trace.final
    assert final.state == "done", final.message
    assert [t.status for t in final.tasks] == [S.CANCELLED, S.DONE]
    assert "project done: 1 task(s) done, 1 cancelled (TSK-1)" in final.message
    store = ProjectStore(tmp_path, "cx")
    status = store.read("docs/monitor/STATUS.md")
    assert f"**Cancelled tasks (not delivered):** TSK-1 — cancelled by alice: {WHY}" in status
    assert "cancelled, not delivered: TSK-1" in status
    assert not store.exists("apps/converter/credentials_inline.py")
    assert store.exists("apps/converter/test_settings.py")


async def test_a_stage_level_unblock_gives_the_answers_to_the_agent(
    bus: Bus, tmp_path: Path
) -> None:
    llm = scripted(needs_info_first())
    subj = subjects()
    async with pipeline_engine(bus, tmp_path, llm, subj):
        first = await follow(bus, subj, "ni", start=start_of("ni"))
        assert (first.final.state, first.final.stage) == ("blocked", "spec_intake")
        trace = await follow(bus, subj, "ni", send=sent(subj, command("ni", answers=ANSWERS)))
    assert trace.final.state == "done", trace.final.message
    intake = requests(llm, agent="cto", mode="spec_intake_and_normalize")
    assert len(intake) == 2
    assert ANSWERS not in intake[0]
    assert ANSWERS in intake[1]
    assert state_of(tmp_path, "ni")["round_grants"] == {"spec_intake": 1}


async def test_commands_that_do_not_apply_are_dead_lettered_and_the_monitor_goes_on(
    bus: Bus, tmp_path: Path
) -> None:
    llm = scripted(needs_info_first())
    subj = subjects()
    async with pipeline_engine(bus, tmp_path, llm, subj), bus.subscribe(subj.dlq) as dlq:
        await follow(bus, subj, "ni", start=start_of("ni"))
        short = json.loads(encode(command("ni")))
        short["reason"] = "too short"
        bad = [
            sent(subj, command("ghost")),
            (subj.pipeline_command("other"), encode(command("ni"))),
            sent(subj, command("ni", task_id="TSK-1")),
            (subj.pipeline_command("ni"), json.dumps(short).encode()),
        ]
        for subject, payload in bad:
            await bus.publish(subject, payload)
        letters = []
        with anyio.fail_after(10):
            async for msg in dlq:
                letters.append(decode(msg.data, DeadLetter))
                if len(letters) == len(bad):
                    break
        cancel = command("ni", "cancel")
        trace = await follow(bus, subj, "ni", send=sent(subj, cancel))
        await bus.publish(*sent(subj, command("ni")))
        with anyio.fail_after(10):
            async for msg in dlq:
                letters.append(decode(msg.data, DeadLetter))
                break
    errors = sorted(letter.error for letter in letters)
    expected = [
        "$.reason",
        "unblock for project ni was sent on the subject of project other",
        "unblock for unknown project ghost",
        "unblock refused: project ni has no task TSK-1",
        "unblock refused: project ni is cancelled, not blocked",
    ]
    for text in expected:
        assert any(text in e for e in errors), (text, errors)
    assert {letter.actor for letter in letters} == {"monitor"}
    assert trace.final.state == "cancelled"
    saved = decode_state(ProjectStore(tmp_path, "ni").read("docs/monitor/TASK_STATE.json"))
    assert [(c.command, c.reviewer) for c in saved.commands] == [("cancel", "alice")]
    assert saved.state == "cancelled"
