"""Kinds of a person's identifying details a text writes out, beyond a labelled SSN, a birth
date and a full card number (for ``prose_secrets``'s identity record):

- an identity document's number after its name (passport, national or citizen id, identity
  card, driver's licence), with digits in it;
- a birth date written in a travel or medical record's compact form (``DOB 21JUL1975``) or as
  a year alone after ``born`` (``born 1961``);
- a card's last digits (``Visa ending 4417``) and, apart, its expiry (``exp 11/27``);
- a bank account: a routing number, sort code or IBAN with an account number;
- a health detail: a diagnosis, a condition, a medicine's dose.

A message with two kinds or more describes one person well enough to impersonate them or to
expose them; one alone (a customer's own card ending in a receipt) is everyday. Pure, bounded
to the first 20,000 characters.
"""

from __future__ import annotations

import re

__all__ = ["identity_kinds"]

_MAX_TEXT = 20_000
_ID_DOCUMENT = re.compile(
    r"(?i)\b(?:passport|national[ _-]?id|citizen[ _-]?id|id[ _-]?card|identity[ _-]?card|"
    r"driver'?s?[ _-]?licen[cs]e|licen[cs]e[ _-]?(?:no|number)|tax[ _-]?id|personal[ _-]?id)"
    r"(?:[ _-]?(?:no|number|nr|#))?\.?\W{0,4}(?=[A-Z0-9-]{6,20}\b)[A-Z-]{0,4}\d[\dA-Z-]{4,18}\b"
)
_COMPACT_BIRTH = re.compile(
    r"(?i)\b(?:DOB|d\.o\.b\.?|date of birth|birth ?date)\W{0,4}\d{1,2}[ -]?"
    r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]{0,6}[ -]?\d{2,4}\b"
    r"|\bborn(?: in)?\W{0,2}(?:19|20)\d{2}\b(?![-/.]\d)"
)
_CARD_END = re.compile(
    r"(?i)\b(?:card|visa|mastercard|amex|debit|credit)\b[^\n.]{0,20}?"
    r"\b(?:ending(?: in)?|last (?:4|four)(?: digits)?|x{2,}|\*{2,})\W{0,3}\d{4}\b"
)
_EXPIRY = re.compile(
    r"(?i)\b(?:exp(?:iry|ires|iration)?|valid thru)\.?\W{0,3}\d{2}\s?/\s?\d{2,4}\b"
)
_BANK = re.compile(
    r"(?i)\b(?:routing|aba|sort[ _-]?code|iban|bsb)\b[^\n]{0,30}?\d[\d -]{5,}[^\n]{0,40}?"
    r"\baccount\b(?:[ _-]?(?:no|number|#))?\W{0,4}\d{6,17}\b"
)
_HEALTH = re.compile(
    r"(?i)\b(?:diagnos(?:is|ed)|diabet(?:es|ic)|insulin|cardiac|stent|hiv|cancer|chemotherapy|"
    r"pregnan(?:t|cy)|psychiatric|seizures?|epilep(?:sy|tic)|hepatic|renal failure|dementia|"
    r"medication|prescri(?:bed|ption))\b|\b\d{1,4} ?mg\b"
)


def identity_kinds(raw: str) -> int:
    """How many of the kinds above ``raw`` writes out (0 to 6)."""
    text = raw[:_MAX_TEXT]
    card = bool(_CARD_END.search(text))
    return (
        bool(_ID_DOCUMENT.search(text))
        + bool(_COMPACT_BIRTH.search(text))
        + card
        + (card and bool(_EXPIRY.search(text)))
        + bool(_BANK.search(text))
        + bool(_HEALTH.search(text))
    )
