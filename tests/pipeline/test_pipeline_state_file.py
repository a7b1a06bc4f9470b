"""A damaged ``TASK_STATE.json`` is an error naming the file, never a traceback: the CLI exits 3
with one line, and the Monitor reports it once and keeps serving the other projects. A symlinked
root or project folder is refused before anything is written."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

import anyio
import pytest
from pipeline_run import POLICY, SCRIPT, SPEC, follow, start_of, subjects

from humangr.actors.pipeline.monitor import MonitorActor, load_project
from humangr.actors.pipeline.storage import ProjectStore
from humangr.actors.pipeline.supervisor import PipelineSupervisor
from humangr.cli.failure import EXIT_ERROR
from humangr.cli.main import main
from humangr.contracts import (
    AgentName,
    DeadLetter,
    Handoff,
    PipelineStart,
    PipelineStatus,
    ResponseStatus,
    WorkOrder,
    decode,
    encode,
)
from humangr.engine.actor import ActorSystem
from humangr.engine.bus import Bus
from humangr.engine.errors import PathPolicyError, StateFileError
from humangr.engine.pipeline import TASK_STATE_PATH, encode_state, start_project

Damage = Callable[[Path, Path], None]
REPO = Path(__file__).resolve().parents[2]


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


def valid_state(project_id: str) -> str:
    start = PipelineStart(project_id=project_id, spec_raw="A converter.")
    step = start_project(start, run_id="r1", now=datetime(2026, 1, 1, tzinfo=UTC))
    return encode_state(step.project)


def write(content: str | bytes) -> Damage:
    def damage(state: Path, _: Path) -> None:
        state.write_bytes(content if isinstance(content, bytes) else content.encode())

    return damage


def unknown_stage(state: Path, _: Path) -> None:
    data = json.loads(valid_state("demo"))
    data["stage"] = "nowhere"
    state.write_text(json.dumps(data))


def a_folder(state: Path, _: Path) -> None:
    state.mkdir()


def a_symlink(state: Path, outside: Path) -> None:
    (outside / "state.json").write_text(valid_state("demo"))
    os.symlink(outside / "state.json", state)


def a_hard_link(state: Path, outside: Path) -> None:
    (outside / "state.json").write_text(valid_state("demo"))
    os.link(outside / "state.json", state)


DAMAGES: dict[str, Damage] = {
    "not json": write("{not json"),
    "empty": write(b""),
    "bad bytes": write(b'{"project_id": "\xff\xfe"}'),
    "missing fields": write('{"project_id": "demo"}'),
    "unknown stage": unknown_stage,
    "another project": write(valid_state("other")),
    "deep nesting": write("[" * 1000 + "]" * 1000),
    "a folder": a_folder,
    "a symlink": a_symlink,
    "a hard link": a_hard_link,
}


def damaged_root(tmp_path: Path, damage: Damage, project: str = "demo") -> Path:
    root, outside = tmp_path / "root", tmp_path / "outside"
    outside.mkdir(exist_ok=True)
    (root / project / "docs" / "monitor").mkdir(parents=True)
    damage(root / project / TASK_STATE_PATH, outside)
    return root


@pytest.mark.parametrize("name", list(DAMAGES))
def test_load_project_names_the_file_and_what_to_do(tmp_path: Path, name: str) -> None:
    root = damaged_root(tmp_path, DAMAGES[name])
    with pytest.raises(StateFileError) as info:
        load_project(ProjectStore(root, "demo"))
    assert info.value.path == str(root / "demo" / TASK_STATE_PATH)
    assert "restore the file from a backup" in str(info.value)


def test_a_project_without_a_state_file_is_none(tmp_path: Path) -> None:
    assert load_project(ProjectStore(tmp_path, "fresh")) is None
    (tmp_path / "fresh" / "docs").mkdir(parents=True)
    assert load_project(ProjectStore(tmp_path, "fresh")) is None


@pytest.mark.parametrize("name", list(DAMAGES))
@pytest.mark.parametrize("command", ["status", "unblock"])
def test_the_cli_exits_3_with_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str, command: str
) -> None:
    root = damaged_root(tmp_path, DAMAGES[name])
    args = ["pipeline", command, "demo", "--root", str(root)]
    if command == "unblock":
        args += ["--reviewer", "alice", "--reason", "The spec was clarified by the owner."]
    assert main(args) == 3
    out, err = capsys.readouterr()
    assert out == ""
    assert err.count("\n") == 1
    assert err.startswith(f"humangr pipeline {command}: {root / 'demo' / TASK_STATE_PATH}: ")
    assert "restore the file from a backup" in err


@pytest.mark.parametrize("name", ["not json", "bad bytes", "a symlink"])
def test_the_cli_in_a_subprocess_exits_3_without_a_traceback(tmp_path: Path, name: str) -> None:
    root = damaged_root(tmp_path, DAMAGES[name])
    cwd = tmp_path / "cwd"
    cwd.mkdir()
    for args in (
        ["pipeline", "status", "demo", "--root", str(root)],
        ["pipeline", "status", "demo", "--root", str(root), "--format", "json"],
        [
            *["pipeline", "run", "--spec-file", str(SPEC), "--project", "demo"],
            *["--root", str(root), "--llm", f"scripted:{SCRIPT}", "--deadline", "20"],
        ],
    ):
        done = run_cli(*args, cwd=cwd)
        assert done.returncode == 3, (args, done.stderr)
        assert "Traceback" not in done.stderr
        assert len(done.stderr.splitlines()) == 1, done.stderr
        assert str(root / "demo" / TASK_STATE_PATH) in done.stderr
        assert done.stdout == ""
    assert sorted(p.name for p in (root / "demo").iterdir()) == ["docs"], "nothing was started"


def test_a_damaged_state_store_is_exit_3_too(tmp_path: Path) -> None:
    root = tmp_path / "root"
    (root / "demo").mkdir(parents=True)
    state = root / "demo" / ".humangr-state.db"
    state.write_bytes(b"{broken" * 1000)
    done = run_cli(
        *["pipeline", "run", "--spec-file", str(SPEC), "--project", "demo", "--root", str(root)],
        *["--llm", f"scripted:{SCRIPT}"],
        cwd=tmp_path,
    )
    assert done.returncode == 3, done.stderr
    assert "Traceback" not in done.stderr
    assert len(done.stderr.splitlines()) == 1, done.stderr
    assert f"cannot open the state file {state}" in done.stderr
    assert state.read_bytes() == b"{broken" * 1000, "the damaged file is left for the operator"


@pytest.mark.anyio
@pytest.mark.parametrize("name", ["not json", "bad bytes", "a symlink", "another project"])
async def test_the_monitor_reports_a_damaged_project_once_and_serves_the_others(
    bus: Bus, tmp_path: Path, name: str
) -> None:
    root = damaged_root(tmp_path, DAMAGES[name], project="bad")
    subj = subjects()
    system = ActorSystem(bus, subjects=subj, policy=POLICY)
    monitor = MonitorActor(root)
    system.add(monitor)
    damaged_file = str(root / "bad" / TASK_STATE_PATH)
    async with (
        bus.subscribe(subj.pipeline_status("bad")) as bad_statuses,
        bus.subscribe(subj.dlq) as dlq,
        bus.subscribe(subj.work_order) as orders,
    ):
        async with system.running():
            with anyio.fail_after(10):
                reported = decode((await bad_statuses.__anext__()).data, PipelineStatus)
            assert (reported.state, reported.next_owner) == ("blocked", "human")
            assert damaged_file in reported.message
            assert monitor.project("bad") is None

            handoff = Handoff(
                project_id="bad",
                order_id="wo-x-0001",
                from_=AgentName.CTO,
                to=AgentName.MONITOR,
                status=ResponseStatus.OK,
            )
            await bus.publish(subj.handoff("bad"), encode(handoff))
            await bus.publish(subj.pipeline_start, encode(start_of("bad")))
            letters = []
            with anyio.fail_after(10):
                async for msg in dlq:
                    letters.append(decode(msg.data, DeadLetter))
                    if len(letters) == 2:
                        break
            assert all(damaged_file in letter.error for letter in letters)
            assert all(letter.deliveries == 1 for letter in letters), "refused, not retried"

            trace = await follow(
                bus, subj, "good", start=start_of("good"), until=lambda s: s.stage == "spec_intake"
            )
            assert trace.final.state == "running"
            with anyio.fail_after(10):
                order = decode((await orders.__anext__()).data, WorkOrder)
            assert (order.project_id, order.agent) == ("good", AgentName.CTO)
            assert ProjectStore(root, "good").exists(TASK_STATE_PATH)
            stats = system.stats("monitor")
            assert stats.restarts == 0
            assert stats.dead_letters == 2
        assert bad_statuses.pending == 0, "the damaged project is reported once"


@pytest.mark.parametrize("what", ["root", "project folder"])
def test_a_symlinked_root_or_project_folder_puts_nothing_outside(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], what: str
) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    if what == "root":
        root = tmp_path / "root"
        os.symlink(outside, root)
    else:
        root = tmp_path / "root"
        root.mkdir()
        os.symlink(outside, root / "demo")
    args = ["pipeline", "run", "--spec-file", str(SPEC), "--project", "demo"]
    code = main([*args, "--root", str(root), "--llm", f"scripted:{SCRIPT}", "--deadline", "20"])
    out, err = capsys.readouterr()
    assert code == EXIT_ERROR
    assert err.count("\n") == 1
    assert f"{what} is a symlink" in err
    assert out == ""
    assert list(outside.iterdir()) == []
    with pytest.raises(PathPolicyError, match="is a symlink"):
        ProjectStore(root, "demo")
    if what == "root":
        with pytest.raises(PathPolicyError, match="is a symlink"):
            MonitorActor(root)
        with pytest.raises(PathPolicyError, match="is a symlink"):
            PipelineSupervisor(root)


@pytest.mark.anyio
async def test_the_monitor_reports_a_symlinked_project_folder_and_leaves_it_alone(
    bus: Bus, tmp_path: Path
) -> None:
    outside, root = tmp_path / "outside", tmp_path / "root"
    (outside / "docs" / "monitor").mkdir(parents=True)
    (outside / TASK_STATE_PATH).write_text(valid_state("bad"))
    root.mkdir()
    os.symlink(outside, root / "bad")
    (root / "stray-file").write_text("not a project")
    subj = subjects()
    system = ActorSystem(bus, subjects=subj, policy=POLICY)
    system.add(MonitorActor(root))
    async with (
        bus.subscribe(subj.pipeline_status("bad")) as statuses,
        bus.subscribe(subj.work_order) as orders,
    ):
        async with system.running():
            with anyio.fail_after(10):
                reported = decode((await statuses.__anext__()).data, PipelineStatus)
            assert reported.state == "blocked"
            assert "project folder is a symlink" in reported.message
            assert system.stats("monitor").restarts == 0
        assert orders.pending == 0, "the linked project was not resumed"
    assert (outside / TASK_STATE_PATH).read_text() == valid_state("bad")


@pytest.mark.parametrize(
    ("flags", "error"),
    [
        (["--prefix", "a b"], "subject prefix 'a b' must be dot-separated tokens"),
        (["--prefix", ""], "subject prefix"),
        (["--state", "/proc/nope/state.db"], "cannot open the state file /proc/nope/state.db"),
        (["--state", "kv"], "--state kv needs --nats"),
    ],
    ids=["prefix with a space", "empty prefix", "state path unusable", "kv without nats"],
)
def test_bad_state_and_prefix_options_exit_3_with_one_line(
    tmp_path: Path, flags: list[str], error: str
) -> None:
    root = tmp_path / "root"
    done = run_cli(
        *["pipeline", "run", "--spec-file", str(SPEC), "--project", "demo", "--root", str(root)],
        *["--llm", f"scripted:{SCRIPT}", *flags],
        cwd=tmp_path,
    )
    assert done.returncode == 3, done.stderr
    assert "Traceback" not in done.stderr
    assert len(done.stderr.splitlines()) == 1, done.stderr
    assert error in done.stderr
    assert not (root / "demo" / "docs").exists(), "nothing was started"
