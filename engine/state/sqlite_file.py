"""Opening the SQLite file of a ``SqliteStateStore``: private, checked, one clear error.

A new file is created readable by its owner only (0600; SQLite gives its ``-wal`` and ``-shm``
files the same mode), in folders created 0700. An existing file is checked before use: it must
be a sound SQLite database (``PRAGMA quick_check``) holding humangr's tables — or, where the
caller may create the state, hold no tables yet. Anything else is one ``StateError`` naming
the file and what to do, never a traceback and never an empty state read from a damaged file.
"""

from __future__ import annotations

import contextlib
import logging
import os
import sqlite3
import stat
from pathlib import Path

from humangr.engine.errors import StateError

__all__ = ["TABLES", "connect", "damaged", "is_damage"]

log = logging.getLogger("humangr.state")

TABLES = {
    "buckets": {"name", "ttl", "last_revision"},
    "entries": {"bucket", "key", "value", "revision", "written"},
}
"""humangr's tables and the columns each must have."""
_DAMAGE = ("malformed", "not a database", "corrupt", "disk image", "file is encrypted")


def is_damage(exc: BaseException) -> bool:
    """Whether a SQLite error says the file is damaged (not busy, locked or unwritable)."""
    text = str(exc).lower()
    return isinstance(exc, sqlite3.DatabaseError) and any(word in text for word in _DAMAGE)


def damaged(path: Path, detail: str, *, doing: str = "open") -> StateError:
    """The error of a damaged state file: what, where, and what to do."""
    return StateError(
        f"cannot {doing} the state file {path}: it is damaged ({detail[:300]}); restore it from "
        "a backup, or move it aside to start with an empty state (the decisions and pending "
        "reviews it held are then lost)"
    )


def _make_private_folder(folder: Path) -> None:
    missing = []
    while not folder.exists():
        missing.append(folder)
        if folder.parent == folder:
            break
        folder = folder.parent
    for made in reversed(missing):
        with contextlib.suppress(FileExistsError):
            made.mkdir(mode=0o700)


def _create_private(path: Path) -> None:
    """Create ``path`` empty with mode 0600 unless it exists."""
    _make_private_folder(path.parent)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        return
    os.close(fd)


def _warn_if_shared(path: Path) -> None:
    """Warn about an existing state file others can read (its mode may be deliberate, so it
    is left as it is)."""
    with contextlib.suppress(OSError):
        mode = stat.S_IMODE(path.stat().st_mode)
        if mode & 0o077:
            log.warning(
                "the state file %s can be read by other users (mode %04o): it holds the "
                "actions under review; `chmod 600 %s` unless it is shared on purpose",
                path,
                mode,
                path,
            )


def _check(db: sqlite3.Connection, path: Path, *, create: bool) -> None:
    found = db.execute("PRAGMA quick_check(1)").fetchone()
    if found is None or found[0] != "ok":
        raise damaged(path, f"integrity check: {found[0] if found else 'no answer'}")
    tables = {
        str(name) for (name,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
    }
    if not tables and create:
        return
    for table, columns in TABLES.items():
        if table not in tables:
            raise StateError(
                f"{path} is not a humangr state file (it has no {table} table: it is empty, "
                "truncated, or another program's database); give the --state PATH that "
                "`humangr review` or `humangr serve` wrote, or restore the file from a backup"
            )
        have = {str(row[1]) for row in db.execute(f"PRAGMA table_info({table})")}
        if not columns <= have:
            raise damaged(path, f"the {table} table lacks {', '.join(sorted(columns - have))}")


def connect(path: Path, schema: str, *, create: bool) -> sqlite3.Connection:
    """A checked connection to the state file at ``path`` (created private if ``create`` and
    missing), with ``schema`` applied; ``StateError`` if it cannot be used."""
    try:
        if create:
            _create_private(path)
        elif not path.is_file():
            raise StateError(f"{path}: no such state file; give the path of an existing one")
        db = sqlite3.connect(path, timeout=30.0, isolation_level=None, check_same_thread=False)
    except OSError as exc:
        raise StateError(
            f"cannot open the state file {path}: {exc.strerror or exc}; check the path and its "
            "permissions"
        ) from None
    except sqlite3.Error as exc:
        raise StateError(
            f"cannot open the state file {path}: {exc}; check the path and its permissions"
        ) from None
    try:
        _check(db, path, create=create)
        db.execute("PRAGMA journal_mode=WAL")
        # FULL: WAL is synced at every commit, so a committed decision survives a power loss
        # or a kernel crash too (NORMAL keeps it through a process crash only).
        db.execute("PRAGMA synchronous=FULL")
        db.executescript(schema)
        _warn_if_shared(path)
    except StateError:
        db.close()
        raise
    except sqlite3.Error as exc:
        db.close()
        if is_damage(exc):
            raise damaged(path, str(exc)) from None
        raise StateError(
            f"cannot open the state file {path}: {exc}; check the path and its permissions "
            "(it must be a SQLite file written by humangr)"
        ) from None
    return db
