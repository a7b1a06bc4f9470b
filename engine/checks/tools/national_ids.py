"""National identity numbers and bank accounts of people, for ``personal_data``: a number
counts when a label names it (``PESEL 85010112345``, ``personnummer 19850412-1234``,
``BSN``, ``SIN``, ``Steuer-ID``, ``codice fiscale``…) with a number of its length; IBANs
count when their ISO 13616 check holds (a bank account is a person's only with its name).
Pure functions of the text; counts, never values, leave this module."""

from __future__ import annotations

import re
from collections.abc import Callable

__all__ = ["bank_accounts", "labelled_ids"]

_MAX = 100


def _digits(*lengths: int) -> Callable[[str], bool]:
    return lambda d: len(d) in lengths


_LABELS: tuple[tuple[re.Pattern[str], Callable[[str], bool]], ...] = (
    (re.compile(r"(?i)\bpesel\b"), _digits(11)),
    (re.compile(r"(?i)\bperson(?:nummer|nr)\b"), _digits(10, 12)),
    (re.compile(r"(?i)\bsteuer-?id\b|\bidentifikationsnummer\b|\bIdNr\b"), _digits(11)),
    (re.compile(r"(?i)\bbsn\b|\bburgerservicenummer\b"), _digits(9)),
    (re.compile(r"\bSIN\b|(?i:\bsocial insurance (?:number|no)\b)"), _digits(9)),
    (re.compile(r"\bNIR\b|(?i:\bnum[ée]ro de s[ée]curit[ée] sociale\b)"), _digits(13, 15)),
    (re.compile(r"(?i)\baadhaar\b"), _digits(12)),
    (re.compile(r"(?i)\btax file number\b|\bTFN\b"), _digits(9)),
    (re.compile(r"\bCPR(?:-nr| number)?\b"), _digits(10)),
    (re.compile(r"(?i)\bhenkil[öo]tunnus\b|\bHETU\b"), _digits(9)),
    (re.compile(r"(?i)\bNHS (?:number|no)\b"), _digits(10)),
)
"""A label and the lengths its number may have (the digits alone, separators dropped): the
label says what the number is; a checksum would only drop the ones mistyped."""
_AFTER_LABEL = re.compile(r"\W{0,6}(\d[\d .-]{5,18}\d)")
_LETTERED = re.compile(
    r"(?i)\b(?:codice fiscale|cf)\W{0,6}[A-Z]{6}\d{2}[A-EHLMPRST]\d{2}[A-Z]\d{3}[A-Z]\b|"
    r"\b(?:DNI|NIE)\W{0,6}[XYZ]?\d{7,8}[A-Z]\b|\bPPSN?\W{0,6}\d{7}[A-W][A-IW]?\b"
)
"""Numbers with letters: an Italian codice fiscale, a Spanish DNI or NIE, an Irish PPSN."""
_US_ACCOUNT = re.compile(
    r"(?i)\b(?:routing|aba|rtn|rtg)(?:\s*(?:number|no\.?|#))?\W{0,3}(\d{9})\b[^\n]{0,40}?"
    r"\b(?:acct|account)(?:\s*(?:number|no\.?|#))?\W{0,3}(\d{4,17})\b|"
    r"\b(?:acct|account)(?:\s*(?:number|no\.?|#))?\W{0,3}(\d{4,17})\b[^\n]{0,40}?"
    r"\b(?:routing|aba|rtn|rtg)(?:\s*(?:number|no\.?|#))?\W{0,3}(\d{9})\b"
)
"""A US bank account as written out: a routing number and the account's, in either order."""
_IBAN = re.compile(r"\b([A-Z]{2}\d{2}(?: ?[A-Z0-9]{4}){2,7}(?: ?[A-Z0-9]{1,3})?)\b")


def labelled_ids(text: str) -> int:
    """How many labelled national identity numbers ``text`` holds (at most 100)."""
    count = 0
    for label, valid in _LABELS:
        for m in label.finditer(text):
            number = _AFTER_LABEL.match(text, m.end())
            if number is not None and valid(re.sub(r"\D", "", number.group(1))):
                count += 1
                if count >= _MAX:
                    return count
    return count + len(_LETTERED.findall(text)[: _MAX - count])


def bank_accounts(text: str) -> set[str]:
    """The IBANs in ``text`` whose check digits hold, and US routing and account number pairs
    (at most 100)."""
    found: set[str] = {
        f"{m.group(1) or m.group(4)}:{m.group(2) or m.group(3)}" for m in _US_ACCOUNT.finditer(text)
    }
    if len(found) >= _MAX:
        return found
    for m in _IBAN.finditer(text):
        iban = m.group(1).replace(" ", "")
        if 15 <= len(iban) <= 34 and _iban_valid(iban):
            found.add(iban)
            if len(found) >= _MAX:
                break
    return found


def _iban_valid(iban: str) -> bool:
    moved = iban[4:] + iban[:4]
    number = "".join(str(int(c, 36)) for c in moved)
    return int(number) % 97 == 1
