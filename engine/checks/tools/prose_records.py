"""Records a message carries in bulk or in a machine format (for ``prose``), each a class any
company meets whatever it sells:

- tax or identity documents of a whole population (``the W-2s for all employees``, ``W-9s and
  TINs for every vendor``) sent with the message: the classic payroll-phishing reply;
- a patient's record pasted as an HL7 ``PID`` segment (name, birth date, identifiers) into a
  message or a chat post;
- mail to a distribution list (``all-staff@``, ``growth-list@``) blind-copied to another
  domain: every member's address leaves unseen.

Each is high: a person confirms. Pure; each text is read in a bounded window and gated on a
substring test first.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

from .egress_mail import ADDRESS, Mail
from .view import ToolView

__all__ = ["record_risks"]

_WINDOW = 20_000
_TAX = re.compile(
    r"(?i)\b(?:W-?2s|W-?9s|1099s|W-?8s|P60s|P45s|T4s|TINs|SSNs|EINs|tax ids|tax forms"
    r"|tax identification numbers|social security numbers|national insurance numbers)\b"
)
_WHOLE = re.compile(
    r"(?i)\b(?:all|every|each of (?:the|our))\s+(?:[\w-]+\s+){0,3}?(?:employees|staff|workers|"
    r"vendors|suppliers|contractors|shops|payees|personnel|providers|members|agents|drivers|"
    r"freelancers|consultants)\b|\bentire (?:staff|workforce|payroll)\b|\bwhole (?:staff|"
    r"workforce|payroll)\b"
)
_ATTACHED = re.compile(r"(?i)\battach(?:ed|ing|ment)\b|\benclosed\b|\bhere (?:are|is)\b")
_PID = re.compile(r"(?:^|[\r\n]|\\r|\\n|`)PID\|[^\r\n]{0,300}?\^[^\r\n]{0,300}?\|(?:19|20)\d{6}\|")
"""An HL7 v2 patient-identification segment with a name (``^``) and a birth date."""
_SYNTHETIC = re.compile(r"(?i)\b(?:test|doe|sample|dummy|fake|example|patient)\^")
_LIST_BOX = re.compile(
    r"(?i)^(?:[\w.+-]*[._-])?(?:list|all|everyone|staff|allstaff|all-staff|subscribers|"
    r"customers|members|users|newsletter|announce\w*|company|employees)(?:[._-][\w.+-]*)?$"
)
"""The local part of a distribution list's address."""


def _addresses(view: ToolView, *names: str) -> list[str]:
    out: list[str] = []
    for name in names:
        got = view.get(name)
        value = got[1] if got is not None else None
        items = value[:200] if isinstance(value, list) else [value] if value is not None else []
        for item in items:
            text = item if isinstance(item, str) else str(item)
            out.extend(a.lower().lstrip("'\"") for a in ADDRESS.findall(text[:65_536])[:200])
    return out


def _list_bcc(view: ToolView) -> str | None:
    """The outside domain a distribution list's mail is blind-copied to, if any."""
    hidden = _addresses(view, "bcc", "bccRecipients", "bcc_recipients")
    if not hidden:
        return None
    shown = _addresses(view, "to", "toRecipients", "recipients", "cc", "ccRecipients")
    lists = [a for a in shown if _LIST_BOX.match(a.partition("@")[0])]
    if not lists:
        return None
    own = {a.rpartition("@")[2] for a in shown}
    for address in hidden:
        domain = address.rpartition("@")[2]
        if not any(
            domain == d or domain.endswith("." + d) or d.endswith("." + domain) for d in own
        ):
            return domain
    return None


def record_risks(
    view: ToolView, mail: Mail | None, prose: Iterable[tuple[str, str]]
) -> Iterator[tuple[str, str, str]]:
    """``(argument, title, advice)`` for each bulk tax record, HL7 patient record or list
    blind-copied outside that the message carries."""
    attached = (mail is not None and bool(mail.attachments)) or view.get("attachments") is not None
    for argument, text in prose:
        window = text[:_WINDOW]
        if _TAX.search(window) and _WHOLE.search(window) and (attached or _ATTACHED.search(window)):
            yield (
                argument,
                "sends tax or identity records of a whole group of people",
                "Payroll and vendor tax records go out only through the tax process, after a "
                "person confirms the requester by phone.",
            )
        if "PID|" in window:
            m = _PID.search(window)
            if m is not None and not _SYNTHETIC.search(m.group(0)):
                yield (
                    argument,
                    "pastes a patient's record (an HL7 PID segment)",
                    "Share HL7 samples only de-identified (synthetic names, dates and numbers).",
                )
    if mail is not None:
        domain = _list_bcc(view)
        if domain is not None:
            yield (
                "bcc",
                f"blind-copies mail for a distribution list to another domain ({domain[:60]})",
                "Import lists into outside services only under an agreement, in the open.",
            )
