"""Personal data in text that is about to leave: people's e-mail addresses and phone numbers,
payment card numbers (Luhn-valid, public test numbers aside), US social security numbers and
Brazilian CPFs (with their check digits). Counts, never the values, leave this module."""

from __future__ import annotations

import re

from ..compliance import card_like, cpf_valid, ssn_valid
from .national_ids import bank_accounts, labelled_ids
from .personal_kinds import PersonalData
from .personal_records import named_near, public_ips
from .personal_spellings import dotted_cards, labelled_ssns
from .query_expr import query_expression

__all__ = ["PersonalData", "scan_personal"]

_EMAIL = re.compile(
    r"(?<![\w.+%/-])([A-Za-z0-9][A-Za-z0-9._%+-]{0,63})@((?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}"
    r"[A-Za-z0-9])?\.){1,8}[A-Za-z]{2,24})(?![\w-])"
)
_ROLE_LOCALS = frozenset(
    {"noreply", "no-reply", "donotreply", "do-not-reply", "support", "info", "help", "admin",
     "administrator", "contact", "hello", "sales", "team", "billing", "security", "privacy",
     "abuse", "postmaster", "webmaster", "hostmaster", "notifications", "notification",
     "alerts", "newsletter", "news", "marketing", "jobs", "careers", "press", "legal", "office",
     "mail", "root", "git", "hr", "feedback", "service", "dev", "devops", "ops", "it",
     "enquiries", "inquiries", "example", "test", "bounce", "bounces", "reply", "mailer-daemon",
     "ci", "bot", "github-actions", "dependabot", "renovate", "nobody", "user", "username",
     "someone", "name", "email", "you", "your.name", "firstname.lastname", "john.doe", "jane.doe"}
)  # fmt: skip
_FAKE_DOMAINS = re.compile(
    r"(?i)(?:^|\.)(?:example\.(?:com|org|net)|example|test|invalid|localhost|local|lan|internal"
    r"|users\.noreply\.github\.com|noreply\.github\.com|yourdomain\.com|yourcompany\.com"
    r"|domain\.com|email\.com|company\.com|acme\.com|mailinator\.com)$"
)
_DOC_DOMAINS = re.compile(r"(?i)(?:^|\.)(?:example\.(?:com|org|net)|example)$")
"""The reserved example domains: placeholders in code and docs, but in data that leaves
(``samples``) they stand for the people they name, as test card numbers do."""
_FILE_TLDS = frozenset(
    {"png", "jpg", "jpeg", "gif", "svg", "webp", "ico", "js", "mjs", "ts", "css", "py", "json",
     "map", "md", "txt", "html", "lock", "toml", "yaml", "yml", "xml", "zip", "gz", "tar"}
)  # fmt: skip
_CARD = re.compile(r"(?<![\w./:-])(?<!\d,)(?:\d[ -]?){12,18}\d(?![\w/:]|[.-]\d)")
"""A card number's digits: a field of a comma-separated line too (``Maria Lopez,4532…,08/27``),
not the tail of a number written with thousands separators (``1,234,…``)."""
_SSN = re.compile(r"(?<![\w-])(\d{3})-(\d{2})-(\d{4})(?![\w-])")
_CPF = re.compile(r"(?<![\w.])(\d{3})\.(\d{3})\.(\d{3})-(\d{2})(?![\w-])")
_PHONE = re.compile(
    r"(?<![\w+])(?:\+\d{1,3}[ .-]?(?:\(\d{1,4}\)[ .-]?)?\d{1,4}(?:[ .-]?\d{2,4}){1,4}"
    r"|\(\d{3}\) ?\d{3}[-. ]\d{4}|\d{3}[-.]\d{3}[-.]\d{4})(?![\w-])"
)
_PHONE_KEY = re.compile(r"(?i)phone|mobile|^tel|_tel$|cell|whatsapp|fax|msisdn|^sms")
_SSN_KEY = re.compile(r"(?i)^(?:ssn|social_?security(?:_?number)?|tax_?id|tin)$")
_CPF_KEY = re.compile(r"(?i)^cpf$")
_CARD_KEY = re.compile(r"(?i)card|pan$|^cc_?num|credit")
_MAX_TEXT = 200_000
_CARD_DETAILS = re.compile(r"(?i)\b(?:cvv2?|cvc2?|csc|exp(?:iry|iration)?)\b")
_SPENDING = re.compile(
    r"(?i)\b(?:chargebacks?|purchases|purchased|purchase history|payment history|"
    r"transactions|spent|owes?|outstanding balance|balance (?:is|of)|refunds|"
    r"orders? history|disputes?|disputed|credit (?:score|limit))\b"
)
"""What a person bought, paid, owes or disputed."""
_CARD_CODE = re.compile(r"(?i)\b(?:cvv2?|cvc2?|csc|cid|security code)\b\W{0,4}\d{3,4}\b")
"""A card's security code written out (``CVV 417``)."""
_STREET = re.compile(
    r"\b\d{1,5}[A-Za-z]?\s+(?:[A-Z][a-z]+\s+){1,3}(?:St|Street|Ave|Avenue|Rd|Road|Blvd|"
    r"Boulevard|Lane|Ln|Dr|Drive|Way|Court|Ct|Place|Pl|Terrace|Square|Sq|Highway|Hwy)\b"
)
_STREET_EU = re.compile(
    r"\b[A-ZÄÖÜÅØ][a-zäöüßåøæ]+(?:straße|strasse|str\.|weg|gasse|allee|platz|ring|damm|gata|"
    r"gatan|gade|vej|straat|laan|plein|vägen|veien)\s+\d{1,4}[a-z]?\b|"
    r"\b\d{1,4}(?:bis|ter)?,?\s+(?:rue|avenue|boulevard|bd|allée|chemin|impasse|quai)\s+"
    r"[A-Za-zÀ-ÿ'-]{2,}|"
    r"\b(?:ul\.|ulica|via|viale|calle|carrer|rua|avenida|piazza|plaza|corso)\s+"
    r"[A-ZÀ-Ý][\w'-]+(?:\s+[A-ZÀ-Ý][\w'-]+){0,2},?\s+\d{1,4}\b"
)
"""Street addresses as Europe writes them (``Lindenstr. 8``, ``12 rue Oberkampf``,
``ul. Długa 14``, ``Via Roma 10``)."""
_BIRTH = re.compile(
    r"(?i)\b(?:born(?:\s+on)?|dob|d\.o\.b\.?|date\s+of\s+birth|birth\s*date|birthday)\b"
    r"\W{0,6}(?:\d{4}-\d{2}-\d{2}|\d{1,2}[/.]\d{1,2}[/.]\d{2,4}|[A-Z][a-z]+\s+\d{1,2},?\s+\d{4})"
)
_BIRTH_KEY = re.compile(r"(?i)^(?:dob|birth_?date|date_?of_?birth|birthday)$")
_DATE = re.compile(r"^\s*(?:\d{4}-\d{2}-\d{2}|\d{1,2}[/.]\d{1,2}[/.]\d{2,4})\s*$")
_HEALTH = re.compile(
    r"(?i)\b(?:diagnos[ie]s|diagnosed|diabet\w*|cancer|carcinoma|tumou?r|hiv|hepatitis|"
    r"pregnan\w*|miscarriage|abortion|depressi\w*|anxiety|schizo\w*|bipolar|ptsd|adhd|autis\w*|"
    r"dementia|alzheimer\w*|parkinson\w*|epilep\w*|asthma|copd|hypertension|"
    r"opioid|substance\s+use|addiction|overdose|suicid\w*|self-harm|chemotherapy|dialysis|"
    r"psychiatric|psychotherapy|antidepressant\w*|prescri(?:ption|bed)|chlamydia|"
    r"syphilis|hba1c|icd-?10|mrn|disorder|psychosis|counsell?ing|mental health|"
    r"antiretroviral|insulin|methotrexate|withdrawal|detox|rehab|rehabilitation|"
    r"behaviou?ral health|inpatient|psych(?:iatric)? ward|sexual health|std|sti)\b|"
    r"(?-i:\b[A-TV-Z]\d{2}\.[0-9][0-9A-Z]{0,3}\b)"  # a dotted ICD-10 code (``I50.23``)
)
_HR = re.compile(
    r"\b(?:[Ss]alar(?:y|ies)|PIP|[Pp]erformance improvement plan|[Dd]isciplinary|"
    r"[Ff]inal warning|[Dd]ismiss(?:al|ed)|[Mm]edical leave|[Ss]ick leave|[Gg]rievance|"
    r"[Rr]edundan(?:cy|t)|[Bb]ackground check|[Cc]onviction|[Ff]elony|[Mm]isdemeanou?r|"
    r"[Cc]riminal record|[Tt]erminat(?:ed|ion)|[Hh]arassment|[Cc]omplainant|"
    r"[Dd]rug (?:screen|test)|[Ff]ailed (?:a |the )?drug)\b"
)
"""What an HR record says about a named person: pay, performance, discipline, leave."""
_NAMED = re.compile(r"\b[A-Z][a-z]+\s+[A-Z][a-z'-]+\b|\b[A-Z]\.\s?[A-Z][a-z'-]+\b")
_NI = re.compile(
    r"(?i)\b(?:NI|NINO|national insurance(?: number| no\.?)?)\W{0,6}"
    r"([A-CEGHJ-PR-TW-Z][A-CEGHJ-NPR-TW-Z] ?\d{2} ?\d{2} ?\d{2} ?[A-D])\b"
)
"""A UK National Insurance number, as a label introduces it."""
_HEALTH_KEY = re.compile(
    r"(?i)^(?:dx|diagnos[ie]s|diagnosis_?\w*|conditions?|icd_?10|icd|medical_?\w*|health_?\w*|"
    r"medications?|prescriptions?|treatment)$"
)
"""A field of a person's record that holds a diagnosis, condition or treatment."""
_RECORDS = re.compile(r"[\n;]")
"""What separates one person's record from the next in a message."""
_IDENTIFIERS = (
    _NAMED,
    _STREET,
    _STREET_EU,
    re.compile(r"\b[A-Z]{1,3}\d{6,}\b"),
    re.compile(r"\d{4}-\d{2}-\d{2}|\b\d{1,2}/\d{1,2}/\d{2,4}\b"),
    _EMAIL,
    _PHONE,
    re.compile(r"(?i)\b(?:MRN|patient\s*(?:id|#|no))\W*\d"),
)
"""What points at a person on a line: a name, a date, an address or number, a record number
(two of them name someone; a date alone is an appointment)."""


def _personal_email(local: str, domain: str, exclude: frozenset[str], samples: bool) -> bool:
    address = f"{local}@{domain}".lower()
    if address in exclude or local.lower() in _ROLE_LOCALS:
        return False
    if domain.rsplit(".", 1)[-1].lower() in _FILE_TLDS:
        return False
    if _FAKE_DOMAINS.search(domain) and not (samples and _DOC_DOMAINS.search(domain)):
        return False
    return not (len(local) >= 24 and re.fullmatch(r"[0-9a-f-]+", local.lower()))


def _card(raw: str) -> bool:
    return card_like(raw, any_length=True)


def _spending(text: str, emails: set[str]) -> int:
    """How many of ``emails`` come at most a hundred characters before what that person
    bought, paid, owes or disputed (``k.l@outlook.com has 3 chargebacks``)."""
    found: set[str] = set()
    for n, m in enumerate(_SPENDING.finditer(text)):
        if n >= 100:
            break
        before = text[max(0, m.start() - 100) : m.start()].lower()
        found.update(e for e in emails if e in before)
    return len(found)


def _shaped(raw: str) -> bool:
    """A card number's shape: 13-19 digits with a network's first digit, in one grouping."""
    digits = re.sub(r"\D", "", raw)
    return (
        13 <= len(digits) <= 19 and digits[0] in "3456" and len(set(re.findall(r"[ -]", raw))) <= 1
    )


def scan_personal(
    text: str, key: str = "", *, exclude: frozenset[str] = frozenset(), samples: bool = False
) -> PersonalData:
    """The personal data in ``text`` (a value whose name, if any, is ``key``); addresses in
    ``exclude`` (the mail's own sender and recipients) are not counted. ``samples``: published
    test card numbers and famous sample SSNs count too (they are sent out as the real ones
    are; in a repository's fixtures they are not counted)."""

    out = PersonalData()
    text = text[:_MAX_TEXT]
    for m in _EMAIL.finditer(text):
        if text[max(0, m.start() - 3) : m.start()] == "://":
            continue  # user@host of a URL, not an address
        if _personal_email(m.group(1), m.group(2), exclude, samples):
            out.emails.add(m.group(0).lower())
    numbers = [m.group(0) for m in _CARD.finditer(text)] + dotted_cards(text)
    out.cards = sum(1 for raw in numbers if _card(raw))
    if samples and not out.cards:
        listed = sum(1 for raw in numbers if card_like(raw, any_length=True, samples=True))
        if listed >= 2 or (listed and _CARD_DETAILS.search(text)):
            out.cards = listed  # test numbers sent out as a list, or with their CVV and expiry
        elif _CARD_CODE.search(text):  # a card's number with its security code: a card's
            out.cards = sum(1 for raw in numbers if _shaped(raw))  # whole details, checksum or not
    ssns = [m.groups() for m in _SSN.finditer(text)]
    ssns += [g for g in labelled_ssns(text) if g not in ssns]
    out.ssns = sum(1 for g in ssns if ssn_valid(*g))
    if samples and not out.ssns:
        listed = sum(1 for g in ssns if ssn_valid(*g, samples=True))
        out.ssns = listed if listed >= 2 else 0  # a list of them, not one shown as an example
    out.cpfs = sum(1 for m in _CPF.finditer(text) if cpf_valid("".join(m.groups())))
    digits = re.sub(r"\D", "", text) if len(text) <= 64 else ""
    if key and digits:
        if _SSN_KEY.search(key) and len(digits) == 9 and not out.ssns:
            out.ssns += ssn_valid(digits[:3], digits[3:5], digits[5:])
        elif _CPF_KEY.search(key) and not out.cpfs:
            out.cpfs += cpf_valid(digits)
        elif _CARD_KEY.search(key) and not out.cards:
            out.cards += _card(digits)
            if samples and not out.cards:
                out.sample_cards += card_like(digits, any_length=True, samples=True)
        elif _PHONE_KEY.search(key) and 7 <= len(digits) <= 15:
            out.phones.add(digits)
    out.addresses = len(_STREET.findall(text)[:100]) + len(_STREET_EU.findall(text)[:100])
    if out.addresses:
        out.addressed = max(named_near(text, _STREET), named_near(text, _STREET_EU))
    if _HEALTH.search(text):
        out.health = sum(
            1
            for line in _RECORDS.split(text, maxsplit=2_000)
            if _HEALTH.search(line) and sum(bool(i.search(line)) for i in _IDENTIFIERS) >= 2
        )
        out.health = max(out.health, named_near(text, _HEALTH, possessive=True))
    if (
        key
        and _HEALTH_KEY.search(key)
        and text.strip()
        and len(text) <= 400
        and not (key.lower().startswith("condition") and query_expression(text))
    ):  # a filter named ``condition``, not someone's condition
        out.health += 1  # a diagnosis or condition field of a person's record
    if _HR.search(text):
        out.hr = sum(
            1
            for line in _RECORDS.split(text, maxsplit=2_000)
            if _HR.search(line) and _NAMED.search(line)
        )
        out.hr = max(out.hr, named_near(text, _HR))
    out.nis = len(_NI.findall(text)[:100])
    out.ids = labelled_ids(text)
    out.banks = bank_accounts(text)
    out.birth_dates = len(_BIRTH.findall(text)[:100])
    if key and _BIRTH_KEY.search(key) and _DATE.match(text[:64]):
        out.birth_dates += 1
    if out.emails:
        out.ips = public_ips(text)
        out.spending = _spending(text, out.emails)
    if not out.phones:
        for m in _PHONE.finditer(text):
            found = re.sub(r"\D", "", m.group(0))
            if 8 <= len(found) <= 15 and not _SSN.fullmatch(m.group(0)):
                out.phones.add(found)
    return out
