"""``SqliteStateStore``: the state store in one SQLite file (stdlib ``sqlite3``), for an engine
that runs in one process without NATS (``--state PATH``).

Every write is its own transaction (``BEGIN IMMEDIATE``, so processes sharing the file are
serialised) in WAL mode with ``synchronous=FULL``: the WAL is synced at every commit, so a
committed write survives a crash of the process and a power loss of the machine. Calls run in
a worker thread so the event loop keeps serving.
"""

from __future__ import annotations

import sqlite3
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

import anyio

from humangr.engine.errors import StateConflict, StateError

from .base import Bucket, Entry, check_key, check_name
from .sqlite_file import connect, damaged, is_damage

__all__ = ["SqliteStateStore"]

T = TypeVar("T")
PURGE_EVERY = 1_000
"""Writes to a bucket between two purges of its expired entries."""

_SCHEMA = """
CREATE TABLE IF NOT EXISTS buckets (
    name TEXT PRIMARY KEY,
    ttl REAL,
    last_revision INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS entries (
    bucket TEXT NOT NULL,
    key TEXT NOT NULL,
    value BLOB NOT NULL,
    revision INTEGER NOT NULL,
    written REAL NOT NULL,
    PRIMARY KEY (bucket, key)
);
"""


def _blob(value: object) -> bytes:
    """A stored value as bytes, whatever SQL type a damaged row gives it (a text, a number or
    a NULL reads as bytes that no record decodes from: it is quarantined, not a crash)."""
    if isinstance(value, bytes | bytearray | memoryview):
        return bytes(value)
    return b"" if value is None else str(value).encode("utf-8", "surrogatepass")


def _revision(value: object) -> int:
    """A stored revision; ``-1`` for a damaged row's (compare-and-set still works on it)."""
    return value if isinstance(value, int) and not isinstance(value, bool) else -1


def _number(value: object) -> float:
    return float(value) if isinstance(value, int | float) else 0.0


class SqliteBucket:
    def __init__(self, store: SqliteStateStore, name: str) -> None:
        self.store = store
        self.name = name
        self._writes = 0

    def _cutoff(self, db: sqlite3.Connection) -> float | None:
        row = db.execute("SELECT ttl FROM buckets WHERE name = ?", (self.name,)).fetchone()
        ttl = None if row is None else row[0]
        if not isinstance(ttl, int | float) or isinstance(ttl, bool):
            return None
        return time.time() - float(ttl)

    def _current(self, db: sqlite3.Connection, key: str) -> tuple[bytes, int] | None:
        row = db.execute(
            "SELECT value, revision, written FROM entries WHERE bucket = ? AND key = ?",
            (self.name, key),
        ).fetchone()
        if row is None:
            return None
        cutoff = self._cutoff(db)
        if cutoff is not None and _number(row[2]) < cutoff:
            return None
        return _blob(row[0]), _revision(row[1])

    def purge(self, db: sqlite3.Connection) -> None:
        """Delete the entries past the bucket's retention."""
        cutoff = self._cutoff(db)
        if cutoff is not None:
            db.execute("DELETE FROM entries WHERE bucket = ? AND written < ?", (self.name, cutoff))

    def _write(self, db: sqlite3.Connection, key: str, value: bytes) -> int:
        self._writes += 1
        if self._writes % PURGE_EVERY == 0:
            self.purge(db)
        db.execute(
            "UPDATE buckets SET last_revision = last_revision + 1 WHERE name = ?", (self.name,)
        )
        (revision,) = db.execute(
            "SELECT last_revision FROM buckets WHERE name = ?", (self.name,)
        ).fetchone()
        db.execute(
            "INSERT OR REPLACE INTO entries (bucket, key, value, revision, written) "
            "VALUES (?, ?, ?, ?, ?)",
            (self.name, key, bytes(value), revision, time.time()),
        )
        return int(revision)

    def _conflict(self, key: str, what: str) -> StateConflict:
        return StateConflict(f"{self.name}/{key} {what}")

    async def get(self, key: str) -> Entry | None:
        check_key(key)

        def read(db: sqlite3.Connection) -> Entry | None:
            found = self._current(db, key)
            return None if found is None else Entry(key, found[0], found[1])

        return await self.store._run(read, write=False)

    async def put(self, key: str, value: bytes) -> int:
        check_key(key)
        return await self.store._run(lambda db: self._write(db, key, value))

    async def create(self, key: str, value: bytes) -> int:
        check_key(key)

        def create(db: sqlite3.Connection) -> int:
            if self._current(db, key) is not None:
                raise self._conflict(key, "exists already")
            return self._write(db, key, value)

        return await self.store._run(create)

    async def update(self, key: str, value: bytes, revision: int) -> int:
        check_key(key)

        def update(db: sqlite3.Connection) -> int:
            found = self._current(db, key)
            if found is None or found[1] != revision:
                raise self._conflict(key, f"is not at revision {revision}")
            return self._write(db, key, value)

        return await self.store._run(update)

    async def delete(self, key: str, *, revision: int | None = None) -> None:
        check_key(key)

        def delete(db: sqlite3.Connection) -> None:
            if revision is not None:
                found = self._current(db, key)
                if found is None or found[1] != revision:
                    raise self._conflict(key, f"is not at revision {revision}")
            db.execute("DELETE FROM entries WHERE bucket = ? AND key = ?", (self.name, key))

        await self.store._run(delete)

    async def entries(self) -> list[Entry]:
        def read(db: sqlite3.Connection) -> list[Entry]:
            cutoff = self._cutoff(db)
            rows = db.execute(
                "SELECT key, value, revision FROM entries WHERE bucket = ? AND written >= ? "
                "ORDER BY key",
                (self.name, cutoff if cutoff is not None else float("-inf")),
            ).fetchall()
            return [Entry(str(k), _blob(v), _revision(r)) for k, v, r in rows]

        return await self.store._run(read, write=False)


class SqliteStateStore:
    """A ``StateStore`` in the SQLite file at ``path``: created private (0600, folders 0700)
    if missing, unless ``create`` is false (then it must be an existing humangr state file).
    A damaged or foreign file is a ``StateError`` naming it (see ``sqlite_file``)."""

    def __init__(self, path: Path | str, *, create: bool = True) -> None:
        self.path = Path(path)
        self.create = create
        self.description = f"SQLite {self.path}"
        self._lock = threading.Lock()
        self._db: sqlite3.Connection | None = None
        self._buckets: dict[str, SqliteBucket] = {}

    def _connect(self) -> sqlite3.Connection:
        if self._db is None:
            self._db = connect(self.path, _SCHEMA, create=self.create)
        return self._db

    def _transaction(self, work: Callable[[sqlite3.Connection], T], write: bool) -> T:
        with self._lock:
            db = self._connect()
            try:
                if not write:
                    return work(db)
                db.execute("BEGIN IMMEDIATE")
                try:
                    result = work(db)
                except BaseException:
                    db.execute("ROLLBACK")
                    raise
                db.execute("COMMIT")
                return result
            except sqlite3.Error as exc:
                if is_damage(exc):
                    raise damaged(self.path, str(exc), doing="read") from None
                raise StateError(f"state file {self.path}: {exc}") from exc

    async def _run(self, work: Callable[[sqlite3.Connection], T], *, write: bool = True) -> T:
        return await anyio.to_thread.run_sync(self._transaction, work, write)

    async def bucket(self, name: str, *, ttl: float | None = None) -> Bucket:
        check_name(name)

        def ensure(db: sqlite3.Connection) -> None:
            db.execute(
                "INSERT INTO buckets (name, ttl) VALUES (?, ?) "
                "ON CONFLICT (name) DO UPDATE SET ttl = excluded.ttl",
                (name, ttl),
            )

        found = self._buckets.get(name)
        if found is None:
            found = self._buckets[name] = SqliteBucket(self, name)
        bucket = found

        def ensure_and_purge(db: sqlite3.Connection) -> None:
            ensure(db)
            bucket.purge(db)

        await self._run(ensure_and_purge)
        return found

    async def close(self) -> None:
        def close() -> None:
            with self._lock:
                if self._db is not None:
                    self._db.close()
                    self._db = None

        await anyio.to_thread.run_sync(close)
