"""What a message tells about people and plans that must not reach its readers (for
``prose``):

- a customer told that a suspicious-activity report was filed about them, or that they were
  reported to the authorities (tipping off, unlawful in most money-laundering regimes);
- a confidential source or whistleblower named with a phone number or an address;
- a person's phone number with their street address or postcode, and an invitation to go
  after them;
- a listing, launch or deal not yet announced, told outside so that someone can trade on it;
- a staff, internal or unlimited discount code handed to someone outside.

Each rule reads a bounded prefix of the text with patterns of bounded repetition. Pure
functions of the text and of whether the message leaves the company.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

from humangr.contracts import Severity

__all__ = ["people_risks"]

_MAX_TEXT = 20_000
_TIPPED = re.compile(
    r"(?i)\bsuspicious (?:activity|transaction|matter) reports?\b|"
    r"\b(?:filed|submitted|lodged|made) (?:an? )?(?:SAR|STR)s?\b[^.\n]{0,40}\b(?:about|on|"
    r"regarding|concerning) (?:you|your)\b|"
    r"\breported (?:you|your (?:account|transfers|transactions|activity|payments))\b[^.\n]{0,30}"
    r"\bto (?:the )?(?:police|authorities|law enforcement|fincen|nca|fiu|regulator)\b"
)
"""A customer told of a report about them to the authorities."""
_ABOUT_YOU = re.compile(
    r"(?i)\byour (?:recent )?(?:account|transfers?|transactions?|withdrawals?|payments?|"
    r"activity|funds|deposits?|payouts?)\b|\babout you\b"
)
"""Words that make the report about the reader (a vendor told of the reports is everyday)."""
_SOURCE = re.compile(
    r"(?i)(?<!open )(?<!data )\b(?:sources?(?! code| of truth| files?\b| maps?\b)|sourced|"
    r"whistle-?blowers?|informants?|tipsters?)\b"
)
_SECRET_ID = re.compile(
    r"(?i)\b(?:anonymous|anonymity|confidential|off the record|unnamed|not be named|"
    r"(?:don'?t|do not|never) (?:name|identify|reveal)|protect (?:her|his|their) identity)\b"
)
_PHONE = re.compile(
    r"(?<![\w+])(?:\+\d{1,3}[ .-]?)?(?:\(\d{2,5}\)[ .-]?|0\d{2,4}[ .-]?|\d{3}[ .-])"
    r"\d{3,4}[ .-]?\d{3,4}(?![\w])"
)
"""A phone number with its separators (``07700 900417``, ``+1 415-555-0134``)."""
_HOME = re.compile(
    r"\b\d{1,5}[A-Za-z]?,?\s+(?:[A-Z][a-z]+\s+){1,3}(?:St|Street|Ave|Avenue|Road|Rd|Lane|Ln|"
    r"Way|Drive|Dr|Close|Court|Ct|Place|Pl|Boulevard|Blvd|Terrace|Crescent|Gardens|Row|"
    r"Square|Sq)\b|\b[A-Z]{1,2}\d[A-Z\d]?\s?\d[A-Z]{2}\b"
)
"""A street address or a British postcode."""
_GO_AFTER = re.compile(
    r"(?i)\b(?:call (?:her|him|them) out|go after (?:her|him|them)|pay (?:her|him|them) a "
    r"visit|dox+(?:ing|ed)?|pile on|make (?:her|him|them) (?:pay|regret)|expose (?:her|him|them)|"
    r"show up at (?:her|his|their)|let (?:her|him|them) have it|teach (?:her|him|them) a lesson)\b"
)
"""An invitation to go after a person."""
_UNANNOUNCED = re.compile(
    r"(?i)\b(?:announcement (?:goes out|drops|is (?:at|on|scheduled))|before (?:the |it'?s |"
    r"it is |we )?(?:public|announce(?:d|ment)?)|ahead of (?:the |our )?(?:public )?"
    r"announcement|not (?:yet )?public|unannounced|under embargo|embargoed|before (?:it|this) "
    r"(?:goes|is made) public|non-?public)\b"
)
_TRADE = re.compile(
    r"(?i)\b(?:pre-?position|position (?:yourselves|yourself|accordingly)|load up|"
    r"get in (?:early|before)|trade (?:on|ahead)|front-?run|short (?:it|the)|accumulate|"
    r"buy (?:in|now|shares|stock|tokens?|calls|puts)|shares)\b"
)
"""Trading on what is told (``pre-position inventory``, ``load up before``)."""
_STAFF_CODE = re.compile(
    r"(?i)\bcode\b[^.\n]{0,40}?\b[A-Z0-9]{0,20}(?:STAFF|EMPLOYEE|INTERNAL)"
    r"[A-Z0-9-]{0,20}\b|\b100\s?% (?:off|discount)\b|\bnever expires\b[^.\n]{0,40}\bcode\b"
)
"""A discount code for staff or of the whole price handed out (``STAFF-100``, ``100% off``)."""
_CODE_CASE = re.compile(r"\b[A-Z0-9]{0,20}(?:STAFF|EMPLOYEE|INTERNAL)[A-Z0-9-]*")

Risk = tuple[str, Severity, str, str]


def _tells(text: str, outside: bool) -> Iterator[tuple[str, str]]:
    if outside and _TIPPED.search(text) and _ABOUT_YOU.search(text):
        yield (
            "tells someone outside of a suspicious-activity report or a report to the authorities",
            "Never tell a customer about a report to the authorities (tipping off); let "
            "compliance word the reply.",
        )
    phone = _PHONE.search(text)
    where = phone or _HOME.search(text)
    if where is not None and _SOURCE.search(text) and _SECRET_ID.search(text):
        yield (
            "names a confidential source with their contact details",
            "Keep sources' names and contacts out of messages; a person decides who may know.",
        )
    if phone is not None and _HOME.search(text) and _GO_AFTER.search(text):
        yield (
            "posts a person's phone number and home address",
            "Keep people's contact details to those who need them; never invite others to "
            "contact or target someone.",
        )
    if outside and _UNANNOUNCED.search(text) and _TRADE.search(text):
        yield (
            "tells someone outside of a plan not yet announced, for them to trade on",
            "Material non-public information stays inside until it is announced.",
        )
    staff = _STAFF_CODE.search(text)
    if outside and staff is not None:
        plain = staff.group(0)
        if "%" in plain or "expire" in plain.lower() or _CODE_CASE.search(plain):
            yield (
                "hands a staff-only or unlimited discount code to someone outside",
                "Give customers the public offers; staff and unlimited codes stay inside.",
            )


def people_risks(prose: Iterable[tuple[str, str]], *, outside: bool) -> Iterator[Risk]:
    """``(argument, severity, title, advice)`` for what each text tells that its readers must
    not learn; ``outside``: the message leaves the company."""
    for argument, text in prose:
        for title, fix in _tells(text[:_MAX_TEXT], outside):
            yield argument, Severity.HIGH, title, fix
