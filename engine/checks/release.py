"""What the local checks are: a digest of their code and data, part of the policy version.

A standing decision answers the same call again under the same policy version. When HUMANGR is
upgraded, its checks (and the shipped ``resemblance`` model) may decide a call otherwise, so
the checks' own text is part of that version: after an upgrade every call is reviewed again
by the checks that now ship, instead of being answered by what older checks decided. The
digest covers the content of every ``.py`` and ``.json`` file of this package, by relative
path, so processes on different machines with the same release agree on it.
"""

from __future__ import annotations

import functools
import hashlib
from pathlib import Path

__all__ = ["checks_digest", "folder_digest"]

_SUFFIXES = (".py", ".json")


@functools.cache
def checks_digest() -> str:
    """sha256 (hex, 16 characters) of the local checks' files, computed once per process."""
    return folder_digest(Path(__file__).parent)


def folder_digest(root: Path) -> str:
    """sha256 (hex, 16 characters) of the ``.py`` and ``.json`` files under ``root``: each
    one's path relative to ``root``, size and content, in path order."""
    digest = hashlib.sha256()
    files = sorted(
        path
        for path in root.rglob("*")
        if path.suffix in _SUFFIXES and "__pycache__" not in path.parts and path.is_file()
    )
    for path in files:
        data = path.read_bytes()
        digest.update(f"{path.relative_to(root).as_posix()}\0{len(data)}\0".encode())
        digest.update(data)
    return digest.hexdigest()[:16]
