"""The path policy (docs/design.md#path-policy-and-storage), pure (no I/O): where an artifact
may live, and who may write there.

``check_path`` says whether a path may hold an artifact at all; ``write_problem`` says whether
one agent may write it (its write set). A refused path raises ``PathPolicyError`` naming the
path and the problem, so the caller can tell the agent; nothing is ever dropped silently.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping
from types import MappingProxyType

from humangr.contracts import AgentName
from humangr.engine.errors import PathPolicyError

__all__ = [
    "ALLOWED_TOPS",
    "LOCK_NAME",
    "MAX_PATH_CHARS",
    "MAX_SEGMENT_BYTES",
    "RESERVED_NAME_PREFIX",
    "TEMP_SUFFIX",
    "WRITE_SETS",
    "check_path",
    "check_prefix",
    "validate_project_id",
    "write_problem",
    "write_set",
]

ALLOWED_TOPS = ("docs", "project", "apps")
"""The only top-level folders an artifact may live in."""
MAX_PATH_CHARS = 512
MAX_SEGMENT_BYTES = 255
"""A segment's limit in UTF-8 bytes (what filesystems count), not in characters."""
RESERVED_NAME_PREFIX = ".humangr"
"""Names of the store's own files (lock, breakers, temp files) start with it; never an artifact."""
LOCK_NAME = ".humangr.lock"
TEMP_SUFFIX = ".humangr-tmp"
"""Suffix of in-flight temp files; reserved, never listed, never a valid artifact name."""

WRITE_SETS: Mapping[AgentName, tuple[str, ...]] = MappingProxyType(
    {
        AgentName.CTO: ("docs/spec/", "docs/cto/"),
        AgentName.ENGINEER: ("docs/engineer/",),
        AgentName.PM: ("docs/pm/",),
        AgentName.QA: ("docs/qa/",),
        AgentName.DEV: ("apps/", "project/", "docs/dev/"),
    }
)
"""The folders each agent's artifacts may be written to. ``docs/monitor/`` is in none: the
Monitor and the audit log write it through the store directly. Code reaches ``apps/`` and
``project/`` only as the Dev's output, after the seven review layers approved it."""

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


def _segment_problem(segment: str) -> str | None:
    if segment == "":
        return "empty segment ('//', leading or trailing '/')"
    if segment in (".", ".."):
        return f"'{segment}' segments are not allowed"
    if segment.startswith("~"):
        return "'~' (home directory) is not allowed"
    size = len(segment.encode("utf-8"))
    if size > MAX_SEGMENT_BYTES:
        return f"a segment is longer than {MAX_SEGMENT_BYTES} bytes in UTF-8 ({size} bytes)"
    if segment[-1] in ". ":
        return (
            "a segment ends with a dot or a space (some filesystems drop them, so two "
            "names would be one file); rename it"
        )
    return None


def _reserved_problem(segment: str) -> str | None:
    folded = segment.casefold()
    if folded == ".git":
        return "'.git' is not allowed anywhere (it holds a repository's configuration and hooks)"
    if folded.startswith(RESERVED_NAME_PREFIX) or folded.endswith(TEMP_SUFFIX):
        return (
            f"names starting with {RESERVED_NAME_PREFIX!r} or ending with {TEMP_SUFFIX!r} are "
            "reserved for the store's own files"
        )
    return None


def _problem(path: str, what: str) -> str | None:
    if not isinstance(path, str) or not path:
        return f"{what} is empty"
    if len(path) > MAX_PATH_CHARS:
        return f"{what} is longer than {MAX_PATH_CHARS} chars"
    bad = next((c for c in path if unicodedata.category(c) in _BAD_CATEGORIES), None)
    if bad is not None:
        return f"control or format character U+{ord(bad):04X} in {what}"
    if "\\" in path:
        return "backslashes are not allowed; use '/'"
    if path.startswith("/"):
        return f"absolute {what}; use a path relative to the project"
    if _DRIVE.match(path):
        return "drive letters are not allowed"
    segments = path.split("/")
    found = next(filter(None, map(_segment_problem, segments)), None)
    if found is not None:
        return found
    if segments[0] not in ALLOWED_TOPS:
        return "must start with docs/, project/ or apps/"
    return next(filter(None, map(_reserved_problem, segments)), None)


def _check(path: str, what: str) -> list[str]:
    problem = _problem(path, what)
    if problem is not None:
        shown = path[:64] + "…" if isinstance(path, str) and len(path) > MAX_PATH_CHARS else path
        raise PathPolicyError(str(shown), problem)
    folded = unicodedata.normalize("NFKC", path)
    if folded != path:
        problem = _problem(folded, what)
        if problem is not None:
            raise PathPolicyError(
                path, f"reads as {folded!r} once normalised (NFKC), which is refused: {problem}"
            )
    return path.split("/")


def check_path(path: str) -> str:
    """The pure path policy: return ``path`` if an artifact may be written there, else raise.

    Refused: empty, overlong (512 characters; 255 UTF-8 bytes per segment), control/format
    characters (NUL included), backslashes, absolute paths, drive letters, empty / ``.`` /
    ``..`` / ``~`` segments, segments ending with a dot or a space, anything outside ``docs/``,
    ``project/`` or ``apps/``, a bare top folder, ``.git`` anywhere, the store's own names
    (``.humangr…``, ``…{TEMP_SUFFIX}``), and any path whose NFKC form (``．．`` → ``..``) is
    refused.
    """
    if len(_check(path, "path")) < 2:
        raise PathPolicyError(path, "must name a file inside docs/, project/ or apps/")
    return path


def check_prefix(prefix: str) -> list[str]:
    """The segments of a folder ``prefix`` (``docs/qa``) under the same policy as a path."""
    return _check(prefix, "prefix")


def write_set(agent: AgentName | str) -> tuple[str, ...]:
    """The folders ``agent`` may write artifacts to (none for an agent without a set)."""
    try:
        return WRITE_SETS.get(AgentName(agent), ())
    except ValueError:
        return ()


def write_problem(agent: AgentName | str, path: str) -> str | None:
    """Why ``agent`` may not write ``path`` (a path ``check_path`` accepted), or ``None``."""
    allowed = write_set(agent)
    if allowed and path.startswith(allowed):
        return None
    name = getattr(agent, "value", agent)
    where = ", ".join(allowed) if allowed else "nowhere"
    problem = f"{path!r}: {name} may write only under {where}"
    if path.startswith(("apps/", "project/")):
        problem += (
            "; code reaches apps/ and project/ only as the Dev's output, after the seven "
            "review layers approved it"
        )
    return problem
