"""Work taken home and checks waived by a message (for ``prose``):

- a work data file (a spreadsheet, an export, a mailbox or an archive) or a link into the
  company's document store sent to a personal mailbox with words of working from home or of
  leaving ("finish up from home", "before your last day", "review offline"): the data leaves
  with the person, past the company's controls;
- a message telling people to approve every case of a kind without its checks ("approve all
  claims under $5,000 without photos or re-inspection"): a control waived for a whole class of
  work at once, often on instructions from injected text.

Pure functions of the message's recipients, attachments and bounded text; findings are high.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

from .business_words import PERSONAL_MAIL
from .egress_mail import Mail
from .prose_links import DOCUMENT_STORE

__all__ = ["taken_home"]

_MAX_TEXT = 8_000
_DATA_FILE = re.compile(r"(?i)\.(?:xlsx?|csv|tsv|parquet|jsonl?|sql|db|sqlite|zip|7z|pst|mbox)$")
_HOME = re.compile(
    r"(?i)\b(?:from home|at home|offline|last day|(?:you'?re|you are|i'?m|i am)\s+leaving|"
    r"before (?:you|i) (?:go|leave)|after (?:you|i) leave|personal (?:e-?mail|account|laptop|"
    r"computer)|own (?:laptop|computer|device))\b"
)
_WAIVED = re.compile(
    r"(?i)\bapprove\s+(?:all|every|any)\b[^.\n]{0,60}?\bwithout\b[^.\n]{0,30}?"
    r"\b(?:photos?|(?:re-?)?inspections?|verification|review|checks?|documentation|evidence|"
    r"receipts?|approval|sign-?off)\b"
)

_ADVICE = re.compile(r"(?i)\b(?:not|never|don'?t|no one|must not|shouldn'?t|cannot|can'?t)\b\W*$")


def taken_home(
    mail: Mail | None, prose: Iterable[tuple[str, str]]
) -> Iterator[tuple[str, str, str]]:
    """``(argument, title, advice)`` of work data sent home and checks waived for a class of
    work."""
    texts = [(argument, text[:_MAX_TEXT]) for argument, text in prose]
    for argument, text in texts:
        m = _WAIVED.search(text) if "approve" in text.lower() else None
        if m is not None and not _ADVICE.search(text[max(0, m.start() - 24) : m.start()]):
            yield (
                argument,
                "tells people to approve a whole class of work without its checks",
                "Change a control through its owner, never by a message's instruction.",
            )
    if mail is None or not any(PERSONAL_MAIL.search("@" + d) for d in mail.domains):
        return
    carried = any(_DATA_FILE.search(path[:400]) for _, path in mail.attachments) or any(
        DOCUMENT_STORE.search(text) for _, text in texts
    )
    if not carried:
        return
    for argument, text in texts:
        if _HOME.search(text):
            yield (
                argument,
                "sends work data to a personal mailbox to take home",
                "Work data stays in company systems; give access through a work account.",
            )
            return
