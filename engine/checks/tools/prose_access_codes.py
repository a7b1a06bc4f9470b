"""Keys to places and networks a message writes out (for ``prose_more``), in any trade:

- a code that opens every door, unit or floor: a master, override or all-areas code with its
  digits (``the master code for all units is 80417``); one tenant's own door code is not one;
- a disk-encryption recovery key in BitLocker's form (eight groups of six digits);
- a network's pre-shared key or shared secret with a generated value (``IPsec PSK =
  7hR!x2Qe…``); a guest Wi-Fi password is not one.

Pure functions of the text; each reader scans a bounded window once. All findings are high:
a person confirms who gets the key.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from itertools import islice

from .prose_spans import anchored

__all__ = ["access_keys"]

_MAX_TEXT = 8_000
_MASTER = re.compile(
    r"(?i)\b(?:master|override|all[- ]areas?|all[- ]access|universal|grand[- ]master)\b"
    r"[^\n.:=]{0,40}?\b(?:code|pin|passcode|combination|combo)\b[^\n.:=]{0,40}?"
    r"(?:\bis\b|[:=])[ \t]{0,3}[`'\"]?\d[\d #*-]{2,14}[\d#*]"
)
"""A code that opens everything, with its value (``override code for all floors is 7731-0429``)."""
_MASTER_START = re.compile(
    r"(?i)\b(?:master|override|all[- ]areas?|all[- ]access|universal|grand[- ]master)\b"
)
_BITLOCKER = re.compile(r"(?<![\d-])\d{6}(?:-\d{6}){7}(?![\d-])")
_PSK = re.compile(
    r"(?i)\b(?:psk|pre-?shared[ -]key|shared[ -]secret|wpa2?[ -](?:key|passphrase))\b"
    r"[ \t]{0,3}(?:is[ \t]{1,3}|[:=])[ \t]{0,3}[`'\"]?([^\s`'\"<>,;]{8,64})"
)


def _generated(value: str) -> bool:
    """Letters and digits mixed as a generated secret has them, not a word or a placeholder."""
    value = value.rstrip(".,;:!?)")
    letters = sum(c.isalpha() for c in value)
    digits = sum(c.isdigit() for c in value)
    return len(value) >= 8 and letters >= 2 and digits >= 1 and "example" not in value.lower()


def access_keys(text: str) -> Iterator[tuple[str, str]]:
    """``(title, advice)`` for each key to a place or a network that ``text`` writes out."""
    window = text[:_MAX_TEXT]
    lower = window.lower()
    if any(w in lower for w in ("master", "override", "all", "universal")) and anchored(
        _MASTER_START, _MASTER, window
    ):
        yield (
            "writes out a code that opens every door",
            "Give each person their own code through the access system, never the master.",
        )
    if "-" in window and _BITLOCKER.search(window):
        yield (
            "writes out a disk recovery key",
            "Give a recovery key only to the device's verified owner, by the helpdesk tool.",
        )
    if any(w in lower for w in ("psk", "shared", "wpa")):
        for m in islice(_PSK.finditer(window), 16):
            if _generated(m.group(1)):
                yield (
                    "writes out a network's shared key",
                    "Share network keys through the secret store, not in messages.",
                )
                break
