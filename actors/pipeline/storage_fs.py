"""File-descriptor primitives of ``ProjectStore`` that never follow a link.

Every folder is opened relative to its parent's descriptor with ``O_NOFOLLOW``, so a symlink
met on the way (even one that appears between a check and a write) is refused with
``PathPolicyError`` rather than followed. Files are opened the same way and checked with
``fstat``: only regular files with exactly one link are read or appended to.
"""

from __future__ import annotations

import errno
import os
import posixpath
import secrets
import stat
from contextlib import suppress
from pathlib import Path

from humangr.engine.errors import PathPolicyError
from humangr.engine.path_policy import RESERVED_NAME_PREFIX, TEMP_SUFFIX, check_path

__all__ = [
    "DIR_FLAGS",
    "FILE_FLAGS",
    "LINK_ERRNOS",
    "NEW_FILE_FLAGS",
    "NO_LINKS",
    "Staged",
    "check_file",
    "fsync_folder",
    "link_problem",
    "open_append",
    "open_folder",
    "resolve_root",
    "stage",
    "walk_files",
]

DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
FILE_FLAGS = os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK
NEW_FILE_FLAGS = os.O_CREAT | os.O_EXCL | FILE_FLAGS
LINK_ERRNOS = frozenset({errno.ELOOP, errno.ENOTDIR, errno.EMLINK})
NO_LINKS = "the store never follows links: remove the link or use another path"


def resolve_root(root: Path | str) -> Path:
    """The real path of a projects root. A root that is itself a symlink, or not a folder,
    is refused: files must not land somewhere other than the folder named."""
    given = Path(os.path.abspath(root))
    if given.is_symlink():
        raise PathPolicyError(
            str(root),
            f"the projects root is a symlink (to {os.path.realpath(given)}); pass the real folder",
        )
    real = Path(os.path.realpath(given))
    if real.exists() and not real.is_dir():
        raise PathPolicyError(str(root), "the projects root is not a folder")
    return real


def fsync_folder(fd: int) -> None:
    """Make a folder's new or renamed entries durable."""
    os.fsync(fd)


def link_problem(parent: int, name: str, shown: str) -> str:
    """Why ``name`` in ``parent`` could not be opened as a folder: a symlink, or a file."""
    try:
        mode = os.stat(name, dir_fd=parent, follow_symlinks=False).st_mode
    except OSError:
        return f"{shown} changed while it was opened; try again"
    if stat.S_ISLNK(mode):
        return f"{shown} is a symlink; {NO_LINKS}"
    return f"{shown} is a file, not a folder"


def check_file(path: str, info: os.stat_result) -> None:
    """Refuse (``PathPolicyError``) anything but a regular file with exactly one link."""
    if not stat.S_ISREG(info.st_mode):
        raise PathPolicyError(path, "is not a regular file")
    if info.st_nlink != 1:
        raise PathPolicyError(
            path,
            f"has {info.st_nlink} hard links; the store never reads or appends to a hard-linked "
            "file (its other name may be outside the project): remove the extra links",
        )


def open_folder(parent: int, name: str, path: str, shown: str, create: bool) -> int | None:
    """Open the folder ``name`` in ``parent`` without following a link (creating it)."""
    for attempt in range(2):
        try:
            return os.open(name, DIR_FLAGS, dir_fd=parent)
        except FileNotFoundError:
            if not create or attempt:
                return None
        except OSError as exc:
            if exc.errno not in LINK_ERRNOS:
                raise
            raise PathPolicyError(path, link_problem(parent, name, shown)) from None
        with suppress(FileExistsError):
            os.mkdir(name, 0o755, dir_fd=parent)
            fsync_folder(parent)
    return None


def stage(folder: int, data: bytes) -> str:
    """Write ``data`` to a new temp file in ``folder`` (fsynced, mode 0644); its name."""
    while True:
        tmp = f"{RESERVED_NAME_PREFIX}-{secrets.token_hex(8)}{TEMP_SUFFIX}"
        try:
            fd = os.open(tmp, NEW_FILE_FLAGS | os.O_WRONLY, 0o644, dir_fd=folder)
        except FileExistsError:
            continue
        break
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fchmod(handle.fileno(), 0o644)
            os.fsync(handle.fileno())
    except BaseException:
        with suppress(OSError):
            os.unlink(tmp, dir_fd=folder)
        raise
    return tmp


def open_append(folder: int, name: str, path: str) -> tuple[int, bool]:
    """Open (or create) ``name`` in ``folder`` for appending, never through a symlink; the fd
    and whether it was created. The caller checks the fd with ``check_file``."""
    flags = os.O_RDWR | os.O_APPEND | FILE_FLAGS
    try:
        try:
            return os.open(name, flags, dir_fd=folder), False
        except FileNotFoundError:
            fd = os.open(name, flags | NEW_FILE_FLAGS, 0o644, dir_fd=folder)
            os.fchmod(fd, 0o644)
            return fd, True
    except OSError as exc:
        if exc.errno not in LINK_ERRNOS:
            raise
        raise PathPolicyError(path, f"is a symlink; {NO_LINKS}") from None


def walk_files(top: int, start: str) -> list[str]:
    """The project paths (``start/…``) of the files under the folder ``top`` that the store
    would read: regular, one link, accepted by the path policy; symlinked folders are skipped."""
    found: list[str] = []
    for folder, _, files, fd in os.fwalk(".", dir_fd=top, follow_symlinks=False):
        for name in files:
            try:
                info = os.stat(name, dir_fd=fd, follow_symlinks=False)
            except OSError:
                continue
            if not stat.S_ISREG(info.st_mode) or info.st_nlink != 1:
                continue
            relative = posixpath.normpath(posixpath.join(start, folder, name))
            try:
                found.append(check_path(relative))
            except PathPolicyError:
                continue
    return found


class Staged:
    """Temp files staged in their folders: ``commit`` renames them all into place; leaving
    without a commit (an error) removes them. The folders' fds are closed either way."""

    def __init__(self) -> None:
        self.items: list[tuple[int, str, str]] = []

    def __enter__(self) -> Staged:
        return self

    def add(self, folder: int, tmp: str, name: str) -> None:
        self.items.append((folder, tmp, name))

    def commit(self) -> None:
        for folder, tmp, name in self.items:
            os.replace(tmp, name, src_dir_fd=folder, dst_dir_fd=folder)
        for folder, _, _ in self.items:
            fsync_folder(folder)

    def __exit__(self, *exc: object) -> None:
        for folder, tmp, _ in self.items:
            with suppress(OSError):
                os.unlink(tmp, dir_fd=folder)
            os.close(folder)
