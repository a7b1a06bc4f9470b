"""An e-mail (or chat message) as a tool call spells it: recipients (``to``/``cc``/``bcc``/
``recipients``, strings with commas or lists, ``Name <a@b.c>`` or ``{"email": …}``), the
sender, and the parts that carry content (``subject``, ``body``/``text``/``html``,
``attachments``)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from humangr.contracts import ToolKind

from .egress_mail_headers import header_recipients
from .egress_mime import mime_mail
from .view import ToolView

__all__ = [
    "ADDRESS",
    "DISTRIBUTION",
    "MENTION_ALL",
    "Mail",
    "domain_allowed",
    "everyone",
    "place_outside",
    "public_reply",
    "read_mail",
    "shared_channel",
]

_RECIPIENTS = (
    "to",
    "cc",
    "bcc",
    "recipients",
    "recipient",
    "to_address",
    "to_addresses",
    "email_to",
    "send_to",
    "emails",
    "to_email",
    "to_emails",
    "toRecipients",
    "ccRecipients",
    "bccRecipients",
    "reply_to",
)
_SENDER = ("from", "sender", "from_address", "from_email", "reply_to")
_CONTENT = (
    "subject",
    "body",
    "text",
    "html",
    "message",
    "content",
    "markdown",
    "body_html",
    "body_text",
    "plain",
    "html_body",
    "text_body",
    "snippet",
    "blocks",
    "attachments",
    "attachment",
    "files",
    "file",
    "attach",
    "document",
    "documents",
    "cover",
    "body_text",
)
_ATTACHMENTS = ("attachments", "attachment", "files", "file", "attach", "document", "documents")
_PHONES = ("number", "phone", "phone_number", "to_number", "to_phone", "mobile", "msisdn")
_PHONE_NUMBER = re.compile(r"^\+?[\d\s().-]{7,24}$")
_CHAT = (
    "channel", "channel_id", "chat_id", "thread_id", "conversation_id", "room", "room_id",
    "ticket_id", "ticket", "case_id", "chatId", "channelId", "conversationId", "threadId",
)  # fmt: skip
"""Where a message goes when it names no recipients: a channel, a chat, a support ticket."""
ADDRESS = re.compile(r"[A-Za-z0-9._%+'-]{1,64}@[A-Za-z0-9.-]{1,253}\.[A-Za-z]{2,24}")
_MAX_RECIPIENTS = 500
DISTRIBUTION = re.compile(
    r"^(?:all[-_.])?(?:customers?|clients|users|subscribers|members|patients)@"
    r"|@(?:lists?|mailman|listserv)\.|@googlegroups\.com$"
)
"""Addresses that reach a company's customers or users at large (``customers@``,
``…@lists.acme.com``); a team's own list (``eng-all@``) is everyday."""
MENTION_ALL = re.compile(r"(?<![\w@])@(?:channel|everyone|here|all)\b|<!(?:channel|everyone|here)>")
"""A chat mention that notifies everyone of a channel (``@channel``, Slack's ``<!here>``)."""


@dataclass(frozen=True, slots=True)
class Mail:
    recipients: tuple[str, ...]
    """Lower-case addresses; empty for a message to a channel (destination unknown)."""
    sender: str | None
    parts: tuple[tuple[str, Any], ...]
    """``(argument, value)`` of what the message carries."""
    attachments: tuple[tuple[str, str], ...]
    """``(argument path, file path)`` of attachments named by a path."""
    phone: bool = False
    """Sent to a phone number (a text message): to one person outside, whoever it is."""

    @property
    def domains(self) -> set[str]:
        return {a.rsplit("@", 1)[1] for a in self.recipients}


def _addresses(value: Any, out: list[str], depth: int = 0) -> None:
    if depth > 4 or len(out) >= _MAX_RECIPIENTS:
        return
    if isinstance(value, str):
        out.extend(a.lower() for a in ADDRESS.findall(value[:65_536]))
    elif isinstance(value, list | tuple):
        for item in value[:_MAX_RECIPIENTS]:
            _addresses(item, out, depth + 1)
    elif isinstance(value, dict):
        for key in ("email", "address", "emailAddress", "mail", "to"):
            if key in value:
                _addresses(value[key], out, depth + 1)


def _attachment_paths(argument: str, value: Any) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    items = value if isinstance(value, list) else [value]
    for i, item in enumerate(items[:100]):
        where = f"{argument}[{i}]" if isinstance(value, list) else argument
        if isinstance(item, str) and len(item) < 1024 and "\n" not in item:
            out.append((where, item))
        elif isinstance(item, dict):
            for key in ("path", "file_path", "filepath", "filename", "name", "file"):
                got = item.get(key)
                if isinstance(got, str) and len(got) < 1024:
                    out.append((where, got))
                    break
    return out


_GRAPH_RECIPIENTS = ("toRecipients", "ccRecipients", "bccRecipients", "replyTo")


def _graph_message(view: ToolView, found: list[str]) -> list[tuple[str, str]]:
    """Recipients (into ``found``) and attachments of a ``message`` object as Microsoft
    Graph's ``sendMail`` nests them (``message.toRecipients[].emailAddress.address``)."""
    got = view.get("message")
    if got is None or not isinstance(got[1], dict):
        return []
    message = got[1]
    for key in _GRAPH_RECIPIENTS:
        if key in message:
            _addresses(message[key], found)
    value = message.get("attachments")
    if value in (None, [], {}):
        return []
    return _attachment_paths(f"{got[0]}.attachments", value)


def read_mail(view: ToolView) -> Mail | None:
    """The message ``view``'s call sends, or None when it sends none: an e-mail tool, or an
    MCP or unknown tool with recipients and something to send."""
    has_chat = view.get(*_CHAT) is not None
    if view.kind not in (ToolKind.EMAIL, ToolKind.MCP, ToolKind.OTHER):
        return None
    found: list[str] = []
    phone = False
    for name in (*_RECIPIENTS, *_PHONES):
        got = view.get(name)
        if got is not None and name not in ("reply_to",):
            _addresses(got[1], found)
            values = got[1] if isinstance(got[1], list) else [got[1]]
            phone = phone or any(
                isinstance(v, str) and _PHONE_NUMBER.match(v.strip()) for v in values[:50]
            )
    for _, value in header_recipients(view):
        _addresses(value, found)
    nested = _graph_message(view, found)
    parts = tuple(
        (key, view.call.arguments[key])
        for key in view.call.arguments
        if key.lower() in _CONTENT and view.call.arguments[key] not in (None, "", [], {})
    )
    if not parts and not found and (whole := mime_mail(view)) is not None:
        return Mail(tuple(whole.recipients), whole.sender, ((whole.argument, whole.text),), ())
    if not parts or (view.kind is not ToolKind.EMAIL and not (found or has_chat or phone)):
        return None
    sender_arg = view.text(*_SENDER)
    sender = None
    if sender_arg is not None:
        m = ADDRESS.search(sender_arg[1])
        sender = m.group(0).lower() if m else None
    attachments: list[tuple[str, str]] = []
    for key, value in parts:
        if key.lower() in _ATTACHMENTS:
            attachments.extend(_attachment_paths(key, value))
    attachments.extend(nested)
    return Mail(tuple(dict.fromkeys(found)), sender, parts, tuple(attachments), phone)


def domain_allowed(domain: str, patterns: frozenset[str]) -> bool:
    """``domain`` is allowed: listed exactly, or under a ``*.domain`` entry."""
    domain = domain.lower().rstrip(".")
    for raw in patterns:
        entry = raw.strip().lower().lstrip("@").rstrip(".")
        if entry.startswith("*."):
            if domain.endswith(entry[1:]):
                return True
        elif entry and domain == entry:
            return True
    return False


_PRESENT_ONLY = re.compile(r"here|channel")
"""Mentions that reach one channel's own members (``@here``, ``<!channel>``), not a whole
workspace: in a team's own channel, how an alert or an incident is raised."""
_BROADCAST = re.compile(r"(?i)general|announce|random|company|all[-_]|everyone|news|customers?")
_WHOLE_COMPANY = re.compile(
    r"(?i)\ball[-_ ]?(?:staff|hands|company|employees|users)\b|\bcompany[-_ ]?wide\b|"
    r"\beveryone\b|\bwhole[-_ ]company\b"
)
"""A team or channel that is the whole company (``All Staff``, ``#all-hands``)."""
_CHANNEL_ID = re.compile(r"^[CGD][A-Z0-9]{6,30}$")
_ID_BROADCAST = re.compile(r"ALL|GENERAL|ANNOUNCE|EVERYONE|COMPANY")
"""A chat id that spells a broadcast channel (``C02ALLSTAFF``): its words run together."""
_ALL_RECIPIENTS = re.compile(r"^@?(?:all|everyone|all[-_]\w+)$", re.IGNORECASE)


_SHARED_CHANNEL = re.compile(
    r"(?i)(?:^#?|[-_\s(:])(?:ext|external|shared|vendors?|partners?|guests?|public|community)"
    r"(?:[-_\s)@:.]|$)|(?<=\d)(?:SHARED|EXTERNAL)[-_]"
)
"""A channel named as shared with people outside the company (Slack Connect's ``#ext-``; an id
carrying the word after its digits, ``C05SHARED-…``)."""


def shared_channel(view: ToolView) -> str | None:
    """The channel a message goes to when its name says it is shared outside the company."""
    for name in (
        "channel", "channel_name", "room", "channel_id", "team", "chat_id", "chatId",
        "conversation_id", "thread_id", "workspace", "team_id", "teamId",
    ):  # fmt: skip
        place = view.text(name)
        if place is not None and _SHARED_CHANNEL.search(place[1][:200].strip()):
            return place[1][:60].strip()
    return None


def place_outside(view: ToolView, mail: Mail) -> str | None:
    """Where a message that names no recipients goes outside the company: a channel named as
    shared (its name), ``"a phone number"`` or ``"a public reply"``; ``None`` otherwise."""
    if mail.recipients:
        return None
    shared = shared_channel(view)
    if shared is not None:
        return shared
    if mail.phone:
        return "a phone number"
    return "a public reply" if public_reply(view) else None


def public_reply(view: ToolView) -> bool:
    """A reply marked public (a support ticket's public comment): the requester reads it, and
    whoever they show it to."""
    got = view.get("public", "is_public", "visibility")
    return got is not None and (got[1] is True or got[1] in ("public", "true"))


def everyone(view: ToolView, mail: Mail) -> str | None:
    """A message that reaches everyone of a channel or every user: ``@channel`` in its text,
    or a recipient such as ``@all_users``."""
    place = view.get("team", "channel", "channel_id", "group", "audience")
    team = (
        place is not None
        and isinstance(place[1], str)
        and bool(place[1].strip())
        and not _WHOLE_COMPANY.search(place[1][:200])
        and not _BROADCAST.search(place[1][:200])
        and not (_CHANNEL_ID.match(place[1][:40]) and _ID_BROADCAST.search(place[1][:40]))
    )
    for _, value in mail.parts:
        if isinstance(value, str) and (m := MENTION_ALL.search(value[:65_536])):
            if team and _PRESENT_ONLY.search(m.group(0)):
                continue  # @here/@channel in a team's own channel: its own members
            return m.group(0)
    for found in (view.get("to", "recipients", "recipient"), view.get("mention", "mentions")):
        if found is not None and isinstance(found[1], str) and _ALL_RECIPIENTS.match(found[1]):
            return found[1][:40]
    place = view.get("team", "channel", "group", "audience")
    if place is not None and isinstance(place[1], str) and _WHOLE_COMPANY.search(place[1][:200]):
        return place[1][:40]
    return None
