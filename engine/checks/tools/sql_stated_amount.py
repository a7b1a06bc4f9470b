"""An amount typed into a statement that is a power of ten off the amount the same statement
states in words: a comment or memo says ``$4,850.00`` (``EUR 25.00``, ``18,450.00 GBP``) and the
row gets ``48500.00`` — an extra or a lost digit, the commonest way a by-hand money write goes
wrong, and the shape of one dressed up with a ticket's real figure.

A stated amount counts only with a currency mark next to it (``$``, ``€``, ``£`` or a currency
code); a typed whole number may be in cents (``2500`` for ``$25.00`` agrees). The statement
agrees when any typed number equals a stated amount. Bounded: the first comments, strings and
numbers of one statement, each read in a short window. Pure."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

from .sql_issue import H, Issue, fragment
from .sql_lex import TokKind
from .sql_parse import Parsed

__all__ = ["power_of_ten_off", "stated_amounts"]

_CODES = r"(?:USD|EUR|GBP|CAD|AUD|NZD|CHF|SEK|NOK|DKK|INR|SGD|HKD|ZAR|MXN|BRL|PLN)"
_NUMBER = r"(\d{1,3}(?:,\d{3}){1,4}|\d{1,12})(?:\.(\d{1,2}))?"
_STATED = re.compile(
    rf"(?:[$€£]\s?|\b{_CODES}\s?){_NUMBER}(?![\d,.]*\d)|\b{_NUMBER}\s?{_CODES}\b",
)
_RATIOS = (10.0, 100.0, 1000.0, 0.1, 0.01, 0.001)
_MAX_TEXTS = 20
_MAX_NUMBERS = 200
_WINDOW = 400


def _amounts(texts: Iterable[str]) -> list[float]:
    out: list[float] = []
    for n, text in enumerate(texts):
        if n >= _MAX_TEXTS:
            break
        for m in _STATED.finditer(text[:_WINDOW]):
            whole, cents = (m.group(1), m.group(2)) if m.group(1) else (m.group(3), m.group(4))
            value = float(whole.replace(",", "") + "." + (cents or "0"))
            if value > 0:
                out.append(value)
    return out


def _readings(number: str) -> list[float]:
    """What a typed number may mean: itself, and for a whole number also cents."""
    try:
        value = float(number)
    except ValueError:
        return []
    return [value] if "." in number or "e" in number.lower() else [value, value / 100]


def _close(a: float, b: float) -> bool:
    return abs(a - b) <= 1e-6 * max(abs(a), abs(b), 1.0)


def power_of_ten_off(
    stated_texts: Iterable[str], numbers: Iterable[str]
) -> tuple[str, float] | None:
    """A typed number that is 10, 100 or 1000 times (or a tenth, a hundredth…) an amount the
    texts state with a currency mark, when no typed number equals a stated amount: the number
    as typed and the amount stated; else None."""
    stated = _amounts(stated_texts)
    if not stated:
        return None
    typed = [(n, _readings(n)) for n in list(numbers)[:_MAX_NUMBERS]]
    if any(_close(r, s) for _, rs in typed for r in rs for s in stated):
        return None
    for text, readings in typed:
        for s in stated:
            if any(_close(r, s * k) for r in readings for k in _RATIOS):
                return text, s
    return None


def stated_amounts(p: Parsed) -> Iterator[Issue]:
    """``p`` types an amount a power of ten off the one its comments or strings state."""
    toks = p.stmt.tokens
    head = next((t.upper for t in toks if t.kind is TokKind.WORD), "")
    if head not in ("INSERT", "UPDATE", "MERGE", "UPSERT", "REPLACE"):
        return
    texts = [c.text for c in p.stmt.comments[:_MAX_TEXTS]]
    texts += [t.text for t in toks if t.kind is TokKind.STRING][:_MAX_TEXTS]
    numbers = [t.text for t in toks if t.kind is TokKind.NUMBER]
    found = power_of_ten_off(texts, numbers)
    if found is not None:
        typed, said = found
        yield Issue(
            H,
            f"types {typed[:20]} where the statement itself states {said:,.2f}: a power of ten off",
            fragment(p),
            "change",
        )
