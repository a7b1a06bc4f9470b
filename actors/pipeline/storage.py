"""Project files: atomic writes under the path policy, a per-project file lock, and no link
ever followed.

Artifacts live under ``<root>/<project_id>/`` in ``docs/``, ``project/`` or ``apps/``; the pure
policy is ``engine.path_policy.check_path``. On disk the store never follows a link: the root
is resolved once (a root that is itself a symlink is refused), and every operation walks from
it folder by folder with ``O_NOFOLLOW`` file descriptors, so a symlinked project folder, top
folder, sub-folder or file is refused with ``PathPolicyError`` — even one that appears between
the check and the write. A file with more than one hard link (it may be a file outside the
project) is never appended to or read, and a write replaces the name rather than the content.

Writes are atomic: a unique temp file in the target's folder, fsync, ``os.replace``, then an
fsync of the folder. Every write holds an exclusive ``flock`` on ``<project>/.humangr.lock``
(re-entrant within one store), so writers in other threads or processes are serialised. The API
is synchronous; async callers use ``anyio.to_thread.run_sync``.
"""

from __future__ import annotations

import builtins
import errno
import fcntl
import os
import stat
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

from humangr.actors.pipeline.storage_fs import (
    DIR_FLAGS,
    FILE_FLAGS,
    LINK_ERRNOS,
    NO_LINKS,
    Staged,
    check_file,
    fsync_folder,
    open_append,
    open_folder,
    resolve_root,
    stage,
    walk_files,
)
from humangr.contracts import Artifact
from humangr.engine.errors import PathPolicyError
from humangr.engine.path_policy import (
    ALLOWED_TOPS,
    LOCK_NAME,
    MAX_PATH_CHARS,
    MAX_SEGMENT_BYTES,
    TEMP_SUFFIX,
    check_path,
    check_prefix,
    validate_project_id,
)

__all__ = [
    "ALLOWED_TOPS",
    "LOCK_NAME",
    "MAX_PATH_CHARS",
    "MAX_SEGMENT_BYTES",
    "TEMP_SUFFIX",
    "ProjectStore",
    "check_path",
    "resolve_root",
    "validate_project_id",
]


def _split(path: str) -> tuple[list[str], str]:
    *parents, name = check_path(path).split("/")
    return parents, name


class ProjectStore:
    """The files of one project under ``<root>/<project_id>/``: the one way artifacts reach disk."""

    def __init__(self, root: Path | str, project_id: str) -> None:
        self.project_id = validate_project_id(project_id)
        self.root = resolve_root(root)
        self.dir = self.root / self.project_id
        if self.dir.is_symlink():
            raise PathPolicyError(str(self.dir), f"the project folder is a symlink; {NO_LINKS}")
        self._mutex = threading.RLock()
        self._depth = 0
        self._lock_fd: int | None = None

    def _open_project(self, *, create: bool) -> int | None:
        """An fd of the project folder (``None`` if it does not exist and ``create`` is off)."""
        if create:
            self.root.mkdir(parents=True, exist_ok=True)
        try:
            root = os.open(self.root, DIR_FLAGS)
        except FileNotFoundError:
            return None
        except OSError as exc:
            if exc.errno not in LINK_ERRNOS:
                raise
            raise PathPolicyError(
                str(self.root), f"the projects root is no longer a real folder; {NO_LINKS}"
            ) from None
        try:
            return open_folder(root, self.project_id, str(self.dir), "the project folder", create)
        finally:
            os.close(root)

    @contextmanager
    def _folder(self, path: str, parents: Sequence[str], *, create: bool) -> Iterator[int | None]:
        """An fd of the folder ``parents`` in the project, walked without following links;
        ``None`` when a folder is missing (and ``create`` is off)."""
        fd = self._open_project(create=create)
        try:
            for depth, name in enumerate(parents, start=1):
                if fd is None:
                    break
                current, fd = fd, None
                try:
                    fd = open_folder(current, name, path, "/".join(parents[:depth]), create)
                finally:
                    os.close(current)
            yield fd
        finally:
            if fd is not None:
                os.close(fd)

    def resolve(self, path: str) -> Path:
        """The project file ``path`` may be written to: refused (``PathPolicyError``) when the
        policy says no, a folder on the way is a symlink or a file, or the path is a symlink
        or an existing folder. Nothing is created."""
        parents, name = _split(path)
        with self._folder(path, parents, create=False) as folder:
            if folder is not None:
                try:
                    mode = os.stat(name, dir_fd=folder, follow_symlinks=False).st_mode
                except FileNotFoundError:
                    mode = 0
                if stat.S_ISLNK(mode):
                    raise PathPolicyError(path, f"is a symlink; {NO_LINKS}")
                if stat.S_ISDIR(mode):
                    raise PathPolicyError(path, "is an existing directory")
        return self.dir / path

    @contextmanager
    def lock(self) -> Iterator[None]:
        """Hold the project's exclusive file lock (re-entrant in one store, blocks others)."""
        with self._mutex:
            if self._depth == 0:
                project = self._open_project(create=True)
                if project is None:
                    raise PathPolicyError(str(self.dir), "the project folder vanished; try again")
                try:
                    fd = os.open(
                        LOCK_NAME, os.O_RDWR | os.O_CREAT | FILE_FLAGS, 0o644, dir_fd=project
                    )
                except OSError as exc:
                    if exc.errno not in LINK_ERRNOS:
                        raise
                    raise PathPolicyError(
                        LOCK_NAME, f"the lock file is a symlink; {NO_LINKS}"
                    ) from None
                finally:
                    os.close(project)
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
            planned: builtins.list[tuple[str, bytes]] = []
            for artifact in artifacts:
                self.resolve(artifact.path)
                if any(artifact.path == path for path, _ in planned):
                    raise PathPolicyError(artifact.path, "written twice in one batch")
                planned.append((artifact.path, artifact.content.encode("utf-8")))
            for path, _ in planned:
                if any(other.startswith(path + "/") for other, _ in planned):
                    raise PathPolicyError(path, "another artifact needs it to be a folder")
            with Staged() as staged:
                for path, data in planned:
                    parents, name = _split(path)
                    with self._folder(path, parents, create=True) as folder:
                        if folder is None:
                            raise PathPolicyError(path, "its folder vanished while writing")
                        tmp = stage(folder, data)
                        try:
                            staged.add(os.dup(folder), tmp, name)
                        except OSError:
                            os.unlink(tmp, dir_fd=folder)
                            raise
                staged.commit()
            return [path for path, _ in planned]

    def append(self, path: str, line: str) -> None:
        """Append ``line`` (plus a newline) to ``path`` under the lock, then fsync.

        A torn last line from an earlier crash is closed first, so each append stays one line.
        Refused: a symlink anywhere on the way, and a file with more than one hard link.
        """
        if "\n" in line or "\r" in line:
            raise ValueError("append() takes exactly one line without line breaks")
        with self.lock():
            self.resolve(path)
            parents, name = _split(path)
            with self._folder(path, parents, create=True) as folder:
                if folder is None:
                    raise PathPolicyError(path, "its folder vanished while writing")
                fd, created = open_append(folder, name, path)
                try:
                    info = os.fstat(fd)
                    check_file(path, info)
                    torn = info.st_size > 0 and os.pread(fd, 1, info.st_size - 1) != b"\n"
                    data = memoryview((b"\n" if torn else b"") + line.encode("utf-8") + b"\n")
                    while data:
                        data = data[os.write(fd, data) :]
                    os.fsync(fd)
                finally:
                    os.close(fd)
                if created:
                    fsync_folder(folder)

    def read(self, path: str) -> str:
        """The text of the file at ``path`` (``FileNotFoundError`` if there is none; a symlink
        or a hard-linked file is refused)."""
        parents, name = _split(path)
        with self._folder(path, parents, create=False) as folder:
            if folder is None:
                raise FileNotFoundError(errno.ENOENT, "no such file in the project", path)
            try:
                fd = os.open(name, os.O_RDONLY | FILE_FLAGS, dir_fd=folder)
            except OSError as exc:
                if exc.errno not in LINK_ERRNOS:
                    raise
                raise PathPolicyError(path, f"is a symlink; {NO_LINKS}") from None
        with os.fdopen(fd, "rb") as handle:
            info = os.fstat(handle.fileno())
            if stat.S_ISDIR(info.st_mode):
                raise IsADirectoryError(errno.EISDIR, "is a directory", path)
            check_file(path, info)
            return handle.read().decode("utf-8")

    def exists(self, path: str) -> bool:
        """Whether a file exists at ``path``; a refused path or a symlink raises rather than
        answering."""
        parents, name = _split(path)
        with self._folder(path, parents, create=False) as folder:
            if folder is None:
                return False
            try:
                mode = os.stat(name, dir_fd=folder, follow_symlinks=False).st_mode
            except FileNotFoundError:
                return False
        if stat.S_ISLNK(mode):
            raise PathPolicyError(path, f"is a symlink; {NO_LINKS}")
        return stat.S_ISREG(mode)

    def list(self, prefix: str = "") -> builtins.list[str]:
        """Sorted relative paths of the files under ``prefix`` (a folder such as ``docs/qa``).

        Only what the store would read is listed: no temp files, no symlinks (nor anything
        under a symlinked folder), no hard-linked files, no name the path policy refuses.
        """
        if prefix.strip("/") == "":
            starts = builtins.list(ALLOWED_TOPS)
        else:
            starts = ["/".join(check_prefix(prefix.rstrip("/")))]
        found: builtins.list[str] = []
        for start in starts:
            try:
                with self._folder(start, start.split("/"), create=False) as top:
                    if top is not None:
                        found += walk_files(top, start)
            except PathPolicyError:
                continue
        return sorted(found)
