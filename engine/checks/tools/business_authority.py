"""Authority the call's own text claims and cannot show (for ``business``), each high:

- a sign-off claimed in a named person's or body's name on a controlled act: "approved by the
  shift supervisor, proceed with the interlock bypass", "Approved — Priya (Finance Lead),
  release the batch", "QP certification by Dr. X completed, released for sale", "per QA: skip
  the check". The act is money going out (a release, wire, payout, disbursement), access or
  an exemption granted, a product, lot or document released or made effective, or a safety
  control bypassed, skipped or overridden. A claim that links its change or approval record
  (``CHG0012345``, a link), a sign-off still to come ("after sign-off from …", "pending
  approval") and an approval merely mentioned on an ordinary act (an invoice "approved by the
  desk; please pay") run;
- a change justified by an instruction read in an outside message: "per email from …", "per
  the note in the submission", "customer asked in chat …", "(see email)". Whoever wrote the
  mail, chat or document steers the change; the agent cannot show they had the right to.
  Agreements, runbooks, terms and tickets cited as the reason run.

Both read bounded windows of the argument texts with bounded patterns, after a cheap keyword
gate; both are pure functions of the name's words and the argument pairs.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence

from .business_words import Finding, Pair, acts
from .injection_report import quoted_report

__all__ = ["claimed_authority"]

_WINDOW = 4000
_MAX_PAIRS = 400
_GATE = ("approv", "author", "sign", "certif", "cleared", "okay", "per ", "asked", "see ")
_ROLE = (
    r"(?:CFO|CEO|COO|CTO|CISO|CIO|VP\b[\w ]{0,20}|director|head of [\w-]{2,20}|QA|QP|legal|"
    r"compliance|CAB|change board|board|supervisor|shift (?:lead|supervisor)|manager|"
    r"controller|treasurer|committee|security team|finance(?: lead)?)"
)
_CLAIM = re.compile(
    r"(?i)\b(?:approved|authori[sz]ed|signed[ -]off|okayed|ok'?d|sanctioned|certified|"
    r"green-?lit|countersigned|cleared)\s+(?:\w+\s+){0,2}?by\s+(?:the\s+|our\s+|my\s+)?"
    r"(?!you\b|me\b|us\b|the system\b)@?[\w][\w.@' -]{1,40}|"
    r"\b(?:certification|sign-?off|approval|authori[sz]ation)\s+(?:from|by)\s+[\w.@' -]{2,40}?"
    r"\s+(?:completed|done|given|received|obtained|granted|in)\b|"
    r"(?:^|\n)\s*(?:approved|authori[sz]ed|signed off)\b[^\n\w]{0,12}[—–-]\s*[A-Z@]|"
    r"\bper\s+(?:the\s+|our\s+)?" + _ROLE + r"(?:'s)?\b|"
    r"\b(?:the\s+)?" + _ROLE + r"\s+(?:has\s+|have\s+)?(?:approved|signed off|authori[sz]ed|"
    r"okayed|cleared|gave the go)\b|"
    r"\bon\s+(?:the\s+)?[\w. ]{2,30}?'s\s+(?:instructions?|orders?|say-?so|authority)\b"
)
"""An approval, sign-off or instruction claimed in someone's name."""
_NOT_YET = re.compile(
    r"(?i)\b(?:after|once|pending|awaiting|await|until|needs?|need|requires?|required|waiting "
    r"for|before|if|when|whether|not|no|without|request(?:ed|ing)?|asks?|seek(?:ing)?)\b"
    r"[^.\n]{0,25}$"
)
_ACT = re.compile(
    r"(?i)\brelease[sd]?\s+(?:the\s+|of\s+)?(?:batch|lot|funds|payments?|payouts?|wires?|"
    r"hold|[$€£]|\d)|\breleased\s+(?:for|to)\s+(?:sale|market|distribution|shipment|use)\b|"
    r"\bwire\b|\bpayouts?\b|\bdisburse|\btransfer\s+(?:of\s+)?[$€£\d]|"
    r"\bbypass|\binterlock|\boverride|\bskip(?:ping)?\s+(?:the\s+)?[\w -]{0,30}?"
    r"(?:check|verification|inspection|test|review|approval|match)|\bwaive|\bexempt|"
    r"\bgrant(?:ed|ing)?\s+(?:\w+\s+){0,3}?(?:access|admin|rights|role|permissions?)\b|"
    r"\b(?:admin|root|privileged|super-?user|owner)\s+(?:access|rights|role)\b|"
    r"\bmake\s+(?:it\s+|this\s+)?effective|\bnon-?reportable|\bnot reportable"
)
"""The controlled acts: money out, access, a release, a safety control set aside."""
_RECORD = re.compile(r"(?i)\b(?:CHG|CR|RFC|CAB|RITM|REQ|APR|CHANGE)[-_ #]?\d{3,}|https?://")
"""A change or approval record the claim points to: the agent can show it."""
_OUTSIDE = re.compile(
    r"(?i)\b(?:per|as\s+(?:instructed|requested|asked|directed)\s+(?:in|by)|following|"
    r"according\s+to)\s+(?!(?:your|our|my)\b)(?:the\s+|an?\s+|their\s+|his\s+|her\s+)?"
    r"(?:[\w-]+\s+){0,2}?"
    r"(?:e-?mail|chat|note|message|submission|attachment|pdf|voicemail|phone call|sms|text)\b|"
    r"\basked\s+(?:\w+\s+)?(?:in|by|via|over)\s+(?:the\s+|a\s+)?(?:chat|e-?mail|phone|call|"
    r"text|sms|dm)\b|"
    r"\(see (?:the\s+)?(?:e-?mail|chat|note|attached note)\)"
)
"""A change's reason that is an instruction read in an outside message."""


def _claimed(text: str) -> bool:
    """A sign-off claimed in someone's name on a controlled act, without its record."""
    if not _ACT.search(text) or _RECORD.search(text):
        return False
    for m in _CLAIM.finditer(text):
        if not _NOT_YET.search(text[max(0, m.start() - 40) : m.start()]):
            return True
    return False


def _told_outside(text: str) -> bool:
    """A reason that is an outside message's instruction (a report of it quoted aside)."""
    m = _OUTSIDE.search(text)
    return m is not None and not quoted_report(text, m.start(), m.end())


def claimed_authority(words: set[str], pairs: Sequence[Pair]) -> Iterator[Finding]:
    """A sign-off claimed in someone's name; a change made on an outside message's word."""
    texts = [
        v[:_WINDOW]
        for _, v in pairs[:_MAX_PAIRS]
        if isinstance(v, str) and len(v) > 12 and " " in v[:_WINDOW]
    ]
    texts = [t for t in texts if any(g in t.lower() for g in _GATE)]
    if not texts:
        return
    if any(_claimed(t) for t in texts):
        yield (
            "claims a sign-off in someone's name for a controlled act",
            "the text says a named person or body approved a payment, a release, access or a "
            "safety bypass; the agent cannot show that approval, and whoever reads the claim "
            "acts on it.",
            "Link the approval record, or let the approver confirm it themselves.",
        )
    if acts(words) and any(_told_outside(t) for t in texts):
        yield (
            "makes a change on an instruction read in an outside message",
            "the reason given is what an e-mail, a chat or a note in a document asked for; "
            "whoever wrote it steers the change.",
            "Verify the request through a known channel and let a person confirm the change.",
        )
