"""People named beside what a record says of them, for ``personal_data``: a diagnosis or
treatment a few words after a person's name (``Kevin Osei (generalized anxiety disorder…)``,
``Emily's counseling notes regarding depression``), and a street address after a name
(``Eleanor Whitfield, 14 Elm Ct``). Several such people in one message are records, however
the lines are laid out. Also the public IPv4 addresses a text holds (beside people's e-mail
addresses, they say where those people connect from). Pure functions of the text; counts and
addresses, never names, leave this module."""

from __future__ import annotations

import ipaddress
import re

from .netaddr import Reach, classify_ip

__all__ = ["named_near", "public_ips"]

_NOT_NAMES = (
    r"(?!(?:Hi|Hello|Dear|Hey|Thanks|Thank|Regards|Best|Cheers|The|This|That|These|Our|Your|"
    r"My|Good|Happy|Kind|Many|Please|Re|Fwd|From|To|Subject|Team|Dr|Mr|Mrs|Ms)\b)"
)
_NAME = re.compile(
    r"\b" + _NOT_NAMES + r"[A-Z][a-z]+\s+(?:[A-Z]\.\s+)?[A-Z][a-z'-]+\b|\b[A-Z]\.\s?[A-Z][a-z'-]+\b"
)
"""A person's name (``Kevin Osei``, ``R. Dillard``); greetings and sign-offs are not."""
_POSSESSIVE = re.compile(r"\b[A-Z][a-z]+'s\b")
_RECORD_WORDS = re.compile(
    r"(?i)\b(?:notes?|records?|chart|history|results?|visits?|treatment|assessment|file|"
    r"evaluation|diagnosis|grades?)\b"
)
"""What makes a first name's possessive a record (``Emily's counseling notes``)."""
_IPV4 = re.compile(r"(?<![\w.])\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3}(?![\w.]|\.\d)")
_WINDOW = 100
_MAX_HITS = 200


def named_near(text: str, pattern: re.Pattern[str], *, possessive: bool = False) -> int:
    """How many different people are named at most ``_WINDOW`` characters before a match of
    ``pattern`` in ``text`` (``possessive``: a first name's possessive counts too when the
    text speaks of records)."""
    names: set[str] = set()
    records = possessive and _RECORD_WORDS.search(text) is not None
    for n, m in enumerate(pattern.finditer(text)):
        if n >= _MAX_HITS:
            break
        before = text[max(0, m.start() - _WINDOW) : m.start()]
        found = [x.group(0) for x in _NAME.finditer(before)]
        if records:
            found += [x.group(0) for x in _POSSESSIVE.finditer(before)]
        if found:
            names.add(found[-1])
    return len(names)


def public_ips(text: str) -> set[str]:
    """The IPv4 addresses in ``text`` that name a machine on the internet (``netaddr``'s
    public reach: not private, loopback or link-local), at most 100."""
    found: set[str] = set()
    for m in _IPV4.finditer(text):
        try:
            ip = ipaddress.IPv4Address(m.group(0))
        except ValueError:
            continue  # an octet past 255: a version number, not an address
        if classify_ip(ip) is Reach.PUBLIC:
            found.add(m.group(0))
            if len(found) >= 100:
                break
    return found
