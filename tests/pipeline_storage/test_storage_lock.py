"""The per-project file lock serialises writers across threads and processes."""

from __future__ import annotations

import fcntl
import os
import subprocess
import sys
import textwrap
import threading
from pathlib import Path

import pytest

from humangr.actors.pipeline.storage import LOCK_NAME, ProjectStore
from humangr.engine.errors import PathPolicyError

INCREMENTS = 40


def lock_is_free(store: ProjectStore) -> bool:
    """Probe the lock file without blocking, the way another writer would take it."""
    fd = os.open(store.dir / LOCK_NAME, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    else:
        fcntl.flock(fd, fcntl.LOCK_UN)
        return True
    finally:
        os.close(fd)


def increment(store: ProjectStore, times: int) -> None:
    for _ in range(times):
        with store.lock():
            value = int(store.read("docs/counter.txt"))
            store.write("docs/counter.txt", str(value + 1))


CHILD = """
import sys
from humangr.actors.pipeline.storage import ProjectStore
store = ProjectStore(sys.argv[1], "demo")
if sys.argv[2] == "hold":
    with store.lock():
        print("locked", flush=True)
        sys.stdin.readline()
    print("released", flush=True)
else:
    for _ in range(int(sys.argv[3])):
        with store.lock():
            value = int(store.read("docs/counter.txt"))
            store.write("docs/counter.txt", str(value + 1))
"""


def child(store: ProjectStore, *args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(CHILD), str(store.root), *args],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


@pytest.fixture
def store(tmp_path: Path) -> ProjectStore:
    return ProjectStore(tmp_path, "demo")


def test_the_lock_is_exclusive_while_held_and_free_after(store: ProjectStore) -> None:
    with store.lock():
        assert not lock_is_free(store)
        with store.lock():
            store.write("docs/a.md", "re-entrant")
        assert not lock_is_free(store)
    assert lock_is_free(store)
    assert store.read("docs/a.md") == "re-entrant"


def test_a_write_holds_the_lock_only_while_it_runs(store: ProjectStore) -> None:
    store.write("docs/a.md", "a")
    assert lock_is_free(store)


def test_another_process_holding_the_lock_blocks_writers(store: ProjectStore) -> None:
    store.write("docs/a.md", "before")
    holder = child(store, "hold")
    try:
        assert holder.stdout is not None
        assert holder.stdin is not None
        assert holder.stdout.readline().strip() == "locked"
        assert not lock_is_free(store)
        done = threading.Event()

        def write() -> None:
            store.write("docs/a.md", "after")
            done.set()

        writer = threading.Thread(target=write, daemon=True)
        writer.start()
        assert not done.is_set()
        assert store.read("docs/a.md") == "before"
        holder.stdin.write("go\n")
        holder.stdin.flush()
        writer.join(timeout=30)
        assert done.is_set()
        assert store.read("docs/a.md") == "after"
        assert holder.stdout.readline().strip() == "released"
    finally:
        holder.kill()
        holder.wait(timeout=30)


def test_threads_with_their_own_stores_do_not_lose_updates(store: ProjectStore) -> None:
    store.write("docs/counter.txt", "0")
    workers = [
        threading.Thread(target=increment, args=(ProjectStore(store.root, "demo"), INCREMENTS))
        for _ in range(4)
    ]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(timeout=60)
    assert store.read("docs/counter.txt") == str(4 * INCREMENTS)


def test_threads_sharing_one_store_do_not_lose_updates(store: ProjectStore) -> None:
    store.write("docs/counter.txt", "0")
    workers = [threading.Thread(target=increment, args=(store, INCREMENTS)) for _ in range(4)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(timeout=60)
    assert store.read("docs/counter.txt") == str(4 * INCREMENTS)


def test_processes_do_not_lose_updates(store: ProjectStore) -> None:
    store.write("docs/counter.txt", "0")
    procs = [child(store, "count", str(INCREMENTS)) for _ in range(3)]
    for proc in procs:
        _, err = proc.communicate(timeout=60)
        assert proc.returncode == 0, err
    assert store.read("docs/counter.txt") == str(3 * INCREMENTS)


def test_a_symlinked_lock_file_is_refused_not_followed(store: ProjectStore, tmp_path: Path) -> None:
    target = tmp_path / "elsewhere.lock"
    store.dir.mkdir(parents=True)
    os.symlink(target, store.dir / LOCK_NAME)
    with pytest.raises(PathPolicyError, match="lock file is a symlink"):
        store.write("docs/a.md", "x")
    with pytest.raises(PathPolicyError, match="lock file is a symlink"):
        store.append("docs/a.md", "x")
    assert not target.exists()
    assert not (store.dir / "docs").exists()
