"""``tool-message``: what the text of a message, ticket, comment or page gives away or asks
for — the prose that e-mail, chat, ticketing and publishing tools send to people:

- a credential written out: a connection string's password, a URL's ``user:password@``, an
  ``Authorization:`` or ``X-Api-Key:`` line, a service token, or prose such as
  ``admin / Summer2024!`` and ``password is Dm!nP@ss-2024`` (critical for the structured
  forms, high for prose);
- a sign-in or password-reset link with its token (whoever opens it gets in);
- a request for passwords through a link, or for gift-card codes (the usual frauds);
- an image link that carries addresses or card numbers to another server (a reader's client
  sends them when it shows the image);
- mail that quietly leaves: a blind copy or a reply-to at a personal mailbox, and files named
  for payroll, tax, customers or identity documents sent to one.

Shell, file, code and SQL arguments are not prose: their own checks read them.
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Iterator

from humangr.contracts import Severity

from ..base import CheckInput, Hit
from .egress_mail import ADDRESS, Mail, domain_allowed, place_outside, read_mail
from .egress_scan import service_token
from .prose_asks import message_asks
from .prose_birth_dates import birth_dates_outside
from .prose_encoded import encoded_records
from .prose_form_pass import other_forms
from .prose_leaks import leaks
from .prose_link_forms import PASSING, first_trick
from .prose_lures import frauds
from .prose_mailbox import to_personal_mailbox
from .prose_more import more_risks
from .prose_passwords import more_passwords
from .prose_records import record_risks
from .view import ToolView

__all__ = ["message_risks"]

_PROSE_KEYS = frozenset(
    {
        "body", "text", "content", "comment", "comments", "message", "description", "note",
        "notes", "summary", "reply", "markdown", "html", "close_notes", "customer_notes",
        "details", "value", "plain", "body_html", "body_text", "html_body", "text_body",
        "title", "subject", "caption", "status_text", "public_reply", "internal_note", "cover",
        "cover_page", "cover_note",
    }
)  # fmt: skip
_LAST_KEY = re.compile(r"([A-Za-z_][\w-]*)(?:\[\d+\])*$")
_MAX_TEXT = 20_000
_PLACEHOLDER = re.compile(
    r"(?i)^(?:\$\{?\w+\}?|<[^>]*>|\*+|x+|\.+|your[\w-]*|changeme|change-me\S*|password|passw(?:or)?d|"
    r"pass|secret|example\w*|redacted\w*|test|dummy|admin|postgres|root|user(?:name)?)$"
)
_CONNECTION = re.compile(r"(?i)\b(?:password|pwd|passwd)\s*=\s*([^;\s'\"<>]{4,})")
_SLASH_CREDS = re.compile(
    r"(?i)(?:\bjdbc:oracle:\w{1,8}:@?|\b(?:sqlplus|rman|expdp|impdp)\s+)"
    r"([A-Za-z][\w$#]{0,29})/([^\s@/\"']{3,64})@[\w.-]+"
)
"""Oracle's ``user/password@host`` (a JDBC thin URL, a ``sqlplus`` login)."""
_URL_CREDS = re.compile(r"\b[a-z][a-z0-9+.-]{1,15}://([^/\s:@]*):([^@\s/]{3,})@[\w.-]+")
_HEADER_LINE = re.compile(
    r"(?i)\b(?:authorization:?\s*(?:bearer|token|basic)|x-api-key:|api[-_]?key:)\s*"
    r"([A-Za-z0-9._~+/=-]{12,})"
)
_SAID = re.compile(
    r"(?i)\b(?:password|passwd|passphrase)\b[^.\n`]{0,40}?\b(?:new one|it|now)\s+(?:is|:)\s*"
    r"[`'\"]?([^\s`'\"<>,;()]{6,})"
    r"|(?<![./@-])\b(?:password|passwd|passcode|passphrase|pwd|transaction key|pin)\b(?!\.)"
    r"(?:\s+(?:is|was|of|for \w+))?\s*[:=-]?\s*[`'\"]?([^\s`'\"<>,;()]{6,})"
    r"|\b(?:pw|pass)\s*[:=]\s*[`'\"]?([^\s`'\"<>,;()]{6,})"
)
"""A password said: ``password rotated, new one is `…` ``, ``password is …``, ``pw=…``."""
_TOKEN_SAID = re.compile(
    r"(?i)\b(?:token|api[ _-]?key|secret(?: key)?|access[ _-]?key|client[ _-]?secret|bearer)\b"
    r"[^:=\n]{0,60}[:=]\s*[`'\"]?([A-Za-z0-9][A-Za-z0-9_\-./+=]{23,200})"
)
"""A token written out after its label (``Token for the SSO work (admin scope): 00Xy7…``)."""
_PAIR = re.compile(
    r"(?i)(?<![\w/])(?:root|admin|administrator|postgres|sa|ubuntu|[\w.+-]{1,64}@[\w-]{1,63}\.[\w.]{1,64})"
    r"\s+/\s+([^\s/;,()]{6,})|"
    r"\b(?:log ?in|sign ?in|login|credentials?|user(?:name)?|account)\b[^\n/]{0,60}?"
    r"(?<![\w/])[\w.@+-]{2,64}\s+/\s+([^\s/;,()]{6,})|"
    r"\b(?:user(?:name)?|login)\s*[:=]?\s*[\w.@+-]{2,64}[\s,;]+(?:/\s*)?"
    r"(?:pass(?:word)?|pw|pwd)\s*[:=]?\s*([^\s`'\"<>,;()]{6,})"
)
"""A user and a password written together: ``admin / Summer2024!``, ``log in with support /
Supp0rt!2025``, ``user gs_app pass Zp9!qR7w``."""
_LINK = re.compile(r"(?i)https?://\S{1,2000}")
_SIGN_IN_WORD = re.compile(r"(?i)reset|recover|magic|login|signin|sign-in|activate|invite")
_TOKEN_PARAM = re.compile(r"(?i)[?&](?:token|code|key|t|otp)=[A-Za-z0-9_.-]{12,}")
_BEARER_PARAM = re.compile(
    r"(?i)[?&](?:token|access_token|auth_token|api_?key|session_?id|jwt)=[A-Za-z0-9_.-]{32,}"
)
"""A long access token in a link's query (a notebook server's ``?token=8f3c…``): whoever
holds the link is signed in, whatever its path says."""
_MAILING = re.compile(r"(?i)unsubscribe|opt-?out|preferences|rsvp|calendar|tracking|/track")
"""Links a mailing carries for each reader (unsubscribing, a delivery's tracking)."""
_OTP_SEED = re.compile(
    r"(?i)\b(?:(?:otp|totp|2fa|mfa|authenticator)\s+(?:seed|secret|key)|token\s+seed)\b"
    r"\W{0,4}[A-Z2-7]{16,}"
)
_IMAGE = re.compile(r"!\[[^\]]*\]\((https?://[^)\s]+)\)|<img[^>]+src=[\"']?(https?://[^\"'\s>]+)")
_QUERY_BASE64 = re.compile(r"=([A-Za-z0-9+/_-]{16,400}={0,2})(?:&|$)")
_BIRTH_OR_ID = re.compile(r"(?i)\b(?:ssn|dob|birth|passport|iban)\b|\d{4}-\d{2}-\d{2}")
_CARRIED = re.compile(r"(?i)(?:@|%40)[\w-]+\.|\b\d{13,19}\b|\b\d{3}-\d{2}-\d{4}\b")

_CONFIDENTIAL_FILE = re.compile(
    r"(?i)confidential|board[_ -]?pack|(?:^|/)board/|internal[_ -]only|strictly[_ -]private|"
    r"runway|financial[_ -]?model|due[_ -]diligence|term[_ -]?sheet|privileged|(?:^|[_ -])priv"
    r"(?:[_ .-]|$)|attorney[_ -]client|work[_ -]product|medical[_ -]records|health[_ -]records|"
    r"w-?2s?(?:[_ .-]|$)|payroll|background[_ -]check|personnel|topology|network[_ -]diagram|"
    r"firewall[_ -]rule|(?:source|interview|sources)[_ -]notes|with[_ -]sources|notes[_ -]on[_ -]"
    r"sources"
)
"""A document whose name says it is not for outsiders."""


def _mixed(value: str) -> bool:
    """Whether ``value`` looks like a password rather than a word: letters with digits or
    symbols."""
    letters = any(c.isalpha() for c in value)
    return letters and any(c.isdigit() or not c.isalnum() for c in value)


def _strong(value: str) -> bool:
    """Whether ``value`` has a password's make-up: eight characters or more with digits, and a
    symbol or both cases with three digits (``Supp0rt!2025``, ``Welcome2024``; not ``Chapter2``
    or ``Q3-2024``)."""
    value = value.rstrip(".,;:!?)")
    cased = any(c.isupper() for c in value) and any(c.islower() for c in value)
    symbol = any(not c.isalnum() for c in value)
    digits = sum(c.isdigit() for c in value)
    return len(value) >= 8 and digits > 0 and (symbol or (cased and digits >= 3))


def _real(value: str) -> bool:
    value = value.strip("`'\".,;:!?)(")
    return bool(value) and _PLACEHOLDER.match(value) is None and not value.startswith("http")


def _sign_in_link(text: str) -> bool:
    """A sign-in or reset link with its token (``https://…/reset?token=…``): each link read
    once, so a long run of links costs one pass."""
    for m in list(_LINK.finditer(text))[:64]:
        word = _SIGN_IN_WORD.search(m.group(0))
        if word is not None and _TOKEN_PARAM.search(m.group(0), word.end()):
            return True
        if _BEARER_PARAM.search(m.group(0)) and not _MAILING.search(m.group(0)):
            return True
    return False


def _carries(query: str) -> bool:
    """Whether an image address's query carries people's data, as it is or in base64."""
    if _CARRIED.search(query):
        return True
    for m in list(_QUERY_BASE64.finditer(query))[:8]:
        word = m.group(1)
        try:
            plain = base64.b64decode(word + "=" * (-len(word) % 4)).decode("utf-8", "replace")
        except (ValueError, binascii.Error):
            continue
        if _CARRIED.search(plain) or _BIRTH_OR_ID.search(plain):
            return True
    return False


def _prose(view: ToolView) -> Iterator[tuple[str, str]]:
    for path, text in view.strings():
        last = _LAST_KEY.search(path)
        if last is not None and last.group(1).lower() in _PROSE_KEYS:
            yield path, text[:_MAX_TEXT]


def _hit(view: ToolView, argument: str, severity: Severity, title: str, fix: str) -> Hit:
    return Hit(
        severity=severity,
        title=title,
        description=f"argument `{argument}` of {view.name}: {title}",
        suggestion=fix,
        argument=argument,
    )


def _credential(text: str) -> tuple[Severity, str] | None:
    for pattern in (_CONNECTION, _HEADER_LINE):
        m = pattern.search(text)
        if m is not None and _real(m.group(1)):
            return Severity.CRITICAL, "writes out a credential"
    m = _URL_CREDS.search(text) or _SLASH_CREDS.search(text)
    if m is not None and _real(m.group(2)) and m.group(2) != m.group(1):
        return Severity.CRITICAL, "writes out a credential (a URL's password)"
    if service_token(text, _MAX_TEXT) is not None:
        return Severity.CRITICAL, "writes out a service token"
    for m in list(_TOKEN_SAID.finditer(text))[:16]:
        value, before = m.group(1), text[m.start() - 1 : m.start()]
        if before in ("?", "&", "_", "-", "."):
            continue  # a link's parameter (``?token=…``: a sign-in link, read below)
        if _real(value) and any(c.isdigit() for c in value) and any(c.isalpha() for c in value):
            return Severity.CRITICAL, "writes out a token"
    for pattern in (_SAID, _PAIR):
        for m in pattern.finditer(text):
            value = m.group(1) or m.group(m.lastindex or 1) or ""
            strong = pattern is _SAID or m.group(1) is not None or _strong(value)
            if _real(value) and _mixed(value) and "/" not in value and strong:
                return Severity.HIGH, "writes out what looks like a password"
    if _OTP_SEED.search(text):
        return Severity.HIGH, "writes out a one-time-password seed"
    more = more_passwords(text)
    return None if more is None else (Severity.HIGH, more)


def _text_risks(view: ToolView, mail: Mail | None, prose: list[tuple[str, str]]) -> Iterator[Hit]:
    domains = mail.domains if mail is not None else set()
    for argument, text in prose:
        found = _credential(text)
        if found is not None:
            severity, title = found
            yield _hit(view, argument, severity, title, "Send no credentials; share a vault link.")
        elif _sign_in_link(text):
            yield _hit(
                view,
                argument,
                Severity.HIGH,
                "sends a sign-in or reset link with its token",
                "Let the account's owner request the link themselves.",
            )
        for title, fix in frauds(text, domains):
            yield _hit(view, argument, Severity.HIGH, title, fix)
        for severity, title, fix in message_asks(text):
            if found is None or severity is Severity.CRITICAL:
                yield _hit(view, argument, severity, title, fix)
        for m in _IMAGE.finditer(text):
            url = m.group(1) or m.group(2) or ""
            if "?" in url and _carries(url.split("?", 1)[1]):
                yield _hit(
                    view,
                    argument,
                    Severity.HIGH,
                    "an image link carries data to another server",
                    "Remove the image; its address sends the data when the message is shown.",
                )
                break


def message_risks(ctx: CheckInput) -> Iterator[Hit]:
    """Credentials, sign-in links, fraud and data leaving in the prose a tool sends, in the
    form it is written and as its reader sees it (``prose_forms``, ``prose_form_pass``)."""
    view = ctx.tool
    if view is None or view.read_by_own_checks:
        return
    mail = read_mail(view)  # read once for the readers below
    prose = list(_prose(view))  # and the message's texts
    allow = ctx.options.allowed_email_domains
    titles: set[str] = set()
    for hit in _risks(view, mail, prose, allow):
        titles.add(hit.title)
        yield hit
    forms = other_forms(view.strings(), prose)
    if forms:
        extra = [*_text_risks(view, mail, forms)]
        extra += [_hit(view, *risk) for risk in more_risks(view, mail, allow, forms)]
        for hit in extra:
            if hit.title not in titles:
                titles.add(hit.title)
                yield hit
    trick = None if any(t.startswith(PASSING) for t in titles) else first_trick(view, prose)
    if trick is not None:
        fix = "Link to the real address, shown as it is."
        yield _hit(view, trick[0], Severity.HIGH, f"{PASSING}: {trick[1]}", fix)


def _risks(
    view: ToolView, mail: Mail | None, prose: list[tuple[str, str]], allow: frozenset[str]
) -> Iterator[Hit]:
    yield from _text_risks(view, mail, prose)
    for argument, title, fix in to_personal_mailbox(view, mail):
        yield _hit(view, argument, Severity.HIGH, title, fix)
    yield from _confidential(view, mail, allow)
    outside, shown = _outside(view, mail, allow)
    for argument, severity, title, fix in leaks(prose, outside=outside, shown=shown):
        yield _hit(view, argument, severity, title, fix)
    for argument, title, fix in encoded_records(prose, outside=outside):
        yield _hit(view, argument, Severity.HIGH, title, fix)
    for argument, title, fix in birth_dates_outside(prose, outside):
        yield _hit(view, argument, Severity.HIGH, title, fix)
    for argument, severity, title, fix in more_risks(view, mail, allow, prose):
        yield _hit(view, argument, severity, title, fix)
    for argument, title, fix in record_risks(view, mail, prose):
        yield _hit(view, argument, Severity.HIGH, title, fix)


def _outside(
    view: ToolView, mail: Mail | None, allow: frozenset[str]
) -> tuple[list[str], list[str]]:
    """Where ``mail`` goes outside the company (addresses, or a shared channel, a phone number,
    a public reply), and the outside addresses every recipient sees."""
    if mail is None:
        return [], []
    outside = [r for r in mail.recipients if not domain_allowed(r.rpartition("@")[2], allow)]
    place = place_outside(view, mail)
    if place is not None:
        outside.append(place)
    shown: list[str] = []
    for name in ("to", "cc"):
        got = view.get(name)
        if got is not None:
            shown.extend(a.lower() for a in ADDRESS.findall(str(got[1])[:65_536]))
    return outside, [a for a in shown if not domain_allowed(a.rpartition("@")[2], allow)]


def _confidential(view: ToolView, mail: Mail | None, allow: frozenset[str]) -> Iterator[Hit]:
    """A document named confidential, privileged, a board pack, a financial model or people's
    records attached to mail for a domain outside ``allowed_email_domains`` (or to a fax or
    phone number)."""
    if mail is None or not mail.attachments:
        return
    outside = sorted(d for d in mail.domains if not domain_allowed(d, allow))
    if mail.phone and not mail.recipients:
        outside = ["a phone number"]  # a fax or a text message
    named = next((p for _, p in mail.attachments if _CONFIDENTIAL_FILE.search(p)), None)
    if outside and named is not None:
        yield _hit(
            view,
            "attachments",
            Severity.HIGH,
            f"sends {named[-80:]} to {outside[0]}",
            "Share confidential documents only inside the company, after a person confirms.",
        )
