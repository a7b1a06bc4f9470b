"""Several people's dates of birth in a message that goes outside the company (for ``prose``).

A birth date beside a name is what identity checks ask for: a schedule, a list of members
or a patient roster pasted into mail for another organisation, a channel shared with a vendor
or a text message hands out an identity for each person on it. One person's date of birth
(a referral, a claim about one patient, a reply to the person themselves) is everyday and stays
quiet; so do dates of birth posted in a channel of the company's own. What counts is a date
labelled as a birth date (``DOB 11/23/1990``, ``date of birth: 1979-05-02``, ``born
3 May 1981``) or a column named so in a table (``name, dob, …`` over its rows), two or more
different ones in one text.

A pure function of the text, read in a bounded window after a substring test.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from itertools import islice

__all__ = ["birth_dates", "birth_dates_outside"]

_WINDOW = 20_000
_MAX_DATES = 50
_GATE = ("dob", "birth", "born", "d.o.b")
_DATE = (
    r"(?:\d{4}-\d{1,2}-\d{1,2}|\d{1,2}[/.-]\d{1,2}[/.-](?:\d{4}|\d{2})|"
    r"\d{1,2} [A-Z][a-z]{2,8},? \d{4}|[A-Z][a-z]{2,8} \d{1,2},? \d{4})"
)
_LABELLED = re.compile(
    r"(?i:\b(?:DOB|D\.O\.B\.?|date of birth|birth ?date|born(?: on)?)\b)"
    r"[\s:=\"'()\-]{0,4}(" + _DATE + r")"
)
"""A date written after a label that names it a birth date."""
_HEADER = re.compile(r"(?im)^[^\n]{0,200}?\b(?:dob|date_?of_?birth|birth_?date)\b[^\n]{0,200}$")
"""A table's heading line with a birth-date column."""
_ROW_DATE = re.compile(r"\b(?:19|20)\d{2}-\d{2}-\d{2}\b|\b\d{1,2}/\d{1,2}/(?:19|20)\d{2}\b")


def birth_dates(text: str) -> int:
    """How many different birth dates ``text`` gives: labelled ones, or the dates on the rows
    under a heading with a birth-date column (the larger of the two counts)."""
    window = text[:_WINDOW]
    low = window.lower()
    if not any(word in low for word in _GATE):
        return 0
    labelled = {m.group(1) for m in islice(_LABELLED.finditer(window), _MAX_DATES)}
    rows: set[str] = set()
    head = _HEADER.search(window)
    if head is not None:
        below = window[head.end() : head.end() + 8_000]
        for line in islice(below.splitlines(), 1, 60):
            m = _ROW_DATE.search(line[:400])
            if m is not None:
                rows.add(m.group(0))
    return max(len(labelled), len(rows))


def birth_dates_outside(
    prose: Iterable[tuple[str, str]], outside: list[str]
) -> Iterator[tuple[str, str, str]]:
    """``(argument, title, advice)`` for the first text of ``prose`` that gives two or more
    people's birth dates, when the message goes to a place outside the company (``outside``:
    addresses, a shared channel, a phone number)."""
    if not outside:
        return
    for argument, text in islice(prose, 32):
        count = birth_dates(text)
        if count >= 2:
            yield (
                argument,
                f"gives {count} people's dates of birth to {outside[0][:80]}",
                "Send people's identities outside only through the agreed secure channel, "
                "after a person confirms.",
            )
            return
