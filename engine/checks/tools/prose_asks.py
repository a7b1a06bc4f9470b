"""What a message's text hands over or asks for, beyond a labelled password, for ``prose``:

- a second factor itself: an ``otpauth://`` seed, a list of recovery codes;
- a key in a configuration pasted in (WireGuard's ``PrivateKey =``, a ``client_secret:``);
- a credential encoded to slip past a scanner (base64 of ``user:password``);
- a bare password on a line of its own in a message about signing in;
- a payment to bank details the message says are new, or asks for urgently and in secret
  (invoice redirection, CEO fraud);
- mail of whole mailboxes forwarded to another address;
- a password reset sent to an address the message names (help-desk pretexting);
- a request that the reader reply with their password or the code just sent to them, and a
  sign-in code passed on for someone's account;
- a person's IP address, home address or phone number published about them (doxxing).

Each reader is a pure function of the text; each answers a severity, a title and what to do.
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Callable, Iterator

from humangr.contracts import Severity

__all__ = ["Ask", "message_asks"]

Ask = tuple[Severity, str, str]
"""A finding of a message's text: its severity, title and what to do."""

_OTPAUTH = re.compile(r"(?i)otpauth://[^\s\"'<>]*[?&]secret=[A-Z2-7]{16,}")
_RECOVERY_LABEL = re.compile(
    r"(?i)\b(?:recovery|backup|verification|one-time|scratch|mfa|2fa)\s+(?:codes?|keys?)\b|"
    r"\bcodes?\s*:"
)
_CODE = re.compile(r"(?<![\w-])(?:\d{4}[- ]\d{4}|[a-z0-9]{4}-[a-z0-9]{4}|\d{8})(?![\w-])", re.I)
_CONFIG_KEY = re.compile(
    r"(?im)^\s*(?:PrivateKey|PresharedKey|private_key|client_secret|secret_key|api_secret|"
    r"signing_key|encryption_key)\s*[=:]\s*[\"']?[A-Za-z0-9+/_-]{32,}={0,2}[\"']?\s*$"
)
_BASE64_WORD = re.compile(r"(?<![A-Za-z0-9+/=])[A-Za-z0-9+/]{16,200}={0,2}(?![A-Za-z0-9+/=])")
_SIGN_IN_TALK = re.compile(r"(?i)\b(?:log ?in|sign ?in|password|credentials?|account|portal)\b")
_BARE_SECRET = re.compile(r"(?m)^\s*([^\s]{8,64})\s*$")
_CODE_LINE = re.compile(r"environ|getenv|process\.env|\$\{|^\$\w|^[\w.]+\(.*\)$")
_BANK = re.compile(
    r"(?i)\bIBAN\b|\bSWIFT\b|\bBIC\b|\brouting (?:number|no)\b|\bsort code\b|"
    r"\b(?:acct|account)(?: (?:no|number|#))?\s*[:.]?\s*[\d-]{6,}"
)
_PAY = re.compile(
    r"(?i)\b(?:wire|remit(?:tance)?|transfer|pay(?:ment|out)?s?|send the funds|invoices?|"
    r"direct deposit|payroll|salary|refunds?|credit notes?|remit-to|receivables?)\b"
)
_MONEY = re.compile(
    r"(?i)(?:USD|EUR|GBP|CHF|[$€£])\s?\d[\d,.]{0,20}|(?<![\d,.])\d[\d,.]{0,20}\s?(?:USD|EUR|GBP|CHF)"
)
_PRESSED = re.compile(
    r"(?i)\b(?:new|changed?|updated?|moved|different|instead|no longer|will be closed|"
    r"confidential|don'?t (?:discuss|tell)|do not (?:discuss|tell)|urgent(?:ly)?|asap|"
    r"immediately|today|no need to (?:call|confirm|verify|check)|(?:not|don'?t|never|without) "
    r"(?:to )?(?:call(?:ing)?|phon(?:e|ing)|ring(?:ing)?|verify(?:ing)?|check(?:ing)?)"
    r"(?: (?:us|them|back|to (?:confirm|verify|check)))?)\b"
)
"""What the frauds say of the bank details: they are new, or the payment is urgent and secret
(an invoice that states the usual account says neither)."""
_FORWARD_WORD = re.compile(r"(?i)\b(?:forward|redirect|bcc|copy)\b")
_EVERY = re.compile(r"(?i)\b(?:every|all)\b")
_MAIL = re.compile(r"(?i)\b(?:messages?|mail|e-?mails?)\b")
_TO_ADDRESS = re.compile(r"(?i)\bto\s+[\w.+-]{1,64}@[\w-]{1,63}\.[\w.]{1,64}")
_RESET_TO = re.compile(
    r"(?i)\b(?:reset|send|give|email|mail|text)\b[^.\n]{0,80}\b(?:password|temporary one|"
    r"temp password|credentials|login|code)\b[^\n]{0,80}?"
    r"\bto\s+[\w.+-]{1,64}@[\w-]{1,63}\.[\w.]{1,64}"
)
_CHANGED_BANK = re.compile(
    r"(?i)\b(?:update|change|replace|switch)\b[^.\n]{0,40}\b(?:bank|remittance|payment|payout|"
    r"beneficiary|account) (?:details|account|info(?:rmation)?)\b|"
    r"\b(?:update|change|switch|move)\b[^.\n]{0,20}\bdirect deposit\b|"
    r"\bnew (?:bank |deposit |checking |savings )?account\b|"
    r"\bnew (?:bank|remittance|payment|payout|beneficiary) (?:details|account)\b|"
    r"\bdisregard (?:the |our |any )?(?:prior|previous|old|earlier)\b|"
    r"\bchanged (?:their |its |our )?banks?\b|"
    r"\bupdate (?:the |their |our |its )?remit(?:tance|-to)\b"
)
"""What an invoice-redirection message says: the bank details are to be changed."""
_NO_CHECK = re.compile(
    r"(?i)\b(?:no need to|(?:do )?not|don'?t|never|without)\s(?:to\s)?(?:call(?:ing)?|"
    r"phon(?:e|ing)|verify(?:ing)?)\b[^.\n]{0,30}\b(?:confirm|verify|check)"
)
"""The fraud's tell: the reader is told not to call back to confirm the change."""
_REPLY_WITH = re.compile(
    r"(?i)\b(?:reply|respond|send|provide|give|tell|share|confirm|dm|text|type|paste|post|drop)\b"
    r"(?: (?:us|me|back))?\s+(?:with\s+)?[^.\n]{0,60}?\b(?:your|the)\b[^.\n]{0,50}?"
    r"\b(?:password(?!\s*(?:reset|polic|manager|change|rules|requirement|expir|hygiene))|"
    r"passcode|pin|login code|2fa code|mfa code|verification code|security code|"
    r"one-time code|\d-digit code|code (?:we|I) (?:just )?sent|code you (?:just )?(?:received|got)|"
    r"full card number|card number|card details|cvv|cvc|security code on the back)|"
    r"\b(?:responda|responde|envíe|envie|envía|indique|répondez|envoyez|communiquez|antworten|"
    r"senden|teilen)\b[^.\n]{0,60}\b(?:código|codigo|code|Code|contraseña|mot de passe|Passwort|"
    r"PIN)\b"
)
"""A request for a password, a code just sent, or card details (in English, Spanish, French
or German)."""
_KEYS_ASKED = re.compile(
    r"(?i)\b(?:send|reply|respond|dm|share|paste|post|provide|give|e-?mail|text|submit|upload)\b"
    r"[^.\n]{0,60}?\byour\b[^.\n]{0,40}?\b(?:keys|(?:api|access|secret|private|signing) keys?|"
    r"tokens|(?:api|access|auth|session|personal access) tokens?|secrets|credentials)\b"
)
"""A request that people send their keys, tokens or credentials (``DM the bot your AWS
keys``); a public key is meant to be shared."""
_NEGATED = re.compile(r"(?i)\b(?:never|not|don'?t|won'?t|no one|nobody|will never)\b")
_TOLD_OF = re.compile(r"(?i)(?:\bwill|'ll|\bshall|\bis going to|\bare going to)\s+$")
"""What someone else will do (``the manager will give the temporary password``), not a
request to the reader."""
_SIGN_IN_CODE = re.compile(
    r"(?i)\b(?:verification|security|login|sign-?in|2fa|mfa|one-time|otp|auth(?:entication)?|"
    r"access) code\b[^\n]{0,60}?\b\d{4,8}\b"
)
_PASSED_ON = re.compile(
    r"(?i)\bforward(?:ed|ing)?\b|\bas requested\b|\bfor (?:the )?(?:account|user)\b"
)
_ABOUT_PERSON = re.compile(
    r"(?i)\b(?:his|her|their)\s+(?:home\s+|real\s+|public\s+)?(?:ip(?: address)?|address|"
    r"phone(?: number)?|number|location)\s+(?:is|=|:)\s*"
    r"(?:\d{1,3}(?:\.\d{1,3}){3}\b|\+?\d[\d ().-]{6,}\d|\d{1,5}\s+[A-Z][a-z]+)"
)
"""A person's IP address, phone number or street address given out about them."""


def message_asks(text: str) -> Iterator[Ask]:
    """Every finding the readers of this module make of ``text``."""
    for reader in _READERS:
        found = reader(text)
        if found is not None:
            yield found


def _second_factor(text: str) -> Ask | None:
    if _OTPAUTH.search(text):
        return (
            Severity.CRITICAL,
            "sends a one-time-password seed (otpauth://)",
            "Enrol the second factor in person; a seed is the factor itself.",
        )
    label = _RECOVERY_LABEL.search(text)
    named = label is not None and not label.group(0).lower().startswith("code")
    if label is not None and len(_CODE.findall(text, label.end(), label.end() + 2_000)) >= (
        3 if named else 4
    ):
        return (
            Severity.CRITICAL,
            "sends an account's recovery codes",
            "Recovery codes sign in without the password's second factor; never send them.",
        )
    return None


def _config_key(text: str) -> Ask | None:
    if _CONFIG_KEY.search(text):
        return (
            Severity.CRITICAL,
            "sends a private key from a configuration",
            "Send the configuration without its keys; have each person make their own.",
        )
    return None


def _encoded_credential(text: str) -> Ask | None:
    for m in list(_BASE64_WORD.finditer(text))[:32]:
        word = m.group(0)
        try:
            decoded = base64.b64decode(word + "=" * (-len(word) % 4), validate=True)
            plain = decoded.decode("utf-8")
        except (ValueError, binascii.Error):
            continue
        user, colon, secret = plain.partition(":")
        plausible = colon and user and len(secret) >= 6 and plain.isprintable()
        if plausible and " " not in plain and any(not c.isalpha() for c in secret):
            return (
                Severity.CRITICAL,
                "writes out a credential encoded in base64",
                "Send no credentials, encoded or not; share a vault link.",
            )
    return None


def _bare_password(text: str) -> Ask | None:
    if not _SIGN_IN_TALK.search(text):
        return None
    for m in list(_BARE_SECRET.finditer(text))[:64]:
        word = m.group(1)
        kinds = (
            any(c.isupper() for c in word)
            + any(c.islower() for c in word)
            + any(c.isdigit() for c in word)
            + any(not c.isalnum() for c in word)
        )
        rare = any(not c.isalnum() and c not in ".-_/:" for c in word)
        plain = not any(c in ".-_/:" for c in word)
        if _CODE_LINE.search(word):
            continue  # a line of code reading the secret from the environment, or a call
        if kinds >= 3 and (rare or plain) and "://" not in word and "@" not in word:
            return (
                Severity.HIGH,
                "writes out what looks like a password on a line of its own",
                "Send no credentials; share a vault link.",
            )
    return None


def _payment_to(text: str) -> Ask | None:
    pressed = (_MONEY.search(text) and _PRESSED.search(text)) or _NO_CHECK.search(text)
    paid = _PAY.search(text) or _MONEY.search(text)
    if _BANK.search(text) and paid and (pressed or _CHANGED_BANK.search(text)):
        return (
            Severity.HIGH,
            "asks for a payment to the bank details it gives",
            "Confirm new or changed bank details by phone on a known number before paying.",
        )
    return None


def _forward_all(text: str) -> Ask | None:
    """``forward … every … message … to x@y``, within a sentence's reach of the verb."""
    for m in list(_FORWARD_WORD.finditer(text))[:32]:
        window = text[m.end() : m.end() + 400].split("\n", 1)[0]
        every = _EVERY.search(window)
        mail = _MAIL.search(window, every.end()) if every is not None else None
        if mail is not None and _TO_ADDRESS.search(window, mail.end()):
            return (
                Severity.HIGH,
                "asks for whole mailboxes to be forwarded elsewhere",
                "Let the mailbox's owner and security set up any forwarding.",
            )
    return None


def _reset_to(text: str) -> Ask | None:
    if _RESET_TO.search(text):
        return (
            Severity.HIGH,
            "asks for a password or code to be sent to an address it names",
            "Resets go to the address on record, after the person is verified.",
        )
    return None


def _asks_for_code(text: str) -> Ask | None:
    asked = [*list(_REPLY_WITH.finditer(text))[:8], *list(_KEYS_ASKED.finditer(text))[:8]]
    for m in asked:
        before = text[max(0, m.start() - 40) : m.end()]
        if "public key" in m.group(0).lower():
            continue  # a public key is meant to be shared
        if _TOLD_OF.search(text[max(0, m.start() - 24) : m.start()]):
            continue
        if not _NEGATED.search(before):
            return (
                Severity.HIGH,
                "asks the reader for their password, sign-in code or keys",
                "No one legitimate asks for a password or code by message; do not send this.",
            )
    code = _SIGN_IN_CODE.search(text)
    if code is not None and _PASSED_ON.search(text):
        return (
            Severity.HIGH,
            "passes on a sign-in code for someone's account",
            "A sign-in code is for the account's owner alone; do not forward it.",
        )
    return None


def _exposes_person(text: str) -> Ask | None:
    if _ABOUT_PERSON.search(text):
        return (
            Severity.HIGH,
            "publishes a person's IP address, phone number or home address",
            "Do not publish where a person lives or connects from.",
        )
    return None


_READERS: tuple[Callable[[str], Ask | None], ...] = (
    _second_factor,
    _config_key,
    _encoded_credential,
    _bare_password,
    _payment_to,
    _forward_all,
    _reset_to,
    _asks_for_code,
    _exposes_person,
)
