"""Project files: the path policy of DESIGN.md §7, atomic writes and a per-project file lock.

Artifacts live under ``<root>/<project_id>/`` in ``docs/``, ``project/`` or ``apps/``.
``check_path`` is the pure policy (no I/O); ``ProjectStore.resolve`` adds the symlink check on
the real filesystem. A refused path raises ``PathPolicyError`` naming the path and the problem,
so the caller can tell the agent; nothing is ever dropped silently.

Writes are atomic: a unique temp file in the target's directory, fsync, ``os.replace``, then an
fsync of the directory. Every write holds an exclusive ``flock`` on ``<project>/.humangr.lock``
(re-entrant within one store), so writers in other threads or processes are serialised. The API
is synchronous; async callers use ``anyio.to_thread.run_sync``.
"""

from __future__ import annotations

import builtins
import fcntl
import os
import re
import tempfile
import threading
import unicodedata
from collections.abc import Iterator, Sequence
from contextlib import contextmanager, suppress
from pathlib import Path

from humangr.contracts import Artifact
from humangr.engine.errors import PathPolicyError

__all__ = [
    "ALLOWED_TOPS",
    "LOCK_NAME",
    "MAX_PATH_CHARS",
    "MAX_SEGMENT_CHARS",
    "TEMP_SUFFIX",
    "ProjectStore",
    "check_path",
    "validate_project_id",
]

ALLOWED_TOPS = ("docs", "project", "apps")
"""The only top-level folders an artifact may live in."""
MAX_PATH_CHARS = 512
MAX_SEGMENT_CHARS = 255
LOCK_NAME = ".humangr.lock"
TEMP_SUFFIX = ".humangr-tmp"
"""Suffix of in-flight temp files; reserved, never listed, never a valid artifact name."""

_PROJECT_ID = re.compile(r"[a-z0-9][a-z0-9_-]{0,62}")
_DRIVE = re.compile(r"[A-Za-z]:")
_BAD_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Zl", "Zp"})


def validate_project_id(project_id: str) -> str:
    """Return ``project_id`` if it matches ``[a-z0-9][a-z0-9_-]{0,62}``, else raise."""
    if not isinstance(project_id, str) or _PROJECT_ID.fullmatch(project_id) is None:
        raise PathPolicyError(
            str(project_id), "project_id must match [a-z0-9][a-z0-9_-]{0,62} (lower case)"
        )
    return project_id


def _segments(path: str, *, what: str) -> list[str]:
    if not isinstance(path, str) or not path:
        raise PathPolicyError(str(path), f"{what} is empty")
    if len(path) > MAX_PATH_CHARS:
        raise PathPolicyError(path[:64] + "…", f"{what} is longer than {MAX_PATH_CHARS} chars")
    bad = next((c for c in path if unicodedata.category(c) in _BAD_CATEGORIES), None)
    if bad is not None:
        raise PathPolicyError(path, f"control or format character U+{ord(bad):04X} in {what}")
    if "\\" in path:
        raise PathPolicyError(path, "backslashes are not allowed; use '/'")
    if path.startswith("/"):
        raise PathPolicyError(path, f"absolute {what}; use a path relative to the project")
    if _DRIVE.match(path):
        raise PathPolicyError(path, "drive letters are not allowed")
    segments = path.split("/")
    for segment in segments:
        if segment == "":
            raise PathPolicyError(path, "empty segment ('//', leading or trailing '/')")
        if segment in (".", ".."):
            raise PathPolicyError(path, f"'{segment}' segments are not allowed")
        if segment.startswith("~"):
            raise PathPolicyError(path, "'~' (home directory) is not allowed")
        if len(segment) > MAX_SEGMENT_CHARS:
            raise PathPolicyError(path, f"a segment is longer than {MAX_SEGMENT_CHARS} chars")
    if segments[0] not in ALLOWED_TOPS:
        raise PathPolicyError(path, "must start with docs/, project/ or apps/")
    return segments


def check_path(path: str) -> str:
    """The pure path policy: return ``path`` if an artifact may be written there, else raise.

    Refused: empty, overlong, control/format characters (NUL included), backslashes, absolute
    paths, drive letters, empty / ``.`` / ``..`` / ``~`` segments, anything outside ``docs/``,
    ``project/`` or ``apps/``, a bare top folder, and the reserved temp-file suffix.
    """
    segments = _segments(path, what="path")
    if len(segments) < 2:
        raise PathPolicyError(path, "must name a file inside docs/, project/ or apps/")
    if segments[-1].endswith(TEMP_SUFFIX):
        raise PathPolicyError(path, f"the suffix {TEMP_SUFFIX!r} is reserved")
    return path


def _fsync_dir(directory: Path) -> None:
    fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


class ProjectStore:
    """The files of one project under ``<root>/<project_id>/``: the one way artifacts reach disk."""

    def __init__(self, root: Path | str, project_id: str) -> None:
        self.project_id = validate_project_id(project_id)
        self.root = Path(root)
        self.dir = self.root / self.project_id
        self._mutex = threading.RLock()
        self._depth = 0
        self._lock_fd: int | None = None

    def _base(self) -> Path:
        return Path(os.path.realpath(self.dir))

    def resolve(self, path: str) -> Path:
        """The real path of ``path`` in the project; refused if the policy or a symlink says no."""
        check_path(path)
        base = self._base()
        real = Path(os.path.realpath(base / path))
        if real == base or not real.is_relative_to(base):
            raise PathPolicyError(path, "resolves outside the project root (symlink)")
        return real

    def _target(self, path: str) -> Path:
        real = self.resolve(path)
        if real.is_dir():
            raise PathPolicyError(path, "is an existing directory")
        base = self._base()
        for parent in real.parents:
            if parent == base or not parent.is_relative_to(base):
                break
            if parent.exists() and not parent.is_dir():
                raise PathPolicyError(path, f"{parent.relative_to(base)} is a file, not a folder")
        return real

    @contextmanager
    def lock(self) -> Iterator[None]:
        """Hold the project's exclusive file lock (re-entrant in one store, blocks others)."""
        with self._mutex:
            if self._depth == 0:
                self.dir.mkdir(parents=True, exist_ok=True)
                fd = os.open(self.dir / LOCK_NAME, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o644)
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX)
                except BaseException:
                    os.close(fd)
                    raise
                self._lock_fd = fd
            self._depth += 1
            try:
                yield
            finally:
                self._depth -= 1
                if self._depth == 0 and self._lock_fd is not None:
                    fd, self._lock_fd = self._lock_fd, None
                    fcntl.flock(fd, fcntl.LOCK_UN)
                    os.close(fd)

    def _makedirs(self, directory: Path) -> None:
        missing = [d for d in (directory, *directory.parents) if not d.exists()]
        for d in reversed(missing):
            d.mkdir(exist_ok=True)
            _fsync_dir(d.parent)

    def _stage(self, target: Path, data: bytes) -> Path:
        self._makedirs(target.parent)
        fd, tmp = tempfile.mkstemp(
            prefix=f".{target.name[:100]}.", suffix=TEMP_SUFFIX, dir=target.parent
        )
        try:
            with os.fdopen(fd, "wb") as handle:
                handle.write(data)
                handle.flush()
                os.fchmod(handle.fileno(), 0o644)
                os.fsync(handle.fileno())
        except BaseException:
            with suppress(OSError):
                os.unlink(tmp)
            raise
        return Path(tmp)

    def write(self, path: str, content: str) -> str:
        """Atomically replace (or create) the file at ``path``; returns the relative path."""
        return self.write_many([Artifact(path=path, content=content)])[0]

    def write_many(self, artifacts: Sequence[Artifact]) -> builtins.list[str]:
        """Write every artifact or none: all paths are checked and all contents staged first.

        A refused path (or a duplicate, or a path that needs another artifact to be a folder)
        raises ``PathPolicyError`` before any file is touched; a failure while staging removes
        the staged temp files and leaves every existing file as it was.
        """
        with self.lock():
            planned: builtins.list[tuple[str, Path, bytes]] = []
            seen: set[Path] = set()
            for artifact in artifacts:
                target = self._target(artifact.path)
                if target in seen:
                    raise PathPolicyError(artifact.path, "written twice in one batch")
                seen.add(target)
                planned.append((artifact.path, target, artifact.content.encode("utf-8")))
            for path, target, _ in planned:
                if any(target in other.parents for other in seen):
                    raise PathPolicyError(path, "another artifact needs it to be a folder")
            staged: builtins.list[tuple[Path, Path]] = []
            try:
                for _, target, data in planned:
                    staged.append((self._stage(target, data), target))
            except BaseException:
                for tmp, _ in staged:
                    with suppress(OSError):
                        os.unlink(tmp)
                raise
            for tmp, target in staged:
                os.replace(tmp, target)
            for directory in {target.parent for _, target in staged}:
                _fsync_dir(directory)
            return [path for path, _, _ in planned]

    def append(self, path: str, line: str) -> None:
        """Append ``line`` (plus a newline) to ``path`` under the lock, then fsync.

        A torn last line from an earlier crash is closed first, so each append stays one line.
        """
        if "\n" in line or "\r" in line:
            raise ValueError("append() takes exactly one line without line breaks")
        with self.lock():
            target = self._target(path)
            self._makedirs(target.parent)
            created = not target.exists()
            fd = os.open(target, os.O_RDWR | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW, 0o644)
            try:
                size = os.fstat(fd).st_size
                torn = size > 0 and os.pread(fd, 1, size - 1) != b"\n"
                os.write(fd, (b"\n" if torn else b"") + line.encode("utf-8") + b"\n")
                os.fsync(fd)
            finally:
                os.close(fd)
            if created:
                _fsync_dir(target.parent)

    def read(self, path: str) -> str:
        """The text of the file at ``path`` (``FileNotFoundError`` if there is none)."""
        return self.resolve(path).read_text(encoding="utf-8")

    def exists(self, path: str) -> bool:
        """Whether a file exists at ``path``; a refused path raises rather than answering."""
        return self.resolve(path).is_file()

    def list(self, prefix: str = "") -> builtins.list[str]:
        """Sorted relative paths of the files under ``prefix`` (a folder such as ``docs/qa``).

        Temp files, and symlinks whose target leaves the project, are not listed.
        """
        base = self._base()
        if prefix.strip("/") == "":
            starts = builtins.list(ALLOWED_TOPS)
        else:
            _segments(prefix.rstrip("/"), what="prefix")
            starts = [prefix.rstrip("/")]
        found: builtins.list[str] = []
        for start in starts:
            top = base / start
            if not Path(os.path.realpath(top)).is_relative_to(base) or not top.is_dir():
                continue
            for folder, _, files in os.walk(top):
                for name in files:
                    full = Path(folder) / name
                    if name.endswith(TEMP_SUFFIX) or not full.is_file():
                        continue
                    if Path(os.path.realpath(full)).is_relative_to(base):
                        found.append(full.relative_to(base).as_posix())
        return sorted(found)
