"""Issue 20, item 9: the SQLite state file. Created private; a damaged, truncated, empty or
foreign file is one clear error naming it (from the store, ``humangr reviews`` and ``serve``),
never a traceback and never "no reviews pending"; rows of the wrong SQL type are quarantined."""

from __future__ import annotations

import functools
import sqlite3
import stat
from pathlib import Path

import anyio
import pytest
from cli_helpers import assert_error, humangr

from humangr.engine.errors import StateError
from humangr.engine.state import SqliteStateStore
from humangr.engine.state.records import Damaged
from humangr.engine.state.reviews import ReviewState

pytestmark = pytest.mark.anyio

DAMAGED = "is damaged"
ADVICE = "restore it from a backup"


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


async def written_state(path: Path) -> None:
    """A real state file with a few hundred entries (so truncating it cuts into them)."""
    store = SqliteStateStore(path)
    try:
        for bucket in ("decisions", "pending", "outbox"):
            raw = await store.bucket(bucket)
            for n in range(150):
                await raw.put(f"act-{n}", b'{"filler": "%s"}' % (b"x" * 300))
    finally:
        await store.close()


async def test_a_new_state_file_and_its_folders_are_private(tmp_path: Path) -> None:
    path = tmp_path / "made" / "here" / "state.db"
    store = SqliteStateStore(path)
    try:
        await (await store.bucket("pending")).put("act-1", b"secret action")
        assert mode(path) == 0o600
        for side in (path.with_name("state.db-wal"), path.with_name("state.db-shm")):
            if side.exists():
                assert mode(side) & 0o077 == 0, side
    finally:
        await store.close()
    assert mode(tmp_path / "made") == 0o700
    assert mode(tmp_path / "made" / "here") == 0o700


async def test_an_existing_folder_keeps_its_mode(tmp_path: Path) -> None:
    await anyio.Path(tmp_path).chmod(0o755)
    store = SqliteStateStore(tmp_path / "state.db")
    await store.bucket("pending")
    await store.close()
    assert mode(tmp_path) == 0o755
    assert mode(tmp_path / "state.db") == 0o600


async def test_an_existing_file_readable_by_others_is_named_in_a_warning(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "shared.db"
    await written_state(path)
    await anyio.Path(path).chmod(0o644)
    store = SqliteStateStore(path)
    await store.bucket("pending")
    await store.close()
    assert f"chmod 600 {path}" in caplog.text
    assert mode(path) == 0o644, "a mode set on purpose is left as it is"


@pytest.mark.parametrize("cut", [8192, 100, 50_000])
async def test_a_truncated_or_garbage_file_is_one_clear_error(tmp_path: Path, cut: int) -> None:
    path = tmp_path / "state.db"
    await written_state(path)
    path.write_bytes(path.read_bytes()[:cut])
    garbage = tmp_path / "garbage.db"
    garbage.write_bytes(b"\x00\x01not sqlite at all" * 500)
    for broken in (path, garbage):
        store = SqliteStateStore(broken)
        with pytest.raises(StateError) as caught:
            await store.bucket("pending")
        assert str(broken) in str(caught.value)
        assert DAMAGED in str(caught.value)
        assert ADVICE in str(caught.value)
        await store.close()


async def test_a_file_that_is_not_a_humangr_state_is_refused(tmp_path: Path) -> None:
    other = tmp_path / "other.db"
    db = sqlite3.connect(other)
    db.execute("CREATE TABLE notes (body TEXT)")
    db.commit()
    db.close()
    empty = tmp_path / "empty.db"
    empty.write_bytes(b"")
    for path, create in ((other, True), (empty, False)):
        store = SqliteStateStore(path, create=create)
        with pytest.raises(StateError, match="is not a humangr state file"):
            await store.bucket("pending")
        await store.close()
    missing = SqliteStateStore(tmp_path / "missing.db", create=False)
    with pytest.raises(StateError, match="no such state file"):
        await missing.bucket("pending")
    assert not (tmp_path / "missing.db").exists()


async def test_rows_of_the_wrong_sql_type_are_quarantined_not_a_crash(tmp_path: Path) -> None:
    path = tmp_path / "state.db"
    store = SqliteStateStore(path)
    seen: list[Damaged] = []

    async def on_damaged(damaged: Damaged) -> None:
        seen.append(damaged)

    state = ReviewState(
        store, owner="sup", retention_s=3600, review_deadline_s=60, on_damaged=on_damaged
    )
    await state.open()
    db = sqlite3.connect(path)
    db.execute(
        "INSERT INTO entries VALUES ('inflight', 'act-t', 'text, not a blob', 'seven', 'now')"
    )
    db.execute("INSERT INTO entries VALUES ('pending', 'act-n', 12345, 3, 1e300)")
    db.execute("INSERT INTO entries VALUES ('pending', 'no such key!', X'00ff', 4, 1e300)")
    db.execute("UPDATE buckets SET ttl = 'forever' WHERE name = 'decisions'")
    db.commit()
    db.close()
    try:
        assert await state.stale_inflight() == []
        assert await state.pending_reviews() == []
        assert await state.pending_reviews() == [], "a row no store can remove is left out"
        assert await state.decision("act-none") is None
        assert await state.latest("not a key!") is None
        assert sorted((d.bucket, d.key) for d in seen) == [
            ("inflight", "act-t"),
            ("pending", "act-n"),
            ("pending", "no such key!"),
        ]
        assert await (await store.bucket("inflight")).entries() == []
        left = [e.key for e in await (await store.bucket("pending")).entries()]
        assert left == ["no such key!"]
    finally:
        await store.close()


def broken_files(tmp_path: Path) -> list[Path]:
    garbage = tmp_path / "garbage.db"
    garbage.write_bytes(b"SQLite format 3\x00" + b"\xff" * 4000)
    empty = tmp_path / "empty.db"
    empty.write_bytes(b"")
    return [garbage, empty]


@pytest.mark.parametrize("cut", [8192, 0])
async def test_reviews_on_a_damaged_state_file_is_one_clear_error(tmp_path: Path, cut: int) -> None:
    path = tmp_path / "state.db"
    await written_state(path)
    path.write_bytes(path.read_bytes()[:cut])
    for broken in (path, *broken_files(tmp_path)):
        result = humangr("reviews", "--state", str(broken))
        line = assert_error(result, str(broken))
        assert "no reviews pending" not in result.stdout + result.stderr
        assert DAMAGED in line or "is not a humangr state file" in line, line


async def test_serve_on_a_damaged_state_file_is_one_clear_error(
    tmp_path: Path, nats_url: str
) -> None:
    truncated = tmp_path / "truncated.db"
    await written_state(truncated)
    await anyio.Path(truncated).write_bytes((await anyio.Path(truncated).read_bytes())[:8192])
    for broken in (broken_files(tmp_path)[0], truncated):
        args = ("serve", "--nats", nats_url, "--role", "supervisor", "--state", str(broken))
        result = await anyio.to_thread.run_sync(functools.partial(humangr, *args))
        assert result.returncode == 3, result.stderr[-2000:]
        assert "Traceback" not in result.stderr
        last = result.stderr.strip().splitlines()[-1]
        assert last.startswith("humangr serve: cannot open the state file"), last
        assert str(broken) in last
        assert ADVICE in last


async def test_an_opened_store_commits_with_synchronous_full(tmp_path: Path) -> None:
    """Issue 24 item 1: each commit syncs the WAL (``synchronous=FULL``, 2), so a committed
    decision survives a power loss, not only a crash of the process (NORMAL, 1)."""
    store = SqliteStateStore(tmp_path / "state.db")
    try:
        raw = await store.bucket("decisions")
        await raw.create("act-1", b"{}")

        def pragmas(db: sqlite3.Connection) -> tuple[int, str]:
            (sync,) = db.execute("PRAGMA synchronous").fetchone()
            (journal,) = db.execute("PRAGMA journal_mode").fetchone()
            return int(sync), str(journal)

        assert await store._run(pragmas, write=False) == (2, "wal")
    finally:
        await store.close()
