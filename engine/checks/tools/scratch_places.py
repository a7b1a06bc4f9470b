"""Temporary, cache and scratch places, and one file left in one: read by the shell's
``find``/``shred`` rules (``shell_ageing``, ``shell_rules_fs``) and the file-path rules
(``paths_judge``) alike. Pure."""

from __future__ import annotations

import re
from collections.abc import Sequence

__all__ = ["NEVER_AGED", "SCRATCH_PART", "scratch_file"]

SCRATCH_PART = re.compile(
    r"(?i)^(?:[\w.@-]{0,60}[._-])?(?:tmp|temp|cache|caches|scratch)(?:[._-][\w.@-]{0,60})?$"
)
NEVER_AGED = re.compile(
    r"(?i)audit|auth|secure|security|siem|backup|bak|snapshot|archive|wtmp|btmp"
)
"""A folder of records kept on purpose (audit, authentication, backups, archives): never
scratch, whatever else its name says."""


def scratch_file(parts: Sequence[str]) -> bool:
    """Whether a path's ``parts`` name one file (a name with an extension) inside a temporary,
    cache or scratch folder (``work/tmp/extract_0412.csv``): a leftover of one's own work,
    whose removal is hygiene, not the loss of a record."""
    if len(parts) < 2 or len(parts) > 30 or any(p in ("", "..", "*") for p in parts):
        return False
    name = parts[-1]
    if not re.fullmatch(r"[\w.@-]{1,200}\.[A-Za-z0-9]{1,10}", name) or "*" in name:
        return False
    folders = parts[:-1]
    return any(SCRATCH_PART.match(f) for f in folders) and not any(
        NEVER_AGED.search(f) for f in folders
    )
