"""`humangr pipeline unblock|cancel` in a subprocess: in process, and against NATS."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import anyio
import pytest
from pipeline_run import (
    SCRIPT,
    SPEC,
    follow,
    needs_info_first,
    pipeline_engine,
    run_cli,
    script_lines,
    scripted,
    start_of,
    write_script,
)

from humangr.actors.pipeline.storage import ProjectStore
from humangr.cli.main import main
from humangr.contracts import PipelineStatus, Subjects, decode
from humangr.engine.bus import Bus
from humangr.engine.bus.nats import NatsBus
from humangr.engine.pipeline import decode_state

WHY = "The QA report is precise; one more attempt is worth it."


def humangr(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    """``humangr ARGS`` in this process (cheaper than a subprocess): exit code, out, err."""
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def is_tsk2(match: Mapping[str, str]) -> bool:
    return match.get("task_id") == "TSK-2"


def test_unblock_resumes_a_project_blocked_by_a_previous_run_and_exits_0(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = str(tmp_path / "root")
    code, out, _ = humangr(
        capsys,
        "pipeline",
        "run",
        "--spec-file",
        str(SPEC),
        "--project",
        "demo",
        "--root",
        root,
        "--llm",
        f"scripted:{SCRIPT}",
        "--max-rework",
        "1",
    )
    assert code == 1
    assert "TSK-2: rework limit reached (1 of max_rework 1)" in out
    code, out, _ = humangr(capsys, "pipeline", "status", "demo", "--root", root)
    assert "humangr pipeline unblock demo --task TSK-2" in out

    code, _, err = humangr(
        capsys,
        "pipeline",
        "unblock",
        "demo",
        "--root",
        root,
        "--reviewer",
        "alice",
        "--reason",
        WHY,
    )
    assert code == 3
    assert "refused: project demo is blocked on task TSK-2: name it" in err

    # a new process has a new ScriptedLLM: its TSK-2 lines are the fixed attempt and QA_PASS
    tsk2 = [line for line in script_lines() if is_tsk2(line["match"])]
    fixed = write_script(
        tmp_path / "fixed.jsonl", script_lines(drop=is_tsk2, extra=[tsk2[2], tsk2[4]])
    )
    done = run_cli(
        "pipeline",
        "unblock",
        "demo",
        "--task",
        "TSK-2",
        "--root",
        root,
        "--reviewer",
        "alice",
        "--reason",
        WHY,
        "--answers",
        "Raise SettingsError.",
        "--extra",
        "1",
        "--llm",
        f"scripted:{fixed}",
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr + done.stdout
    assert "unblock of task TSK-2 demo by alice" in done.stdout
    assert "project demo: DONE" in done.stdout
    assert "TSK-2 done           attempts 3 rework 2" in done.stdout
    assert ": APPROVED" in done.stdout

    state = decode_state(ProjectStore(Path(root), "demo").read("docs/monitor/TASK_STATE.json"))
    assert [(c.command, c.task_id, c.reviewer, c.answers) for c in state.commands] == [
        ("unblock", "TSK-2", "alice", "Raise SettingsError.")
    ]
    code, _, err = humangr(
        capsys, "pipeline", "cancel", "demo", "--root", root, "--reviewer", "bob", "--reason", WHY
    )
    assert code == 3
    assert "refused: project demo has ended done: there is nothing to cancel" in err


def test_cancel_needs_no_llm_and_ends_the_project_cancelled(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    root = str(tmp_path / "root")
    script = write_script(tmp_path / "ni.jsonl", needs_info_first())
    code, _, _ = humangr(
        capsys,
        "pipeline",
        "run",
        "--spec-file",
        str(SPEC),
        "--project",
        "ni",
        "--root",
        root,
        "--llm",
        f"scripted:{script}",
    )
    assert code == 1
    who = ("--root", root, "--reviewer", "alice")
    code, _, err = humangr(capsys, "pipeline", "cancel", "ni", *who, "--reason", "no")
    assert code == 3
    assert "invalid command" in err
    assert "$.reason" in err
    code, _, err = humangr(capsys, "pipeline", "unblock", "ni", *who, "--reason", WHY)
    assert code == 3
    assert "give an LLM" in err

    code, out, err = humangr(capsys, "pipeline", "cancel", "ni", *who, "--reason", WHY)
    assert code == 0, err
    assert "project ni: CANCELLED" in out
    code, out, _ = humangr(capsys, "pipeline", "status", "ni", "--root", root)
    assert code == 4
    assert "**State:** cancelled" in out
    assert f"**cancel** (project) by alice: {WHY}" in out


@pytest.mark.anyio
async def test_over_nats_the_command_goes_to_the_running_engine(
    nats_url: str, tmp_path: Path
) -> None:
    llm = scripted(needs_info_first())
    subj = Subjects()  # the CLI speaks the default prefix
    bus: Bus = await NatsBus.connect(nats_url)
    try:
        async with pipeline_engine(bus, tmp_path, llm, subj):
            first = await follow(bus, subj, "remote", start=start_of("remote"))
            assert first.final.state == "blocked"
            base = ("--nats", nats_url, "--reviewer", "alice", "--reason", WHY, "--wait", "20")
            refused = await anyio.to_thread.run_sync(
                lambda: run_cli(
                    "pipeline", "cancel", "remote", "--task", "TSK-1", *base, cwd=tmp_path
                )
            )
            assert refused.returncode == 3
            assert "refused: cancel refused: project remote has no task TSK-1" in refused.stderr

            async with bus.subscribe(subj.pipeline_status("remote")) as statuses:
                await bus.flush()
                accepted = await anyio.to_thread.run_sync(
                    lambda: run_cli(
                        "pipeline",
                        "unblock",
                        "remote",
                        *base,
                        "--answers",
                        "Celsius only.",
                        cwd=tmp_path,
                    )
                )
                assert accepted.returncode == 0, accepted.stderr
                assert "project remote: RUNNING (stage spec_intake)" in accepted.stdout
                with anyio.fail_after(60):
                    async for msg in statuses:
                        final = decode(msg.data, PipelineStatus)
                        if final.state != "running":
                            break
            assert final.state == "done", final.message
    finally:
        await bus.close()
    assert any(
        "Celsius only." in "\n".join(m.content for m in r.messages)
        for r in llm.requests
        if r.tags.get("mode") == "spec_intake_and_normalize"
    )
