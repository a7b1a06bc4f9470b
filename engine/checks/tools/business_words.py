"""What the business readers share: an argument pair, a finding, and whether a tool's name
says it acts (reads change nothing)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

__all__ = [
    "DELETE_VERBS",
    "OFF_VALUES",
    "PERSONAL_MAIL",
    "READS",
    "REVOKE_VERBS",
    "Finding",
    "Pair",
    "acts",
    "everything",
    "switched_off",
]

Pair = tuple[str, Any]
"""An argument's key (lower-case; ``""`` for a list item) and its value, nested ones too."""
Finding = tuple[str, str, str]
"""A consequence: its title, why it matters and what to do."""

OFF_VALUES = frozenset(
    {"off", "disabled", "disable", "inactive", "none", "optional", "false", "0", "no", "never",
     "suspended"}
)  # fmt: skip
"""A setting's value that says it is switched off."""


def switched_off(value: object) -> bool:
    """``False``, or a text among ``OFF_VALUES`` (``"disabled"``, ``"off"``…)."""
    return value is False or (isinstance(value, str) and value.strip().lower() in OFF_VALUES)


READS = frozenset(
    {
        "get", "list", "search", "read", "fetch", "retrieve", "describe", "view", "show",
        "count", "find", "lookup", "query", "check", "preview", "estimate", "calculate",
        "validate", "status", "download", "watch", "verify",
    }
)  # fmt: skip
DELETE_VERBS = frozenset({"delete", "remove", "destroy", "purge", "erase", "wipe", "drop", "nuke"})
"""Verbs of a tool's name that delete."""
REVOKE_VERBS = frozenset({"revoke", "revokes", "revoking"})
"""Verbs of a tool's name that take an allowance away (``revoke_security_group_ingress``): an
address range it names is closed, not opened."""


def acts(words: set[str]) -> bool:
    """Whether a tool's name words say it changes something (no read verb among them)."""
    return not words & READS


PERSONAL_MAIL = re.compile(
    r"@(?:gmail|googlemail|outlook|hotmail|live|msn|yahoo|ymail|aol|icloud|me|mac|proton|"
    r"protonmail|pm|gmx|web|mail|yandex|zoho|tutanota|tuta|fastmail|hey|qq|163|126|naver|"
    r"libero|seznam|wp|orange|free|laposte)\.[a-z.]{2,10}$"
)
"""Addresses at free personal mailboxes: data shared there leaves the company's control."""


_EVERYTHING = frozenset({"all", "*", "everything", "everyone", "all_users", "all_contacts"})
_ALL_OF = re.compile(r"^all[_-](?:players|users|customers|members|accounts|contacts|subscribers)$")


def everything(pairs: Sequence[Pair], keys: re.Pattern[str] | None = None) -> bool:
    """Whether an argument (one of ``keys``, if given) is "all", "*", "everyone",
    "all_players"…, alone or in a list."""
    return any(
        (isinstance(v, str) and _all(v) and (keys is None or keys.fullmatch(k) is not None))
        or (isinstance(v, list) and any(isinstance(i, str) and _all(i) for i in v[:50]))
        for k, v in pairs
    )


def _all(value: str) -> bool:
    text = value.strip().lower()
    return text in _EVERYTHING or _ALL_OF.match(text) is not None
