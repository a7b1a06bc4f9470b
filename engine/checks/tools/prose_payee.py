"""Payments steered to a new account by a message (for ``prose_more``), in any trade:

a message that says money goes to a new, updated or changed account, or that asks for a
payee's bank details to be updated to given ones, and in the same text speaks of paying
(``we've updated their remittance to the new account ending 7731 and will pay Friday``,
``proceed with the wire to the new account``). Invoice redirection works exactly so: the
change arrives by e-mail and a message confirms it or passes it on.

A message that reports such a request as suspicious, or refuses to act on it by e-mail, is
everyday (``Suspicious email: supplier bank change``) and gets no finding.

A pure function of the text; its window is bounded and each pattern is scanned once.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from .prose_spans import anchored

__all__ = ["payee_changed", "warns"]

_MAX_TEXT = 8_000
_WORDS = ("account", "bank", "remit", "iban", "wallet")
_NEW_ACCOUNT = re.compile(
    r"(?i)\b(?:new|updated|changed|different|revised)\b[^.\n]{0,40}?"
    r"\b(?:account|bank\s+details|banking\s+details|remittance|iban|wallet)\b|"
    r"\b(?:update[ds]?|chang(?:e|ed|ing))\b[^.\n]{0,50}?"
    r"\b(?:bank(?:ing)?\s+(?:details|account|info\w*)|remittance|payee\s+details|iban)\b"
    r"[^.\n]{0,40}?\bto\b|"
    r"\bbank\s+(?:detail\s+)?change\s+(?:is|was|has\s+been)\s+(?:verified|confirmed|approved)\b"
)
_START = re.compile(
    r"(?i)\b(?:new|updated|changed|different|revised|update[ds]?|chang(?:e|ed|ing)|bank)\b"
)
"""Where a reading of ``_NEW_ACCOUNT`` may begin; each is read in a short span."""
_PAYING = re.compile(
    r"(?i)\b(?:pay|paid|payments?|wire|wired|release|disburse\w*|remit|transfer|invoices?|"
    r"payout|top-up)\b"
)
_WARNED = re.compile(
    r"(?i)\b(?:suspicious|suspected|phishing|spoof\w*|fraud\w*|scam\w*|will\s+not\s+make|"
    r"not\s+(?:acted|act)\s+on|did\s+not\s+act|didn'?t\s+request|do\s+not\s+(?:change|update))\b"
)


def payee_changed(text: str, warned: bool = False) -> Iterator[tuple[str, str]]:
    """``(title, advice)`` when ``text`` steers a payment to a new or changed account;
    ``warned`` says another part of the message already reports the request as suspicious."""
    window = text[:_MAX_TEXT]
    lower = window.lower()
    if warned or not any(w in lower for w in _WORDS):
        return
    found = anchored(_START, _NEW_ACCOUNT, window)
    if found and _PAYING.search(window) and not _WARNED.search(window):
        yield (
            "steers a payment to a new or changed account",
            "Confirm a payee's new bank details by calling a number already on file, before "
            "anyone pays.",
        )


def warns(text: str) -> bool:
    """Whether ``text`` reports a request as suspicious or refuses to act on it."""
    return _WARNED.search(text[:_MAX_TEXT]) is not None
