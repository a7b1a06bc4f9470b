"""Mass business actions whose width the call's own arguments show (for ``business``), high:

- records cancelled, reversed, voided, archived, terminated or closed where an argument that
  chooses them says every one (``"Portion": "*"``, ``scope="all"``);
- a bulk change (a tool or path that says bulk, batch, many or mass) over a literal list of
  more than 50 record ids.

A change of one record, a bulk change over a handful of named ids, and a cancel whose other
arguments merely mention "all" (``notify="all"``) run. Pure and bounded: at most 400 argument
pairs.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence

from .business_words import Finding, Pair, acts

__all__ = ["wide_action"]

_UNDOES = frozenset(
    {"cancel", "cancellation", "cancellations", "reverse", "reversal", "reversals", "void",
     "archive", "terminate", "termination", "expire", "close", "solve", "resolve", "refund",
     "reject", "suspend", "wipe", "retire"}
)  # fmt: skip
_CHOOSER = re.compile(
    r"^(?:portion|scope|selection|select|target|targets|records|ids|items|which|range|"
    r"accounts|subscriptions|orders|documents|period_?scope|applies_?to)$"
)
_EVERY = frozenset({"*", "all", "everything", "every", "%", "all_records", "all_items"})
_MANY = frozenset({"bulk", "batch", "many", "mass", "multiple"})
_CHANGES = _UNDOES | frozenset({"update", "modify", "edit", "patch", "set", "change", "mark"})
_ID_KEYS = re.compile(r"^(?:ids|\w{1,30}_ids|\w{1,30}ids|records|items|\w{1,30}_?numbers)$")
_LONG = 50
_MAX = 400


def _chosen_all(pairs: Sequence[Pair]) -> str | None:
    for key, value in pairs[:_MAX]:
        items = value if isinstance(value, list) else [value]
        if _CHOOSER.match(key) and any(
            isinstance(i, str) and i.strip().lower() in _EVERY for i in items[:20]
        ):
            return key
    return None


def _long_list(pairs: Sequence[Pair]) -> tuple[str, int] | None:
    for key, value in pairs[:_MAX]:
        if (
            _ID_KEYS.match(key)
            and isinstance(value, list)
            and len(value) > _LONG
            and all(isinstance(i, (int, str)) and not isinstance(i, bool) for i in value[:20])
        ):
            return key, len(value)
    return None


def wide_action(words: set[str], pairs: Sequence[Pair]) -> Iterator[Finding]:
    """A cancel, reversal, close or bulk change that its own arguments show is wide."""
    if not acts(words) or not words & _CHANGES:
        return
    if words & _UNDOES and (key := _chosen_all(pairs)) is not None:
        verb = sorted(words & _UNDOES)[0]
        yield (
            f"{verb}: every record an argument chooses",
            f"`{key[:40]}` selects all of them: the action reaches every record at once, and "
            "customers, books or devices feel it before anyone can stop it.",
            "Name the records, run it as a simulation first, or let a person confirm.",
        )
        return
    if words & _MANY and (found := _long_list(pairs)) is not None:
        yield (
            "changes a long list of records at once",
            f"`{found[0][:40]}` names {found[1]} records: a bulk change that wide is a mass "
            "action, and each record's owner sees its effect.",
            "Change records in small named batches, or let a person confirm the bulk change.",
        )
