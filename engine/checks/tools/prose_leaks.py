"""What a message gives away, or asks people to let slip, beyond credentials and personal data
(for ``prose``):

- company matters told to the press (a tip line, a newsroom) — an incident, a patient, a
  roadmap, anything called confidential or internal;
- a signed link to stored data (an S3, GCS or Azure link with its signature) handed to a
  personal mailbox or another company, or valid a day or more to anyone: whoever holds it
  reads the object;
- many outside recipients in one open ``To`` list: each sees the others' addresses;
- security weaknesses (open findings, unpatched hosts) told outside the company;
- people asked to ignore or suppress security alerts, or to switch their antivirus off;
- a sign-in reset whose code is to go to a new number or address, skipping the usual process
  (the help-desk fraud);
- a demand for payment under threat of arrest or prosecution.

Pure functions of the message's text and recipients.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Sequence

from humangr.contracts import Severity

from .business_words import PERSONAL_MAIL

__all__ = ["leaks"]

_MAX_TEXT = 20_000
_PRESS = re.compile(
    r"^(?:tips?|tipline|newsdesk|news|newsroom|editors?|editorial|press|stories|scoops?|"
    r"investigations?)@|@(?:[\w-]+\.)*[\w-]*(?:news|herald|gazette|times|tribune|techcrunch|"
    r"insider|journal|chronicle|reuters|bloomberg|guardian|verge|wired|register|observer|"
    r"courier|dispatch)[\w-]*\.[a-z.]{2,10}$"
)
"""A newsroom's or a reporter's tip line."""
_INSIDE_MATTER = re.compile(
    r"(?i)\b(?:confidential|internal|incident|breach|exposure|patients?|admitted|diagnos\w*|"
    r"roadmap|unreleased|undisclosed|not (?:yet )?public|embargo\w*|layoffs?|acquisition|"
    r"timeline|lawsuit|investigation|treated|source code|our client|off the record|subpoena|"
    r"settlement|merger|inquiry|earnings|layoffs?)\b"
)
_SIGNED_LINK = re.compile(
    r"(?i)https?://\S{1,2000}?[?&](?:(?:X-Amz-Signature|X-Goog-Signature|Signature|sig|se)=[\w%./+-]{6,}|"
    r"(?:X-Amz-Credential|X-Goog-Credential)=[\w%./+-]{8,})"
)
"""A storage link carrying its own signature (pre-signed S3 and GCS, Azure SAS)."""
_EXPIRES = re.compile(r"(?i)[?&]X-(?:Amz|Goog)-Expires=(\d{1,9})(?!\d)")
_DAY = 86_400


def _long_lived(text: str) -> bool:
    """A signed link in ``text`` that stays valid a day or more (``X-Amz-Expires=604800``):
    whoever it is forwarded to reads the object all week, inside the company or not."""
    return "xpires=" in text and any(int(m.group(1)) >= _DAY for m in _EXPIRES.finditer(text))


_OPEN_LIST = 5
"""Outside domains in one open ``To`` list from which the list is a privacy leak."""
_WEAKNESS = re.compile(
    r"(?i)\b(?:pen-?test\w*|penetration test|vulnerabilit\w*|unpatched|exploitable|exploit|"
    r"CVE-\d{4}-\d+|SSRF|RCE|remote code execution|SQL injection|unauthenticated|"
    r"privilege escalation|open findings?|zero-day|0-day)\b"
)
_IGNORE_ALERTS = re.compile(
    r"(?i)\b(?:ignore|disregard|don'?t (?:escalate|investigate|page)|do not (?:escalate|"
    r"investigate|page)|suppress(?:ed|ion)?|silence[ds]?|mute[ds]?|whitelist(?:ed)?|"
    r"allowlist(?:ed)?|dismiss(?:ed|ing)?|clos(?:e|ing) all)"
    r"\b[^.\n]{0,80}\b(?:alerts?|detections?|EDR|CrowdStrike|Defender|SentinelOne|antivirus|"
    r"SIEM|IDS|alarms?|warnings? from (?:the )?security)\b|"
    r"\b(?:alerts?|detections?|findings?)\b[^.\n]{0,80}\b(?:are expected|is expected|ignore them|"
    r"don'?t escalate|do not escalate|as false positives?)\b|"
    r"\bno investigation (?:needed|required)\b"
)
_SECURITY_SIGNAL = re.compile(
    r"(?i)\b(?:GuardDuty|CloudTrail|Security ?Hub|SIEM|EDR|IDS|CrowdStrike|Defender|SentinelOne|"
    r"Falco|Wazuh|intrusion|unauthori[sz]ed ?access|anomalous|security (?:alerts?|findings?|"
    r"events?)|audit[- ]log\w*)\b"
)
"""What a security tool reports (not an ordinary service alert)."""
_DISMISSED = re.compile(
    r"(?i)\b(?:ignore|auto-?close|ack(?:nowledge)? and (?:ignore|close|resolve)|silence|mute|"
    r"suppress)\b[^.\n]{0,30}\b(?:it|them|these|those|this|all)\b|"
    r"\bno need to (?:escalate|investigate|look)\b|\bno (?:action|follow-?up) (?:is )?"
    r"(?:needed|required)\b|\b(?:known|expected) false positive\b|"
    r"\bplease (?:ack and )?ignore\b|"
    r"\bmark (?:it|them|these|those|all)(?: as)? (?:resolved|closed|benign|false positives?)\b|"
    r"\bnothing to (?:investigate|look into|see here|worry about)\b"
)
"""Words that dismiss what was reported without looking into it."""
_PROTECTION = (
    r"\b(?:antivirus|anti-virus|defender|av|security software|firewall|smartscreen|"
    r"endpoint protection)\b"
)
_ANTIVIRUS_OFF = re.compile(
    r"(?i)\b(?:disable|turn off|switch off|uninstall|pause|deactivate)\b[^.\n]{0,30}"
    + _PROTECTION
    + r"|"
    + _PROTECTION
    + r"[^\n]{0,60}\b(?:disable|turn off|switch off|uninstall|pause|deactivate)\s+(?:it|them)\b"
)
_RUN_DOWNLOAD = re.compile(
    r"(?i)https?://\S{1,2000}?\.(?:exe|msi|bat|cmd|ps1|scr|vbs|jar|dmg|pkg|apk|docm|xlsm|pptm)\b|"
    r"\brun (?:it|this|the file) as (?:an )?administrator\b"
)
_MACROS = re.compile(r"(?i)\benabl(?:e|ing) (?:the )?(?:macros|content|editing)\b")
_RESET_SIGN_IN = re.compile(
    r"(?i)\b(?:reset|remove|disable|re-?enroll|bypass|turn off)\b[^.\n]{0,40}"
    r"\b(?:MFA|2FA|two-factor|authenticator|Okta|password|sign-?in|passcode)\b"
)
_CODE_ELSEWHERE = re.compile(
    r"(?i)\b(?:text|send|sms|forward|email|give|read|tell)\b[^.\n]{0,50}\b(?:code|link|password|"
    r"token)\b"
    r"[^.\n]{0,50}(?:\+?\d[\d\s().-]{7,30}\d|[\w.+-]{1,64}@[\w-]{1,63}\.[\w.]{1,64}|"
    r"new (?:phone|number))"
)
_SKIP_PROCESS = re.compile(
    r"(?i)\b(?:don'?t|do not|no need to|without)\s+(?:open(?:ing)?|fil(?:e|ing)|creat(?:e|ing)|"
    r"log(?:ging)?)\s+a\s+ticket\b|\b(?:urgent|right now|immediately|asap)\b|"
    r"\b(?:skip|bypass|without)\s+(?:the\s+)?(?:identity\s+)?verification\b"
)
_THREAT = re.compile(
    r"(?i)\b(?:warrant|arrest(?:ed)?|police|criminal charges|prosecut\w+|jail|deport\w*|"
    r"bitcoin|btc|crypto ?(?:atm|currency)|gift ?cards?|tarjetas? de regalo|cajero de bitcoin)\b"
)
_DATA_KINDS = re.compile(
    r"(?i)\b(?:names?|e-?mails?|e-?mail addresses|phones?|phone numbers|home addresses|"
    r"addresses|address|dates? of birth|DOBs?|birth ?dates|SSNs?|social security numbers|"
    r"card numbers|last ?4|BINs?|transaction (?:history|data)|account numbers|diagnos[ie]s|"
    r"medical records|salar(?:y|ies)|IP addresses|device IDs|purchase history|balances?|"
    r"zip(?: codes?)?|postcodes?|lifetime spend|spend|compensation|bonus(?:es)?|"
    r"performance (?:ratings?|reviews?|scores?)|disciplinary records?)\b"
)
_PEOPLE = re.compile(
    r"(?i)\b(?:customers?|patients?|users?|players?|members?|employees?|cardholders?|clients?|"
    r"students?|subscribers?|buyers?|sellers?|merchants?|tenants?|residents?|donors?|"
    r"applicants?|candidates?|accounts|staff|roster|headcount|engineers)\b"
)
_HANDED_OVER = re.compile(
    r"(?i)\b(?:attached|attachment|enclosed|here (?:is|are)|as promised|full (?:export|dump|"
    r"list|history|extract)|export(?:ed)?|dump)\b"
)
_ROWS = re.compile(r"(?i)(?<![\d,])\d[\d,]{0,20}\s+(?:rows|records|entries)\b|\|\s*\w+\s*\|")
"""A table's rows (``482 rows``, ``Name | Address |``)."""
_MARKED = re.compile(
    r"(?i)\b(?:internal (?:note|only|use)|confidential|privileged|attorney[- ]client|"
    r"between us|do not (?:share|forward)|not for (?:distribution|external)|off the record|"
    r"not (?:yet )?(?:public|announced)(?: yet)?)\b"
)
"""Text that says it is not for outsiders."""
_PRIVILEGE = re.compile(
    r"(?i)\bprivileged\s*(?:and|&|&amp;)\s*confidential\b|\battorney[- ]client\b[\w -]{0,30}|"
    r"\bprivileged\b"
)
"""A legal-privilege heading: how a company writes to its own outside counsel, not a mark
that the text must stay inside."""
_DISCLAIMER = re.compile(
    r"(?i)\b(?:intended (?:solely |only )?for|if you (?:are not|have received)|"
    r"addressee|unauthori[sz]ed (?:use|review|disclosure|dissemination)|may contain "
    r"(?:confidential|privileged))\b"
)
"""A mail footer's sentence (``This e-mail may contain confidential information intended
only for…``): every outside mail has one; it marks nothing."""


def _without_disclaimers(text: str) -> str:
    """``text`` with each footer sentence (the one around a disclaimer's words) blanked; found
    by the words and widened to the sentence, so a long line costs one pass."""
    spans: list[tuple[int, int]] = []
    for m in list(_DISCLAIMER.finditer(text))[:32]:
        start = max(text.rfind(".", 0, m.start()), text.rfind("\n", 0, m.start())) + 1
        ends = [i for i in (text.find(".", m.end()), text.find("\n", m.end())) if i >= 0]
        end = min(ends) if ends else len(text)
        if spans and start < spans[-1][1]:
            spans[-1] = (spans[-1][0], max(end, spans[-1][1]))  # the same sentence again
        else:
            spans.append((start, end))
    for start, end in reversed(spans):
        text = text[:start] + " " + text[end:]
    return text


_BYPASSED = re.compile(
    r"(?i)\b(?:CAB|change (?:control|record|approval|board)|approval|sign-?off|switching order|"
    r"permit|clearance)\s+(?:is\s+|was\s+)?(?:bypassed|waived|skipped|not (?:needed|required))\b|"
    r"\bno (?:change record|ticket|approval|permit|switching order)s? (?:is |are )?"
    r"(?:needed|required)\b|\bno need to wait for (?:the |a )?(?:switching order|approval|permit|"
    r"clearance|sign-?off|change)\b|\bbypass(?:ed|ing)? (?:the )?(?:CAB|change control|approval)"
)
"""A message that waives the approval a change or a job needs."""
_PAY = re.compile(r"(?i)\bpay(?:ment)?\b|\$\s?\d|\bpag(?:ue|ar|o)\b|\bpayer\b|\bzahlen\b")


def leaks(
    texts: Iterable[tuple[str, str]], *, outside: Sequence[str], shown: Sequence[str]
) -> Iterator[tuple[str, Severity, str, str]]:
    """Each leak or ask in a message's ``texts`` (``(argument, text)``): ``(argument, severity,
    title, advice)``. ``outside``: where the message goes outside the company (recipients'
    addresses, or a shared channel, a phone number, a public reply); ``shown``: the outside
    addresses every recipient sees (``to`` and ``cc``)."""
    press = next((r for r in outside if _PRESS.search(r)), None)
    for argument, raw in texts:
        text = raw[:_MAX_TEXT]
        if press is not None and _INSIDE_MATTER.search(text):
            yield (
                argument,
                Severity.HIGH,
                f"tells the press ({press[:60]}) about company matters",
                ("Statements to the press go through communications, after a person approves."),
            )
        if (outside or _long_lived(text)) and _SIGNED_LINK.search(text):
            who = next((r for r in outside if PERSONAL_MAIL.search(r)), None) or (
                outside[0] if outside else "its readers for a day or more"
            )
            yield (
                argument,
                Severity.HIGH,
                f"hands a signed link to stored data to {who[:60]}",
                (
                    "Whoever holds a signed link reads the object; share it through access you can "
                    "revoke."
                ),
            )
        kinds = {m.group(0).lower().rstrip("s") for m in _DATA_KINDS.finditer(text[:4_000])}
        people = len(kinds) >= 3 or (len(kinds) >= 2 and _PEOPLE.search(text))
        if outside and people and (_HANDED_OVER.search(text) or _ROWS.search(text)):
            yield (
                argument,
                Severity.HIGH,
                f"sends people's data ({', '.join(sorted(kinds)[:3])}) to {outside[0][:60]}",
                (
                    "People's data goes to another company only under a signed agreement, after a "
                    "person approves."
                ),
            )
        if outside and _MARKED.search(_PRIVILEGE.sub(" ", _without_disclaimers(text))):
            yield (
                argument,
                Severity.HIGH,
                f"sends text marked not for outsiders to {outside[0][:60]}",
                "It says it is internal or confidential; keep it inside, or let a person decide.",
            )
        if _BYPASSED.search(text):
            yield (
                argument,
                Severity.HIGH,
                "waives the approval a change or a job needs",
                "Approvals and switching orders are given by their owners, not by a message.",
            )
        if outside and len(_WEAKNESS.findall(text)[:8]) >= 2:
            yield (
                argument,
                Severity.HIGH,
                "tells people outside the company about its weaknesses",
                ("Share security findings only with those who fix them, under agreement."),
            )
        if _IGNORE_ALERTS.search(text) or (
            _SECURITY_SIGNAL.search(text) and _DISMISSED.search(text)
        ):
            yield (
                argument,
                Severity.HIGH,
                "asks people to ignore or suppress security alerts",
                ("Alerts are silenced by their owners through the tool, with a ticket."),
            )
        if (_ANTIVIRUS_OFF.search(text) or _MACROS.search(text)) and _RUN_DOWNLOAD.search(text):
            yield (
                argument,
                Severity.HIGH,
                "asks to switch protection off and run a download",
                ("Never ask anyone to disable their antivirus; it is how malware is spread."),
            )
        if (
            _RESET_SIGN_IN.search(text)
            and _CODE_ELSEWHERE.search(text)
            and _SKIP_PROCESS.search(text)
        ):
            yield (
                argument,
                Severity.HIGH,
                "asks for a sign-in reset with the code sent elsewhere",
                ("Help desks verify who asks; a request like this is how accounts are taken over."),
            )
        if _THREAT.search(text) and _PAY.search(text):
            yield (
                argument,
                Severity.HIGH,
                "demands payment under threat, or in crypto or gift cards",
                ("Real bills are not paid in crypto or gift cards, nor under threat of arrest."),
            )
    if len({r.rpartition("@")[2] for r in shown if "@" in r}) >= _OPEN_LIST:
        yield (
            "to",
            Severity.HIGH,
            "shows every outside recipient's address to all the others",
            ("Put many outside recipients in Bcc, or send one message each."),
        )
