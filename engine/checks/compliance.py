"""HL6 checks: personal data (card numbers, national ids, e-mail addresses in data), licences."""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator
from pathlib import PurePosixPath

from humangr.contracts import Severity

from .base import CheckInput, Hit, is_test_path

__all__ = [
    "TEST_CARDS",
    "card_like",
    "card_numbers",
    "copyleft_licence",
    "cpf_valid",
    "fixture_emails",
    "luhn_valid",
    "national_ids",
    "ssn_valid",
]

_MAX_LINE = 10_000
_CARD = re.compile(r"(?<![\w.,/:-])(?:\d[ -]?){12,18}\d(?![\w/:]|[.,-]\d)")
TEST_CARDS = frozenset(
    [
        "4242424242424242",
        "4111111111111111",
        "4012888888881881",
        "4000056655665556",
        "5555555555554444",
        "5105105105105100",
        "5200828282828210",
        "2223003122003222",
        "378282246310005",
        "371449635398431",
        "6011111111111117",
        "6011000990139424",
        "3056930009020004",
        "36227206271667",
        "3566002020360505",
        "6200000000000005",
        "4000000000000002",
        "4000000000009995",
        "4000000000000077",
        # Stripe's published test cards for 3-D Secure, declines and countries
        "4000002760003184",
        "4000002500003155",
        "4000003800000446",
        "4000000000003220",
        "4000000000003063",
        "4000008400001629",
        "4000008260003178",
        "4000000000000341",
        "4000000000000101",
        "4000000000009987",
        "4000000000000069",
        "4000000000000127",
        "4000000000000119",
        "4000000000000036",
        "4000000000000010",
        "4000000000000028",
        "4000000000000259",
        "4100000000000019",
        "4000000000006975",
        "4000000000009235",
        "4000000760000002",
        "4000001240000000",
        "4000004840008001",
        "4000000000004954",
        "4000000000009979",
        "4000000000000044",
        "4000000000001000",
        "4000000000001091",
        "4000000000001109",
        "4000058260000005",
        # Braintree's and the card networks' common sandbox numbers
        "4005519200000004",
        "4009348888881881",
        "4012000033330026",
        "4012000077777777",
        "4217651111111119",
        "4500600000000061",
        "5431111111111111",
        "5454545454545454",
    ]
)


def luhn_valid(digits: str) -> bool:
    """The Luhn checksum of a string of digits."""
    if not digits.isdigit():
        return False
    total = 0
    for i, ch in enumerate(reversed(digits)):
        d = int(ch)
        if i % 2 == 1:
            d = d * 2 - 9 if d > 4 else d * 2
        total += d
    return total % 10 == 0


def card_like(raw: str, *, any_length: bool = False, samples: bool = False) -> bool:
    """A card number: 13-19 digits with one kind of separator, a card network's prefix, Luhn
    valid, not a published test card (``samples``: those too); unseparated, 15 or 16 digits
    unless ``any_length``."""
    digits = re.sub(r"\D", "", raw)
    if digits in TEST_CARDS:
        return samples and luhn_valid(digits)
    if not 13 <= len(digits) <= 19 or len(set(digits)) < 4:
        return False
    if not (digits[0] in "3456" or 22 <= int(digits[:2]) <= 27):
        return False
    seps = set(re.findall(r"[ -]", raw))
    if len(seps) > 1:
        return False
    if not seps and not any_length and len(digits) not in (15, 16):
        return False
    return luhn_valid(digits)


def card_numbers(ctx: CheckInput) -> Iterator[Hit]:
    """Card numbers: 13-19 digits, Luhn-valid, a card prefix; public test cards excluded."""
    for f, ln in ctx.added():
        if any(card_like(m.group(0)) for m in _CARD.finditer(ln.text[:_MAX_LINE])):
            yield Hit(
                severity=Severity.HIGH,
                title="Payment card number in the change",
                description=f"{f.path or '<content>'}:{ln.number} adds a Luhn-valid card number "
                "(not repeated here).",
                suggestion="Remove it; use the card network's published test numbers in tests "
                "and never store full card numbers (PCI DSS).",
                file=f.path,
                line=ln.number,
            )


_SSN = re.compile(r"(?<![\w-])(\d{3})-(\d{2})-(\d{4})(?![\w-])")
_FAKE_SSNS = frozenset({"123-45-6789", "078-05-1120", "219-09-9999"})
_CPF = re.compile(r"(?<![\w.])(\d{3})\.(\d{3})\.(\d{3})-(\d{2})(?![\w-])")


def ssn_valid(area: str, group: str, serial: str, *, samples: bool = False) -> bool:
    """A US SSN that is possible: not 000/666/9xx area, 00 group, 0000 serial or a famous fake
    (``samples``: a famous one counts)."""
    if f"{area}-{group}-{serial}" in _FAKE_SSNS and not samples:
        return False
    return area not in {"000", "666"} and area[0] != "9" and group != "00" and serial != "0000"


def cpf_valid(digits: str) -> bool:
    """A Brazilian CPF with valid check digits (not all one digit)."""
    if len(digits) != 11 or not digits.isdigit() or len(set(digits)) == 1:
        return False
    for n in (9, 10):
        total = sum(int(d) * w for d, w in zip(digits[:n], range(n + 1, 1, -1), strict=True))
        check = (total * 10) % 11 % 10
        if check != int(digits[n]):
            return False
    return True


def national_ids(ctx: CheckInput) -> Iterator[Hit]:
    """US social security numbers (dashed, possible ranges) and Brazilian CPFs (check digits)."""
    for f, ln in ctx.added():
        text = ln.text[:_MAX_LINE]
        kind = None
        if any(ssn_valid(*m.groups()) for m in _SSN.finditer(text)):
            kind = "US social security number"
        elif any(cpf_valid("".join(m.groups())) for m in _CPF.finditer(text)):
            kind = "Brazilian CPF"
        if kind:
            yield Hit(
                severity=Severity.HIGH,
                title=f"National identity number in the change ({kind})",
                description=f"{f.path or '<content>'}:{ln.number} adds a valid-looking {kind} "
                "(not repeated here).",
                suggestion="Remove it; use synthetic identifiers that cannot be valid.",
                file=f.path,
                line=ln.number,
            )


_EMAIL = re.compile(
    r"(?<![\w.+-])([A-Za-z0-9._%+-]{1,64})@((?:[A-Za-z0-9-]{1,63}\.)+[A-Za-z]{2,24})\b"
)
_DATA_EXT = frozenset(
    [
        ".json",
        ".jsonl",
        ".ndjson",
        ".csv",
        ".tsv",
        ".yaml",
        ".yml",
        ".xml",
        ".sql",
        ".txt",
        ".parquet",
        ".xlsx",
        ".ldif",
        ".vcf",
    ]
)
_DATA_DIRS = frozenset(
    ["fixtures", "fixture", "testdata", "test_data", "data", "seeds", "samples", "mocks"]
)
_FAKE_DOMAINS = re.compile(
    r"(?i)(?:^|\.)(?:example\.(?:com|org|net|edu)|example|test|invalid|localhost|local"
    r"|test\.com|domain\.com|email\.com|foo\.com|bar\.com|acme\.com|mailinator\.com"
    r"|users\.noreply\.github\.com)$"
)
_FAKE_LOCAL = re.compile(r"(?i)^(?:no-?reply|test|user|foo|bar|someone|john\.?doe|jane\.?doe)\d*$")


@functools.lru_cache(maxsize=1024)
def _data_file(path: str | None) -> bool:
    if not path:
        return False
    p = PurePosixPath(path.replace("\\", "/"))
    return (
        p.suffix.lower() in _DATA_EXT
        or bool(_DATA_DIRS.intersection(p.parts[:-1]))
        or is_test_path(path)
    )


def fixture_emails(ctx: CheckInput) -> Iterator[Hit]:
    """Real-looking e-mail addresses in test fixtures and data files (reserved domains excluded)."""
    for f, ln in ctx.added():
        if not _data_file(f.path):
            continue
        for m in _EMAIL.finditer(ln.text[:_MAX_LINE]):
            local, domain = m.group(1), m.group(2)
            if _FAKE_DOMAINS.search(domain) or _FAKE_LOCAL.match(local):
                continue
            yield Hit(
                severity=Severity.MEDIUM,
                title="Real-looking e-mail address in test or data file",
                description=f"{f.path}:{ln.number} adds an address at {domain!r}; personal data "
                "must not be copied into fixtures.",
                suggestion="Use addresses under example.com / example.org or the .test domain.",
                file=f.path,
                line=ln.number,
            )
            break


_COPYLEFT = re.compile(
    r"GNU\s+(?:Affero\s+|Lesser\s+|Library\s+)?General\s+Public\s+License"
    r"|SPDX-License-Identifier:\s*\(?\s*(?:A|L)?GPL|Server\s+Side\s+Public\s+License"
    r"|SPDX-License-Identifier:\s*SSPL",
    re.IGNORECASE,
)
_HEADER_LINES = 40


def copyleft_licence(ctx: CheckInput) -> Iterator[Hit]:
    """A new file whose header carries a copyleft licence (GPL, AGPL, LGPL, SSPL): medium."""
    for f in ctx.files:
        if not f.new_file:
            continue
        for ln in f.added[:_HEADER_LINES]:
            m = _COPYLEFT.search(ln.text[:_MAX_LINE])
            if m:
                yield Hit(
                    severity=Severity.MEDIUM,
                    title="Copyleft licence header in a new file: licence review needed",
                    description=f"{f.path or '<content>'}:{ln.number}: {m.group(0)!r}. Code "
                    "under a copyleft licence may impose its terms on the whole project.",
                    suggestion="Check the code's origin and licence compatibility before merging.",
                    file=f.path,
                    line=ln.number,
                )
                break
