"""A dependency pinned to a registry release swapped, in the same edit, for a repository's
moving branch (for ``source_code``): ``acme==2.3.1`` made ``acme @ git+https://…/acme.git@main``,
``gem "stripe", "~> 10.3"`` made ``gem "stripe", git: "…", branch: "main"``, ``"lodash":
"^4.17.21"`` made ``"lodash": "github:someone/lodash#master"``. Whoever can push to that
branch (often an unknown fork) now ships code into every install and build.

A version bump, a repository pinned to a commit or tag, and a dependency newly added from a
repository are left alone: only a release replaced by a branch is read. Bounded: at most
``_MAX_LINES`` lines a hunk, each cut to 400 characters. Pure.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterator

from humangr.contracts import Severity

from .base import Hit, is_test_path, snippet
from .diff import FileDiff

__all__ = ["DEPENDENCY_FILES", "dependency_unpinned"]

DEPENDENCY_FILES = re.compile(
    r"^(?:requirements[\w.-]*\.(?:txt|in)|constraints[\w.-]*\.txt|Pipfile|pyproject\.toml|"
    r"setup\.cfg|Gemfile|package\.json|Cargo\.toml|go\.mod|composer\.json|[\w.-]*\.gemspec)$"
)
_MAX_LINES = 400
_GIT = re.compile(r"git\+|\bgit\s*[:=]|\bgithub\s*[:=]|\bgithub:|\.git\b|github\.com/|gitlab\.com/")
"""A dependency taken from a repository."""
_PINNED = re.compile(
    r"[@#=:\s\"'](?:v?\d+\.\d+[\w.-]*|[0-9a-f]{7,40})[\"'\s,}]*$|\b(?:tag|rev|ref|commit)\b"
    r"|[@#][0-9a-f]{7,40}\b|[@#]v?\d+\.\d+"
)
"""A repository source held at a commit or a release tag."""
_VERSION = re.compile(r"\d+\.\d+")
_NAME = re.compile(r"[A-Za-z][\w.-]{1,80}")
_KEYWORDS = frozenset({"gem", "require", "version", "git", "github", "path"})


def _name(line: str) -> str | None:
    """The package a dependency line names (its first word past ``gem``, quotes, indent)."""
    for m in _NAME.finditer(line[:200]):
        if m.group(0).lower() not in _KEYWORDS:
            return m.group(0).lower()
    return None


def _moving(line: str) -> bool:
    return bool(_GIT.search(line)) and not _PINNED.search(line)


def _swaps(file: FileDiff) -> Iterator[tuple[str, str, int]]:
    for hunk in file.hunks:
        released: dict[str, str] = {}
        for line in hunk.lines[:_MAX_LINES]:
            text = line.text[:400]
            if line.kind == "-" and _VERSION.search(text) and not _GIT.search(text):
                name = _name(text)
                if name is not None:
                    released[name] = text
            elif line.kind == "+" and line.new is not None and _moving(text):
                name = _name(text)
                if name is not None and name in released:
                    yield released[name], text, line.new


def dependency_unpinned(file: FileDiff, path: str) -> Iterator[Hit]:
    """The first dependency of a manifest that an edit moves from a release to a branch."""
    if file.deleted or is_test_path(path):
        return
    if not DEPENDENCY_FILES.match(posixpath.basename(path)):
        return
    for old, new, number in _swaps(file):
        yield Hit(
            Severity.HIGH,
            "a pinned dependency now follows a repository branch",
            f"{path}: `{snippet(old.strip(), 100)}` becomes `{snippet(new.strip(), 100)}`: "
            "whoever can push to that branch ships code into every install.",
            "Keep the registry release, or pin the repository to a reviewed commit.",
            file=path,
            line=number,
        )
        return
