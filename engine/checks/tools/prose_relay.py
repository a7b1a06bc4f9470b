"""What a message passes on that its readers should not get (for ``prose``), in any trade:

- a secret after a plain label: ``auth rL9#vX…``, ``the publisher key is 7F3A9C…`` (a public
  key aside), and a user and password written together with the sign-in after them
  (``svc-scan / Sc4nn3r!2024 works for the copier login``);
- a one-time sign-in, reset or bypass code passed on (``your verification code is 482913``,
  ``the login code sent to the holder is 483920``): whoever holds it signs in;
- a second factor to be removed with the new code sent to a number the message gives;
- bank details said to have changed, with the new account's numbers (invoice redirection);
- a payment to go out without waiting for its sign-off;
- a document-store link marked for anonymous access (``?e=anyone``) to a whole data set or
  outside the company;
- a person's home IP address written out;
- three or more recovery or backup codes listed, a link that signs its holder in as someone
  else (``/impersonate?token=…``);
- a negotiation's limit (how high or low one side may go, its floor or walk-away) told where
  another organisation reads it (recipients of two or more domains, a shared channel).

Each reader scans a bounded window of the text once; all findings are high.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from itertools import islice

from .key_ids import is_key_id
from .prose_links import DOCUMENT_STORE

__all__ = ["relayed"]

_MAX_TEXT = 8_000
_LABELLED = re.compile(
    r"(?i)(?<!public )(?<!public-)\b(auth|password|passwd|secret|token|key)\s+(?:is\s+|=\s*|:\s*)?"
    r"[`'\"]?([A-Za-z0-9][^\s`'\"<>,;()]{7,120})"
)
_NAMED_KEY = re.compile(
    r"(?i)\b(?:cache|primary|foreign|partition|sort|row|idempotency|dedup\w*|object|s3|"
    r"issue|jira|lookup|map|hash|routing)[ _-]?$"
)
"""Words before ``key`` that make it a name, not a secret (``cache key``, ``partition key``)."""
_PAIR_THEN_SIGN_IN = re.compile(
    r"(?<![\w/])[\w.@+-]{2,64}\s+/\s+([^\s/;,()]{8,64})[^\n]{0,60}?"
    r"\b(?:log ?in|sign ?in|login|logon|credentials?|account|access)\b",
    re.IGNORECASE,
)
_CODE = re.compile(
    r"(?i)\b(?:code|pin|passcode)(?:(?:\s+for\s+\S{1,64})?\s*(?:is|:)?|"
    r"(?:[ \t]+(?!is\b)[\w@+'-]{1,40}(?:\.[\w@+'-]{1,40}){0,3}){1,6}?[ \t]*(?:is|:))"
    r"\s*(\d{4,8})\b"
)
"""A code and its digits, up to six words between them that say whose or for what (``code
for ann@… is 482913``, ``code sent to the account holder is 483920``)."""
_CODE_KIND = re.compile(
    r"(?i)\b(?:verification|security|one[- ]time|login|log-in|sign[- ]in|mfa|2fa|otp|"
    r"authentication|authenticator|access|temporary|reset|bypass|unlock)\s*$"
)
"""A sign-in code's kind, read just before the word ``code`` (a booking's confirmation code
is none)."""
_FACTOR = re.compile(r"(?i)\b(?:mfa|2fa|two[- ]factor|authenticator|second factor|factors?)\b")
_FACTOR_OFF = re.compile(r"(?i)\b(?:remove|reset|clear|disable|delete|bypass|new phone)\b")
_CODE_TO_NUMBER = re.compile(
    r"(?i)\b(?:text|send|sms|call)\b[^.\n]{0,40}?\bto\s+\+?\d[\d\s().-]{7,18}\d"
)
_CHANGED = re.compile(
    r"(?i)\b(?:bank|account|wire|wiring|payment|trust|remittance|payee|escrow|banking)\s+"
    r"(?:account\s+)?(?:details|instructions|information|info|account)\s+(?:have|has)\s+"
    r"(?:been\s+)?(?:changed|updated|moved)|\b(?:updated|new|revised|changed)\s+"
    r"(?:wire|wiring|bank|banking|payment|remittance)\s+(?:instructions|details)\b"
)
_BANK_NUMBERS = re.compile(
    r"(?i)\b(?:acct|account(?:\s+(?:no|number))?|routing|aba|sort\s*code|iban|swift|bic)\b"
    r"\.?\s*[:#]?\s*(?:[A-Z]{2}\d{2}[\s\dA-Z]{10,30}|[\d-]{6,20})"
)
_PAYMENT = re.compile(r"(?i)\b(?:wire|release|pay|payment|transfer|disburse\w*|remit)\b")
_NO_WAIT = re.compile(
    r"(?i)\b(?:no need to|don'?t|do not|without)\s+wait(?:ing)?\s+(?:for|on)\b[^.\n]{0,30}?"
    r"\b(?:approvals?|sign-?offs?|second signature|authori[sz]ations?|review|countersign\w*)\b"
)
_STORE_LINK = re.compile(DOCUMENT_STORE.pattern + r"[^\s\"'<>]{0,400}")
"""A document-store link with its path and query (whose marks say who may open it)."""
_ANON_MARK = re.compile(r"(?i)[?&](?:e|share|access|type)=(?:anyone|anon|anonymous|public)\b")
_WHOLE = re.compile(r"(?i)\b(?:full|all|entire|whole|complete|every|export|dump|list|set)\b")
_HOME_IP = re.compile(
    r"(?i)\b(?:home|residential|personal|real)\s+IP(?:\s+address)?\b[^.\n]{0,20}?"
    r"\b\d{1,3}(?:\.\d{1,3}){3}\b"
)
_RECOVERY = re.compile(r"(?i)\b(?:recovery|backup|emergency|scratch)\s+codes?\b")
_CODE_LINE = re.compile(r"(?m)^\W{0,4}[A-Za-z0-9]{2,8}(?:[- ][A-Za-z0-9]{2,8}){1,3}\W{0,2}$")
_AS_SOMEONE = re.compile(
    r"(?i)https?://\S{0,200}(?:impersonat|log_?in_?as|login-as|sudo|become_?user|switch_?user)"
    r"\S{0,200}[?&][a-z_]{0,20}(?:token|key|sig|session|code)=[A-Za-z0-9_.%-]{12,}"
)
_LIMIT = re.compile(
    r"(?i)\b(?:authori[sz]ed\s+(?:us\s+)?to\s+go\s+(?:as\s+)?(?:high|low)|"
    r"go\s+as\s+(?:high|low)\s+as|floor\s+(?:approved|is|of)|walk[- ]away\s+(?:price|number|"
    r"point|is)|bottom[- ]line\s+is|(?:approved|authori[sz]ed)\s+(?:a\s+)?settlement\s+range|"
    r"settlement\s+(?:authority|range)\s+(?:of|is)|our\s+(?:ceiling|max(?:imum)?)\s+is|"
    r"reserve\s+price\s+is)\b"
)
_AS_WORDS = ("imperson", "login_as", "log_in_as", "login-as", "loginas", "sudo", "become", "switch")
_LIMIT_WORDS = ("high", "low", "floor", "walk", "bottom", "settlement", "ceiling", "max", "reserve")


def _secret_like(value: str, word: str, before: str) -> bool:
    """A value with a secret's make-up: letters and digits, long enough for its label."""
    value = value.rstrip(".,;:!?)")
    if is_key_id(value):  # ``key AKIA…`` names a key; whether it leaks is the egress rules'
        return False
    letters = any(c.isalpha() for c in value)
    digits = sum(c.isdigit() for c in value)
    if not letters or not digits or ":" in value or "/" in value or "$" in value:
        return False
    if word in ("auth", "password", "passwd"):
        return len(value) >= 8 and (any(not c.isalnum() for c in value) or digits >= 3)
    return len(value) >= 16 and digits >= 3 and not _NAMED_KEY.search(before)


def _strong(value: str) -> bool:
    value = value.rstrip(".,;:!?)")
    symbol = any(not c.isalnum() for c in value)
    cased = any(c.isupper() for c in value) and any(c.islower() for c in value)
    digits = sum(c.isdigit() for c in value)
    return len(value) >= 8 and digits > 0 and (symbol or (cased and digits >= 3))


def _sign_in_code(window: str) -> bool:
    for m in islice(_CODE.finditer(window), 16):
        if _CODE_KIND.search(window[max(0, m.start() - 24) : m.start()]):
            return True
    return False


def relayed(text: str, outside: bool, mixed: bool = False) -> Iterator[tuple[str, str]]:
    """``(title, advice)`` of each thing ``text`` passes on that it should not; ``outside``
    says the message leaves the company (an anonymous link counts only then, or when it is
    to a whole data set), ``mixed`` that another organisation surely reads it (recipients of
    two or more domains, a shared channel)."""
    window = text[:_MAX_TEXT]
    lower = window.lower()
    if any(w in lower for w in ("auth", "pass", "secret", "token", "key", " / ")):
        for m in islice(_LABELLED.finditer(window), 16):
            before = window[max(0, m.start() - 16) : m.start()]
            if _secret_like(m.group(2), m.group(1).lower(), before):
                yield "writes out a secret after its label", "Send no secrets; share a vault link."
                break
        else:
            for m in islice(_PAIR_THEN_SIGN_IN.finditer(window), 16):
                if _strong(m.group(1)):
                    yield (
                        "writes out a user and password",
                        "Send no credentials; share a vault link.",
                    )
                    break
    if "code" in lower and _sign_in_code(window):
        yield (
            "passes on a one-time sign-in code",
            "A sign-in code goes only to its owner, from the system that issued it.",
        )
    if (
        any(w in lower for w in ("mfa", "2fa", "factor", "authenticator"))
        and _FACTOR.search(window)
        and _FACTOR_OFF.search(window)
        and _CODE_TO_NUMBER.search(window)
    ):
        yield (
            "asks for a second factor removed with the code sent to a given number",
            "Reset factors only after verifying the person by a known channel.",
        )
    if (
        any(w in lower for w in ("acct", "account", "routing", "iban", "sort code", "swift"))
        and _CHANGED.search(window)
        and _BANK_NUMBERS.search(window)
    ):
        yield (
            "passes on bank details said to have changed",
            "Confirm new bank details by calling a known number before anyone pays.",
        )
    if "wait" in lower and _NO_WAIT.search(window) and _PAYMENT.search(window):
        yield (
            "asks for a payment to go out without its sign-off",
            "Every payment waits for its usual approval.",
        )
    if "http" in lower:
        for m in islice(_STORE_LINK.finditer(window), 16):
            if _ANON_MARK.search(m.group(0)) and (outside or _WHOLE.search(window)):
                yield (
                    "shares an anonymous link into a document store",
                    "Share with named people through access you can revoke.",
                )
                break
    if " ip" in lower and _HOME_IP.search(window):
        yield "writes out a person's home IP address", "Keep people's addresses out of messages."
    if "codes" in lower and _RECOVERY.search(window) and len(_CODE_LINE.findall(window)[:3]) >= 3:
        yield (
            "hands over recovery codes",
            "Recovery codes go only to the account's owner, through the account itself.",
        )
    if any(
        w in lower for w in ("imperson", "login_as", "log_in_as", "login-as", "sudo", "become")
    ) and _AS_SOMEONE.search(window):
        yield (
            "shares a link that signs its holder in as someone else",
            "Let the person who needs access use their own account.",
        )
    if mixed and any(w in lower for w in _LIMIT_WORDS) and _LIMIT.search(window):
        yield (
            "tells a negotiation's limit where the other side reads it",
            "Keep limits and authority inside the team; check the recipients.",
        )
