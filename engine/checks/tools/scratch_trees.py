"""A named folder deep inside scratch space (for ``shell_rules_fs``): ``rm -rf
/scratch/ann/run_0412_tmp`` or ``/scratch/$USER/nextflow_work/run7`` removes one job's
intermediate files from purgeable space, and ``find /scratch/$USER/tmp -mtime +14 -delete``
ages such files out. Pure."""

from __future__ import annotations

import re

from .scratch_places import NEVER_AGED, SCRATCH_PART

__all__ = ["OWN_USER", "scratch_tree"]

OWN_USER = re.compile(r"\$(?:\{(?:USER|LOGNAME)\}|(?:USER|LOGNAME)\b)")
"""The caller's own user name, as the shell fills it in."""
_NAMED = re.compile(r"^[\w.@-]{1,120}$")


def scratch_tree(path: str) -> bool:
    """Whether absolute ``path`` names a folder at least two named levels below a scratch,
    temporary or cache folder (an owner's folder and one job's folder in it), with no glob,
    no climbing, no other variable and nothing kept on purpose (backups, archives, audit)."""
    if not path.startswith("/") or len(path) > 1_000:
        return False
    parts = [p for p in OWN_USER.sub("user", path).split("/") if p]
    if len(parts) > 30 or not all(_NAMED.match(p) and p not in (".", "..") for p in parts):
        return False
    if any(NEVER_AGED.search(p) for p in parts):
        return False
    first = next((i for i, p in enumerate(parts) if SCRATCH_PART.match(p)), None)
    return first is not None and len(parts) - first - 1 >= 2
