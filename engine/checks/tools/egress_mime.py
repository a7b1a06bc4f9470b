"""A message given whole as MIME: Gmail's ``users.messages.send`` takes ``raw`` (the message
in base64url), SES ``SendRawEmail`` takes ``RawMessage.Data``, SMTP tools a ``raw_message``
or ``mime`` text. Its recipients are its ``To``/``Cc``/``Bcc`` headers and what it carries
is each part's content with its transfer encoding (base64, quoted-printable) undone — the
same mail as one spelled with ``to`` and ``body``."""

from __future__ import annotations

import re
from email import message_from_string
from email.message import Message
from typing import Any

from .shell_decode import b64_text
from .view import ToolView

__all__ = ["MimeMail", "mime_mail"]

_RAW_ARGS = ("raw", "raw_message", "rawmessage", "raw_email", "mime", "mime_message", "eml")
_MAX_RAW = 1_000_000
_MAX_PARTS = 50
_MAX_PART = 262_144
_HEADER = re.compile(r"(?im)^(?:to|from|subject|cc|bcc|content-type|mime-version):")
_ADDRESS = re.compile(r"[A-Za-z0-9._%+'-]{1,64}@[A-Za-z0-9.-]{1,253}\.[A-Za-z]{2,24}")


class MimeMail:
    """``recipients`` (lower case), ``sender``, the argument it came from and ``text``: the
    headers and every part's decoded content."""

    __slots__ = ("argument", "recipients", "sender", "text")

    def __init__(self, argument: str, recipients: list[str], sender: str | None, text: str):
        self.argument = argument
        self.recipients = recipients
        self.sender = sender
        self.text = text


def _raw(view: ToolView) -> tuple[str, str] | None:
    got = view.get(*_RAW_ARGS, "RawMessage")
    if got is None:
        return None
    arg, value = got
    if isinstance(value, dict):
        inner = value.get("Data", value.get("data"))
        arg, value = f"{arg}.Data", inner
    return (arg, value) if isinstance(value, str) and value.strip() else None


def _mime_text(value: str) -> str | None:
    """``value`` as MIME text: as it is, or decoded from base64 / base64url."""
    head = value[:4096]
    if _HEADER.search(head) and ("\n\n" in value or "\r\n\r\n" in value):
        return value
    if len(value) > _MAX_RAW * 2 or any(c.isspace() for c in value.strip()[:200]):
        return None
    decoded = b64_text(value.strip())
    if decoded is not None and _HEADER.search(decoded[:4096]):
        return decoded
    return None


def _content(part: Message) -> str:
    payload: Any = part.get_payload(decode=True)
    if isinstance(payload, bytes):
        return payload[:_MAX_PART].decode("utf-8", "replace")
    return ""


def mime_mail(view: ToolView) -> MimeMail | None:
    """The message a call gives whole as MIME (see the module), or None."""
    got = _raw(view)
    if got is None:
        return None
    arg, value = got
    text = _mime_text(value[: _MAX_RAW * 2])
    if text is None:
        return None
    message = message_from_string(text[:_MAX_RAW])
    recipients: list[str] = []
    for header in ("to", "cc", "bcc"):
        for field in message.get_all(header, [])[:20]:
            recipients.extend(a.lower() for a in _ADDRESS.findall(str(field)[:65_536]))
    sender_m = _ADDRESS.search(str(message.get("from", ""))[:4096])
    pieces = [str(message.get("subject", ""))[:4096]]
    for k, part in enumerate(message.walk()):
        if k >= _MAX_PARTS:
            break
        if not part.is_multipart():
            pieces.append(_content(part))
    return MimeMail(
        arg,
        list(dict.fromkeys(recipients))[:500],
        sender_m.group(0).lower() if sender_m else None,
        "\n".join(p for p in pieces if p),
    )
