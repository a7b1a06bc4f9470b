"""A database dropped that a test run made for itself: ``dropdb`` on this machine, of a
database whose name marks it as one job's copy (a CI, temporary or scratch part, or a test part
with a run's number: ``shop_test_ci_1042``, ``billing_tmp_77``, ``app_test_5521``), and nothing
of production in its name.

Tests and CI jobs create such databases and remove them when done; the same command on another
host, or on a database whose name marks no throwaway copy, still needs a person."""

from __future__ import annotations

import re

__all__ = ["throwaway_database"]

_LOCAL_HOSTS = frozenset(["localhost", "127.0.0.1", "::1", "[::1]"])
_THROWAWAY_PART = frozenset(["ci", "tmp", "temp", "scratch", "throwaway", "ephemeral"])
"""Parts that mark a copy made for one job."""
_TEST_PART = frozenset(["test", "tests", "testing", "e2e"])
_RUN_ID = re.compile(r"^(?=[0-9a-f]*[0-9])[0-9a-f]{3,40}$")
"""A run's number or short hash (``8812``, ``7f3a2c``): with a test part, a copy for one run;
a standing test database (``shop_test``) is still confirmed by a person."""
_KEPT_PART = re.compile(
    r"(?i)^(?:prod|production|prd|live|main|master|primary|backup|archive|audit|ledger)$"
)
_NAME = re.compile(r"^[A-Za-z0-9_-]{1,63}$")
_HOST_OPTIONS = ("-h", "--host")
_VALUE_OPTIONS = frozenset(["-h", "--host", "-p", "--port", "-U", "--username", "--maintenance-db"])
_FLAGS = frozenset(["--if-exists", "-e", "--echo", "-i", "--interactive", "-w", "--no-password",
                    "-f", "--force"])  # fmt: skip
_MAX_WORDS = 16


def _throwaway_name(name: str) -> bool:
    if not _NAME.match(name):
        return False
    parts = [p for p in re.split(r"[_-]", name.lower()) if p]
    one_run = any(p in _THROWAWAY_PART for p in parts) or (
        any(p in _TEST_PART for p in parts) and any(_RUN_ID.match(p) for p in parts)
    )
    return one_run and not any(_KEPT_PART.match(p) for p in parts)


def throwaway_database(argv: list[str], assigns: list[tuple[str, str]]) -> bool:
    """Whether ``argv`` is ``dropdb`` of one database on this machine (no host named, or a
    local one, and no ``PGHOST`` set elsewhere) whose name marks one job's copy."""
    if len(argv) > _MAX_WORDS or not argv or argv[0].rsplit("/", 1)[-1] != "dropdb":
        return False
    if any(k == "PGHOST" and v not in _LOCAL_HOSTS for k, v in assigns):
        return False
    names: list[str] = []
    words = iter(argv[1:])
    for word in words:
        if word in _VALUE_OPTIONS:
            value = next(words, "")
            if word in _HOST_OPTIONS and value not in _LOCAL_HOSTS:
                return False
            continue
        key, eq, value = word.partition("=")
        if eq and key in _VALUE_OPTIONS:
            if key in _HOST_OPTIONS and value not in _LOCAL_HOSTS:
                return False
            continue
        if word in _FLAGS:
            continue
        if word.startswith("-"):
            return False  # an option not known here: judge the command as before
        names.append(word)
    return len(names) == 1 and _throwaway_name(names[0])
