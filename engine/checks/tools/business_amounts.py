"""An amount or quantity that contradicts the one the same call writes in its own words, read
from a business tool's argument pairs (for ``business``), high:

the note, memo, reason or description of a refund, payment, order or credit, or an amount the
call names as owed or approved (``InvoiceAmount``, ``approved_amount``), says one figure and
the amount field holds it times ten, a hundred or a thousand (a slipped decimal point or a
zero too many), or its digits transposed (4,850 written as 4,580). An amount in minor units
(``12490`` cents for 124.90) matches its note, and a note that names the amount anywhere
(``2 × 12.49 = 24.98``) settles it. Numbers that name things — tickets, orders, incidents
(``INC-2291``, ``#5561``), dates, percentages — are not figures.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence

from .business_words import Finding, Pair, acts

__all__ = ["amount_contradicts_note", "note_figures"]

_AMOUNT_KEYS = re.compile(
    r"^(?:amount|quantity|qty|total|units|unit_count|value_amount|"
    r"\w{1,30}_?(?:amount|quantity|qty|total)|(?:amount|quantity|total)_\w{1,30})$"
)
_NOTE_KEYS = re.compile(
    r"^(?:note|notes|memo|description|reason|comment|comments|text|text_line|justification|"
    r"details|narrative|remark|remarks|purpose|summary|context|"
    r"\w{1,30}_(?:note|notes|memo|reason|description|text|comment))$"
)
_OWED_KEYS = re.compile(
    r"^(?:invoice|invoiced|approved|requested|expected|due|billed|original|authori[sz]ed|quoted|"
    r"agreed|po)_?(?:amount|total)$"
)
"""An amount the call states as what is owed or approved (``InvoiceAmount``): a figure the
amount paid is read against, like a note's."""
_SUFFIX = re.compile(r"__[a-z]{1,3}$")
"""A custom field's name without its package prefix and suffix (``outfunds__amount__c``)."""


def _canon(key: str) -> str:
    """A key without a custom field's package prefix and suffix (``outfunds__amount__c``:
    ``amount``)."""
    if "__" not in key:
        return key
    key = _SUFFIX.sub("", key[:90])
    return key.rpartition("__")[2] or key


_FIGURE = re.compile(
    r"(?<![\w#/.:,-])(?:([$€£¥])\s?)?(\d{1,3}(?:,\d{3})+|\d{1,12})(\.\d{1,2})?(?![\w%/:-]|[.,]\d)"
)
_NAMING = re.compile(
    r"(?i)(?:ticket|order|case|invoice|inc|incident|pr|po|ref|reference|no|number|id|lot|"
    r"batch|account|acct|item|line|sku|room|version|v|step|page|year|day|days|week|weeks|"
    r"month|months|q\d?)\.?\s*$"
)
"""Words after which a number names something rather than counting or pricing it."""
_WINDOW = 2000
_MAX_FIGURES = 24
_TOLERANCE = 0.002


def note_figures(text: str) -> list[tuple[float, bool]]:
    """The figures a note states (value, whether written with a currency sign or cents),
    ids, dates and percentages left out; bounded to the note's first characters."""
    found: list[tuple[float, bool]] = []
    window = text[:_WINDOW]
    for match in _FIGURE.finditer(window):
        sign, whole, cents = match.group(1), match.group(2), match.group(3)
        before = window[max(0, match.start() - 14) : match.start()]
        if not sign and _NAMING.search(before):
            continue
        value = float(whole.replace(",", "") + (cents or ""))
        if value < 1:
            continue
        plain_year = not sign and not cents and "," not in whole and 1900 <= value <= 2100
        if plain_year:
            continue
        found.append((value, bool(sign or cents)))
        if len(found) >= _MAX_FIGURES:
            break
    return found


def _number(value: object) -> tuple[float, bool] | None:
    """An amount's value and whether it is written as a whole number (minor units possible)."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return float(abs(value)), True
    if isinstance(value, float):
        return abs(value), False
    if isinstance(value, str) and re.fullmatch(r"\s*-?\d{1,12}(?:\.\d{1,4})?\s*", value):
        text = value.strip().lstrip("-")
        return float(text), "." not in text
    return None


def _near(a: float, b: float) -> bool:
    return abs(a - b) <= _TOLERANCE * max(a, b)


def _transposed(a: float, b: float) -> bool:
    """Two different whole figures of three or more digits with the same digits."""
    if a != int(a) or b != int(b) or a == b:
        return False
    x, y = str(int(a)), str(int(b))
    return len(x) == len(y) >= 3 and sorted(x) == sorted(y)


def _contradicts(amount: float, whole: bool, figures: list[tuple[float, bool]]) -> float | None:
    """The note's figure the amount contradicts, unless some figure matches it."""
    readings = [amount] + ([amount / 100] if whole else [])
    if any(_near(r, f) for r in readings for f, _ in figures):
        return None
    if len(figures) == 2 and any(_near(r, figures[0][0] * figures[1][0]) for r in readings):
        return None  # ``3 units at 19.99``: the amount is their product
    for f, _ in figures:
        for r in readings:
            ratio = r / f
            if any(_near(ratio, k) for k in (10.0, 100.0, 1000.0, 0.1, 0.01, 0.001)):
                return f
            if _transposed(r, f):
                return f
    return None


def amount_contradicts_note(words: set[str], pairs: Sequence[Pair]) -> Iterator[Finding]:
    """An amount or quantity that is its own note's figure times a power of ten, or its
    digits transposed."""
    if not acts(words):
        return
    named = [(_canon(k), v) for k, v in pairs[:400]]
    amounts = [
        (k, n)
        for k, v in named
        if _AMOUNT_KEYS.match(k) and not _OWED_KEYS.match(k) and (n := _number(v)) is not None
    ][:8]
    if not amounts:
        return
    figures = [
        f for k, v in named if _NOTE_KEYS.match(k) and isinstance(v, str) for f in note_figures(v)
    ][:_MAX_FIGURES]
    figures += [
        (n[0], True) for k, v in named if _OWED_KEYS.match(k) and (n := _number(v)) is not None
    ][:4]
    if not figures or len({f for f, _ in figures}) > 2:
        return  # a note of many figures (a breakdown) is not read
    for key, (amount, whole) in amounts:
        if amount < 1:
            continue
        stated = _contradicts(amount, whole, figures)
        if stated is not None:
            yield (
                "sets an amount its own note contradicts",
                f"`{key[:40]}` is {amount:,.2f} while the call's own note says {stated:,.2f}: "
                "a decimal point slipped, a zero too many or digits swapped.",
                "Make the amount match what was asked, or let a person confirm it.",
            )
            return
