"""A delete handed a long list of ids: many records named one by one go as surely as by a
filter (``ids="481200,481201,…"`` of a hundred tickets). A few ids, a record at a time,
run. Pure."""

from __future__ import annotations

import re
from collections.abc import Sequence

from .business_words import Pair

__all__ = ["MANY_IDS", "many_ids"]

MANY_IDS = 25
"""How many records named at once make a bulk delete."""
_ID_KEYS = re.compile(r"^(?:ids|\w{1,30}_ids|\w{1,30}ids|inputs|records|items)$")
_SEP = re.compile(r"[,;\s]+")
_MAX_PAIRS = 400
_MAX_TEXT = 20_000


def many_ids(pairs: Sequence[Pair]) -> str | None:
    """The key of an id list of at least ``MANY_IDS`` entries (a list, or a string of ids
    separated by commas or spaces), if the call has one."""
    for key, value in pairs[:_MAX_PAIRS]:
        if not _ID_KEYS.match(key):
            continue
        if isinstance(value, list) and len(value) >= MANY_IDS:
            return key
        if isinstance(value, str) and value.count(",") + value.count(" ") >= MANY_IDS - 1:
            parts = [p for p in _SEP.split(value[:_MAX_TEXT]) if p]
            if len(parts) >= MANY_IDS:
                return key
    return None
