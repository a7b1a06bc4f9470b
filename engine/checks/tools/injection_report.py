"""A prompt injection quoted in a report of it.

An agent that meets "ignore previous instructions …" in a ticket, a mail or a row, and tells
the security team (a ticket, a channel post, a mail) quotes the attack: the text is evidence,
not an instruction. It is read as a report only when the injected words sit inside quotation
marks, the same text says it is reporting something (an attempt, phishing, quarantined,
contained, flagged), and no words near them address a reviewer (``approve this change``,
``reviewer: mark as safe`` are still instructions to the reviewers, quoted or not).
"""

from __future__ import annotations

import re

__all__ = ["quoted_report"]

_OPEN = "'\"\u2018\u201c`"
_CLOSE = {"'": "'", '"': '"', "\u2018": "\u2019", "\u201c": "\u201d", "`": "`"}
_FRAMING = re.compile(
    r"(?i)\b(?:prompt[- ]injection|injection\s+attempt|injected|phishing|suspicious|quarantin\w*"
    r"|contain(?:s|ed|ing)|report(?:s|ed|ing)?|flagged|attempt(?:s|ed)?|malicious|no\s+action"
    r"\s+taken)\b"
)
_TO_REVIEWER = re.compile(
    r"(?i)approve|reviewer|\bsafe\b|benign|low[-\s]risk|do\s+not\s+(?:report|flag)"
)
_REACH = 240


def _quoted(text: str, start: int, end: int) -> bool:
    """Whether ``text[start:end]`` lies inside one pair of quotation marks opened at most 240
    characters before it and closed at most 240 after it."""
    before = text[max(0, start - _REACH) : start]
    for i in range(len(before) - 1, -1, -1):
        ch = before[i]
        if ch in _OPEN:
            close = _CLOSE[ch]
            opened_at = max(0, start - _REACH) + i
            if close in text[opened_at + 1 : start] and close != ch:
                return False
            return close in text[end : end + _REACH]
    return False


def quoted_report(text: str, start: int, end: int) -> bool:
    """Whether the injection ``text[start:end]`` is quoted in a report of it (see the module)."""
    if _TO_REVIEWER.search(text[max(0, start - _REACH) : end + _REACH]):
        return False
    if not _quoted(text, start, end):
        return False
    window = text[max(0, start - 600) : end + 600]
    outside = window.replace(text[start:end], " ")
    return _FRAMING.search(outside) is not None
