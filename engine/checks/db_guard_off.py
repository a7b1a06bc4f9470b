"""A framework's production-database guard switched off where it persists (for ``source_code``
and the business readers), high.

Frameworks refuse destructive schema tasks (drop, reset, schema load) against a production
database unless told otherwise; Rails by ``DISABLE_DATABASE_ENVIRONMENT_CHECK=1``. Written into
a file — a Procfile's release line, a deploy script, a CI step, an environment file — or set as
an application's setting through an API, it lets the next deploy or task wipe production with
nobody asked. A one-off shell command is the shell rules' (``database_reset``); a line that
sets the flag to ``0`` or removes it is everyday, and tests are not read.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from typing import Any

from humangr.contracts import Severity

from .base import Hit, is_test_path, snippet
from .diff import FileDiff

__all__ = ["FIX", "TITLE", "WHY", "guard_flag_set", "production_guard_off"]

_FLAG = re.compile(
    r"(?i)\bDISABLE_DATABASE_ENVIRONMENT_CHECK\b['\"]?\s*(?:=|:|=>)\s*['\"]?(?:1|true|yes)\b"
)
_FLAG_NAME = "disable_database_environment_check"
_MAX_LINES = 2000
_MAX_LINE = 2000
TITLE = "switches off the framework's production-database guard"
WHY = (
    "with DISABLE_DATABASE_ENVIRONMENT_CHECK set, a schema load, reset or drop runs against "
    "production without refusing: the next deploy or task can wipe every table."
)
FIX = "Leave the guard on; run destructive schema tasks by hand, on a confirmed database."


def production_guard_off(file: FileDiff, path: str) -> Iterator[Hit]:
    """The first added line of ``file`` that sets the production-database guard off."""
    if file.deleted or is_test_path(path):
        return
    for line in file.added[:_MAX_LINES]:
        if _FLAG.search(line.text[:_MAX_LINE]):
            yield Hit(
                severity=Severity.HIGH,
                title=TITLE,
                description=f"{path}: `{snippet(line.text.strip(), 120)}`: {WHY}",
                suggestion=FIX,
                file=path,
                line=line.number,
            )
            return


def _truthy(value: Any) -> bool:
    return (
        value is True
        or value == 1
        or (isinstance(value, str) and value.strip().lower() in ("1", "true", "yes"))
    )


def guard_flag_set(pairs: Sequence[tuple[str, Any]]) -> bool:
    """Whether argument pairs set the guard off: as a key (``{"DISABLE_…": "1"}``), as a
    name with its value (``name=…, value="1"``), or as a ``NAME=1`` text."""
    named = False
    for key, value in pairs[:400]:
        if key == _FLAG_NAME and _truthy(value):
            return True
        if isinstance(value, str):
            text = value[:_MAX_LINE]
            if _FLAG.search(text):
                return True
            if key in ("name", "key", "variable") and text.strip().lower() == _FLAG_NAME:
                named = True
                continue
        if named and key in ("value", "val") and _truthy(value):
            return True
    return False
