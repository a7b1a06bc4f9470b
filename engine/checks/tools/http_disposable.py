"""One disposable machine terminated (for ``http``'s destructive-tool reading): a single
instance that the call's own arguments mark as throwaway (a spot or CI runner, ephemeral, a
time-to-live tag, one an autoscaling group replaces) and nothing marks as production. What
such a call destroys is rebuilt by the group it came from, as ``rm -rf ./build`` is by the
next build. Many instances, or any word of production or a database, keep the finding.
"""

from __future__ import annotations

import re
from typing import Any

__all__ = ["disposable_instance"]

_ID_KEYS = frozenset({"instanceids", "instance_ids", "instanceid", "instance_id", "ids"})
_WORD = re.compile(r"[a-z0-9]+")
_THROWAWAY = frozenset(
    {"ephemeral", "spot", "runner", "ttl", "autoscaling", "asg", "preemptible", "throwaway",
     "scratch", "disposable"}
)  # fmt: skip
_LIVE = frozenset(
    {"prod", "production", "prd", "live", "db", "database", "primary", "master", "bastion"}
)
_MAX_STRINGS = 64


def _strings(value: Any, out: list[str], depth: int = 0) -> None:
    """Keys and texts of the arguments, nested ones too, a bounded number of them."""
    if depth > 4 or len(out) >= _MAX_STRINGS:
        return
    if isinstance(value, dict):
        for key, item in list(value.items())[:32]:
            out.append(str(key)[:100])
            _strings(item, out, depth + 1)
    elif isinstance(value, list):
        for item in value[:32]:
            _strings(item, out, depth + 1)
    elif isinstance(value, str):
        out.append(value[:300])


def disposable_instance(what: str, arguments: dict[str, Any]) -> bool:
    """Whether ``what`` (``terminates a whole instances``) hits one instance that the call
    marks as throwaway and not as production."""
    if not what.startswith("terminates") or "instance" not in what:
        return False
    ids = [v for k, v in arguments.items() if k.lower() in _ID_KEYS]
    if len(ids) != 1:
        return False
    named = ids[0]
    if isinstance(named, list) and len(named) != 1:
        return False
    texts: list[str] = []
    _strings(arguments, texts)
    words = {w for t in texts for w in _WORD.findall(t.lower())}
    return bool(words & _THROWAWAY) and not words & _LIVE
