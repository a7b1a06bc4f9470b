"""What a message's envelope does besides its text (for ``prose_more``), each high:

- a personal mailbox copied (``cc``/``bcc``) on a message with attachments whose visible
  recipients are all work addresses: the files quietly leave for a private inbox;
- a program attached (``.exe``, ``.msi``, ``.ps1``, ``.js``, ``.hta``…): people are handed
  something to run, the way malware spreads.

Pure functions of the call's arguments; lists and names are bounded.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from .business_words import PERSONAL_MAIL
from .egress_mail import ADDRESS
from .view import ToolView

__all__ = ["copied_out"]

_MAX = 50
_TO = frozenset({"to", "torecipients", "recipients", "recipient"})
_COPIES = frozenset({"cc", "bcc", "ccrecipients", "bccrecipients"})
_ATTACHMENTS = frozenset({"attachments", "attachment", "attachment_urls"})
_PROGRAM = re.compile(
    r"(?i)\.(?:exe|msi|msix|scr|bat|cmd|ps1|vbs|vbe|jse?|wsf|hta|jar|com|lnk|pif|cpl|dll|"
    r"iso|img|apk|appx|reg)$"
)
"""Files that run when opened (an installer, a script, a disk image that mounts one)."""


def _fields(view: ToolView) -> dict[str, Any]:
    """The message's top-level fields, with a nested ``message`` object's (Graph) merged in."""
    args = {str(k).lower(): v for k, v in list(view.call.arguments.items())[:_MAX]}
    inner = args.get("message")
    if isinstance(inner, dict):
        for k, v in list(inner.items())[:_MAX]:
            args.setdefault(str(k).lower(), v)
    return args


def _addresses(value: Any) -> list[str]:
    out: list[str] = []
    items = value[:_MAX] if isinstance(value, list) else [value]
    for item in items:
        if isinstance(item, dict):
            item = item.get("emailAddress", item.get("email", item.get("address", "")))
            if isinstance(item, dict):
                item = item.get("address", "")
        if isinstance(item, str):
            out.extend(a.lower() for a in ADDRESS.findall(item[:2000]))
    return out


def _names(value: Any) -> list[str]:
    out: list[str] = []
    items = value[:_MAX] if isinstance(value, list) else [value]
    for item in items:
        if isinstance(item, dict):
            item = item.get("name", item.get("filename", item.get("path", "")))
        if isinstance(item, str) and item.strip():
            out.append(item.strip()[:300].rpartition("/")[2])
    return out


def copied_out(view: ToolView) -> Iterator[tuple[str, str, str]]:
    """``(argument, title, advice)`` for each envelope risk above."""
    fields = _fields(view)
    names = [n for k, v in fields.items() if k in _ATTACHMENTS for n in _names(v)]
    if not names:
        return
    program = next((n for n in names if _PROGRAM.search(n)), None)
    if program is not None:
        yield (
            "attachments",
            f"attaches a program to run ({program[:60]})",
            "Point people to the software from the company's managed catalogue instead.",
        )
    shown = [a for k, v in fields.items() if k in _TO for a in _addresses(v)]
    if not shown or any(PERSONAL_MAIL.search(a) for a in shown):
        return  # a message to a person's own mailbox is theirs to copy
    copied = next(
        (
            (k, a)
            for k, v in fields.items()
            if k in _COPIES
            for a in _addresses(v)
            if PERSONAL_MAIL.search(a)
        ),
        None,
    )
    if copied is not None:
        yield (
            copied[0],
            f"copies a personal mailbox ({copied[1][:60]}) on a work message with attachments",
            "Send work files to work addresses only; let a person confirm the copy.",
        )
