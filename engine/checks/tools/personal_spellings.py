"""Other spellings of a card number and of a US Social Security number than the ones
``personal_data`` reads first: a card in dotted groups of four (``4111.1111.1111.1111``) and a
number labelled as an SSN written without dashes or with blanks or dots (``SSN 536221234``,
``SSN: 536 22 1234``). Both are judged as the usual spelling is (checksum, validity)."""

from __future__ import annotations

import re

__all__ = ["dotted_cards", "labelled_ssns"]

_MAX = 200_000
_DOTTED_CARD = re.compile(r"(?<![\w./:-])\d{4}\.\d{4}\.\d{4}\.\d{1,7}(?![\w/:]|[.-]\d)")
_LABELLED_SSN = re.compile(
    r"(?i)\b(?:ssn|social[ _-]?security(?:[ _-]?(?:number|no|num|#))?)\b[\s:#=.-]{0,4}"
    r"(?<!\d)(\d{3})[ .]?(\d{2})[ .]?(\d{4})(?![\w-])"
)


def dotted_cards(text: str) -> list[str]:
    """Numbers of ``text`` spelled as a card in dotted groups of four (checksum unread)."""
    if text.count(".") < 3:
        return []
    return [m.group(0) for m in _DOTTED_CARD.finditer(text[:_MAX])][:100]


def labelled_ssns(text: str) -> list[tuple[str, str, str]]:
    """``(area, group, serial)`` of each number ``text`` labels as an SSN, in any spelling."""
    low = text[:_MAX].lower()
    if "ssn" not in low and "social" not in low:
        return []
    return [(m.group(1), m.group(2), m.group(3)) for m in _LABELLED_SSN.finditer(text[:_MAX])][:100]
