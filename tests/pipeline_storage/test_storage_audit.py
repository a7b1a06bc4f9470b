"""AuditLog: one JSON line per AgentRunRecord, per UTC day, read back exactly."""

from __future__ import annotations

import json
import threading
from datetime import UTC, date, datetime, timedelta, timezone
from pathlib import Path

import pytest

from humangr.actors.pipeline.audit import AUDIT_DIR, AuditLog, audit_path
from humangr.actors.pipeline.storage import ProjectStore
from humangr.contracts import AgentName, AgentRunRecord, ResponseStatus, Usage
from humangr.engine.errors import ContractError, PathPolicyError

DAY = datetime(2025, 3, 14, 9, 30, tzinfo=UTC)


def record(
    n: int = 1, *, at: datetime = DAY, project: str = "demo", **extra: object
) -> AgentRunRecord:
    fields: dict[str, object] = {
        "timestamp": at,
        "project_id": project,
        "agent": AgentName.DEV,
        "mode": "implement_task",
        "task_id": "TSK-BE-001",
        "request_id": f"req-{n}",
        "request_hash": f"{n:064x}",
        "model": "scripted",
        "attempts": 2,
        "repairs": 1,
        "validator_pass": True,
        "artifact_paths": ["apps/notes/src/store.py", "docs/dev/dev_implementation_TSK-BE-001.md"],
        "status": ResponseStatus.OK,
        "usage": Usage(input_tokens=100, output_tokens=20, calls=2),
        "duration_ms": 12.5,
    }
    fields.update(extra)
    return AgentRunRecord(**fields)  # type: ignore[arg-type]


@pytest.fixture
def store(tmp_path: Path) -> ProjectStore:
    return ProjectStore(tmp_path, "demo")


@pytest.fixture
def log(store: ProjectStore) -> AuditLog:
    return AuditLog(store)


def test_round_trip_one_line_per_record(store: ProjectStore, log: AuditLog) -> None:
    first = record(1)
    second = record(
        2,
        validator_pass=False,
        status=ResponseStatus.BLOCKED,
        validation_errors=["gate 'ok_evidence' failed:\nOK without evidence"],
        artifact_paths=[],
    )
    assert log.append(first) == "docs/monitor/audit/2025-03-14.jsonl"
    log.append(second)
    assert log.read() == [first, second]
    assert log.read(date(2025, 3, 14)) == [first, second]
    assert log.read("2025-03-14") == [first, second]
    lines = store.read("docs/monitor/audit/2025-03-14.jsonl").splitlines()
    assert len(lines) == 2
    assert [json.loads(line)["request_id"] for line in lines] == ["req-1", "req-2"]
    assert json.loads(lines[1])["validation_errors"] == [
        "gate 'ok_evidence' failed:\nOK without evidence"
    ]


def test_records_go_to_the_utc_day_of_their_timestamp(log: AuditLog) -> None:
    late = datetime(2025, 3, 14, 23, 30, tzinfo=timezone(timedelta(hours=-5)))
    day1, day2 = record(1), record(2, at=late)
    log.append(day1)
    assert log.append(day2) == audit_path(date(2025, 3, 15))
    assert log.days() == ["2025-03-14", "2025-03-15"]
    assert log.read(date(2025, 3, 15)) == [day2]
    assert log.read(datetime(2025, 3, 15, 1, 0, tzinfo=UTC)) == [day2]
    assert log.read() == [day1, day2]


def test_an_empty_log_reads_empty(log: AuditLog) -> None:
    assert log.days() == []
    assert log.read() == []
    assert log.read("2025-01-01") == []


def test_a_bad_day_is_an_error(log: AuditLog) -> None:
    with pytest.raises(ValueError, match="isoformat"):
        log.read("../../etc/passwd")


def test_a_record_of_another_project_is_refused(store: ProjectStore, log: AuditLog) -> None:
    with pytest.raises(ContractError, match="project_id"):
        log.append(record(project="other"))
    assert store.list() == []


def test_a_damaged_line_is_reported_with_file_and_line(store: ProjectStore, log: AuditLog) -> None:
    log.append(record(1))
    path = audit_path(DAY.date())
    (store.dir / path).write_text(store.read(path) + '{"not": "a record"}\n')
    with pytest.raises(ContractError, match=r"2025-03-14\.jsonl:2"):
        log.read()


def test_an_append_after_a_torn_line_starts_a_new_line(store: ProjectStore, log: AuditLog) -> None:
    log.append(record(1))
    path = store.dir / audit_path(DAY.date())
    with path.open("a") as handle:
        handle.write('{"timestamp": "2025-03-1')
    log.append(record(2))
    lines = path.read_text().splitlines()
    assert len(lines) == 3
    assert json.loads(lines[2])["request_id"] == "req-2"
    with pytest.raises(ContractError, match=":2"):
        log.read()


def test_concurrent_appends_keep_one_record_per_line(tmp_path: Path) -> None:
    def writer(k: int) -> None:
        own = AuditLog(ProjectStore(tmp_path, "demo"))
        for n in range(25):
            own.append(record(k * 100 + n))

    threads = [threading.Thread(target=writer, args=(k,)) for k in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    records = AuditLog(ProjectStore(tmp_path, "demo")).read()
    assert sorted(r.request_id for r in records) == sorted(
        f"req-{k * 100 + n}" for k in range(4) for n in range(25)
    )


def test_the_audit_dir_follows_the_path_policy(store: ProjectStore, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (store.dir / "docs" / "monitor").mkdir(parents=True)
    (store.dir / AUDIT_DIR).symlink_to(outside)
    with pytest.raises(PathPolicyError, match="docs/monitor/audit is a symlink"):
        AuditLog(store).append(record(1))
    assert list(outside.iterdir()) == []


def test_append_refuses_more_than_one_line(store: ProjectStore) -> None:
    with pytest.raises(ValueError, match="one line"):
        store.append("docs/log.txt", "a\nb")
    assert store.list() == []
