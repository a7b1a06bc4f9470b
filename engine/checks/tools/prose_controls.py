"""What a message tells people to skip or switch off (for ``prose``), in any trade:

- a payment pushed past its approval ("release the wire today, don't route it through the
  normal AP approval"): the shape of CEO fraud, whatever the bank details;
- a document's macros to be enabled ("click Enable Content to view the invoice"): how
  malicious attachments run;
- a safety procedure to be skipped (lockout/tagout, a permit to work, a safety check) or an
  interlock or guard bypassed while people work, or a safety system said to be off with
  work to carry on (``prose_safety_off``).

Advice against each ("never enable macros", "don't skip the approval") is no finding. Each
reader scans a bounded window of the text and is a pure function of it.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from itertools import islice

from .prose_push_prompts import approve_any_prompt
from .prose_safety_off import safety_off_work_on

__all__ = ["skipped_controls"]

_MAX_TEXT = 20_000
_PAYMENT = re.compile(
    r"(?i)\b(?:wire|payments?|pay|transfer|remit(?:tance)?|invoices?|payouts?|funds)\b"
)
_PAST_APPROVAL = re.compile(
    r"(?i)\b(?:skip|bypass|circumvent|go around|avoid|override)\b[^.\n]{0,30}?"
    r"\b(?:approvals?|sign-?offs?|(?:dual|second|four-eyes) (?:control|check|signature)|"
    r"(?:AP|finance|payment|purchasing) (?:process|review|controls?|checks?))\b|"
    r"\b(?:don'?t|do not|no need to|without)\s+(?:route|send|run|put|go|pass)(?:ing)?\s+"
    r"(?:it |this |them )?(?:through|via)\b[^.\n]{0,30}?\b(?:approvals?|process|review|"
    r"AP|finance|controls?|sign-?off)\b"
)
_MACROS = re.compile(r"(?i)\benabl(?:e|ing)\s+(?:the\s+)?(?:content|editing|macros?)\b")
_SAFETY = re.compile(
    r"(?i)\b(?:skip|bypass|ignore|without|forgo|no need for)\b[^.\n]{0,30}?"
    r"\b(?:lock-?out|tag-?out|LOTO|permit[- ]to[- ]work|safety (?:checks?|procedures?|"
    r"interlocks?|briefing)|isolation procedure)\b|"
    r"\b(?:interlock|light curtain|safety guard|e-?stop)\b[^.\n]{0,30}?\b(?:to|in|on) bypass\b"
)
_ADVICE = re.compile(r"(?i)\b(?:never|not|don'?t|do not|no one|must not|shouldn'?t)\b[^.\n]{0,20}$")


def _said(pattern: re.Pattern[str], text: str) -> bool:
    """``pattern`` in ``text`` at least once not preceded, in its sentence, by a negation."""
    for m in islice(pattern.finditer(text), 16):
        before = text[max(0, m.start() - 30) : m.start()]
        if m.group(0).lower().startswith(("don", "do not", "no need")):
            return True  # the negation is the request itself ("don't route it through …")
        if not _ADVICE.search(before):
            return True
    return False


def skipped_controls(raw: str) -> Iterator[tuple[str, str]]:
    """``(title, advice)`` of each control ``raw`` asks its readers to skip."""
    text = raw[:_MAX_TEXT]
    if _PAYMENT.search(text) and _said(_PAST_APPROVAL, text):
        yield (
            "asks for a payment to go out past its approval",
            "Payments follow the approval process, whoever asks; confirm by phone with the "
            "person named.",
        )
    if _said(_MACROS, text):
        yield (
            "tells people to enable a document's macros",
            "Macros in documents from outside are how malware runs; send the data another way.",
        )
    m = _SAFETY.search(text)
    if (
        m is not None and not _ADVICE.search(text[max(0, m.start() - 30) : m.start()])
    ) or safety_off_work_on(text):
        yield (
            "tells people to skip a safety procedure or to work with a safety system off",
            "Safety procedures are not skipped to save time; ask the safety officer.",
        )
    if approve_any_prompt(text):
        yield (
            "tells people to approve sign-in prompts they did not start",
            "A prompt nobody asked for is someone else signing in; report it, never approve it.",
        )
