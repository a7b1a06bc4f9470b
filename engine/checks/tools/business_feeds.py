"""Data set up to leave, read from a business tool's name words and its argument pairs (for
``business``), each high:

- a standing feed to an outside place: a webhook, trigger, subscription or forwarding rule
  whose destination is an address on another host or a mailbox, carrying people's records
  (``topic="customers/create"``, ``{{ticket.requester.email}}``);
- people's records or a whole folder uploaded to an outside service (a model hub, a file
  store): a file whose name says records (``users_export.parquet``), or a folder with every
  file allowed and none left out;
- a secret put in a variable that ships to browsers (``NEXT_PUBLIC_…_SECRET``, a live key's
  value under a public prefix);
- a work account's recovery pointed at a personal mailbox;
- an outside guest invited into a channel named private or sensitive.

Feeds to this machine or internal names, publishable keys under public prefixes, files of a
build or a model uploaded, and colleagues invited to channels are everyday.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from typing import Any

from ..browser_vars import browser_secret, browser_variable
from .business_words import PERSONAL_MAIL, Finding, Pair, acts
from .egress_files import records_file

__all__ = ["data_set_to_leave", "texts"]

_FEEDS = frozenset(
    {"webhook", "webhooks", "hook", "hooks", "trigger", "triggers", "subscription",
     "subscriptions", "forward", "forwarding", "target", "targets", "sink", "sinks",
     "integration", "integrations", "notification", "automation", "automations", "stream",
     "zap", "zaps", "recipe", "recipes", "scenario", "scenarios", "workflow", "workflows"}
)  # fmt: skip
_SETS_UP = frozenset(
    {"create", "add", "register", "update", "set", "put", "subscribe", "configure", "new",
     "upsert", "enable", "install"}
)  # fmt: skip
_DESTINATION = re.compile(
    r"^(?:address|url|uri|endpoint|callback\w*|\w*_url|\w*_uri|destination\w*|target_?email|"
    r"email|forward_?to|recipient|deliver_?to|notify_?url|host)$"
)
_COPY_ACTION = re.compile(r"(?i)^(?:cc|bcc|email_?cc|add_?cc|forward(?:_?to)?|notification_email)$")
"""An automation's action that copies the record to an address."""
_WEB = re.compile(r"(?i)^https?://([^/\s:?#@]{1,253})")
_MAILBOX = re.compile(r"^[\w.+-]{1,64}@([\w-]{1,63}(?:\.[\w-]{1,63}){1,8})$")
_INTERNAL = re.compile(
    r"(?i)^(?:localhost|127\.\d+\.\d+\.\d+|10\.\d+\.\d+\.\d+|192\.168\.\d+\.\d+|"
    r"172\.(?:1[6-9]|2\d|3[01])\.\d+\.\d+)$|\.(?:internal|local|localhost|corp|lan|svc|"
    r"intranet|home\.arpa)$"
)
_PEOPLE = re.compile(
    r"(?i)(?:^|[^a-z])(?:customers?|users?|contacts?|members?|orders?|checkouts?|tickets?|"
    r"leads?|patients?|subscribers?|employees?|candidates?|applicants?|accounts?|"
    r"profiles?|messages?|requesters?|carts?)(?:$|[^a-z])"
)
_TOPIC_KEYS = re.compile(r"^(?:topic|topics|event|events|event_?types?|object|resource|on)$")
_PLACEHOLDER = re.compile(
    r"\{\{\s*[\w.]{0,60}(?:email|phone|address|requester|customer|user|description|comment)[\w.]{0,60}\s*\}\}"
)
_UPLOADS = frozenset({"upload", "uploads", "push", "publish", "put", "share"})
_PATH_KEYS = re.compile(
    r"^(?:path\w*|file(?:_?path|_?name|s|_?obj\w*)?|local_?path|source|src|folder\w*|dir\w*)$"
)
_EVERY = frozenset({"*", "**", "**/*", "*.*"})
_LIVE_SECRET = re.compile(r"^(?:sk|rk)_live_\w{8,}|^-----BEGIN [A-Z ]*PRIVATE KEY")
_ENV_NAME_KEYS = frozenset({"key", "name", "variable", "var", "env_name"})
_ACCOUNTS = frozenset({"user", "users", "profile", "employee", "member", "staff", "admin"})
_RECOVERY_KEYS = re.compile(
    r"^(?:email|primary_?email|second_?email|secondary_?email|recovery_?\w*|backup_?email|"
    r"alternate_?email|alt_?email|login)$"
)
_INVITES = frozenset({"invite", "add", "join", "share"})
_ROOMS = frozenset({"channel", "channels", "conversation", "group", "space", "room", "team"})
_GUEST = re.compile(r"(?i)^guest[:/]|^ext(?:ernal)?[:/]")
_SENSITIVE_ROOM = re.compile(
    r"(?i)(?:^|[^a-z])(?:private|confidential|finance|legal|payroll|exec\w*|board|hr|"
    r"security|salar\w*|m-?and-?a|restricted)(?:$|[^a-z])"
)


def texts(value: Any) -> list[str]:
    """A value's texts: the text itself, or a list's texts (at most 50)."""
    if isinstance(value, str):
        return [value[:2048]]
    if isinstance(value, list):
        return [v[:2048] for v in value[:50] if isinstance(v, str)]
    return []


def _outside(value: str) -> str | None:
    """The host or mailbox domain an address goes to, when it is not this machine or an
    internal name."""
    text = value.strip()
    m = _WEB.match(text) or _MAILBOX.match(text)
    if m is None:
        return None
    host = m.group(1).lower().rstrip(".")
    return None if _INTERNAL.search(host) else host


def _copied_to(pairs: Sequence[Pair]) -> str | None:
    """An automation's action that copies each record to an address: ``{"field": "cc",
    "value": "someone@elsewhere.com"}``, the action's name followed by its value."""
    for i, (k, v) in enumerate(pairs[:400]):
        if k in ("field", "action", "type") and isinstance(v, str) and _COPY_ACTION.match(v):
            for k2, v2 in pairs[i + 1 : i + 3]:
                if k2 == "value":
                    found = next((h for t in texts(v2) if (h := _outside(t))), None)
                    if found:
                        return found
    return None


def _feed(words: set[str], pairs: Sequence[Pair]) -> Finding | None:
    fed = words & _FEEDS or any(k in ("trigger", "triggers", "webhook") for k, _ in pairs)
    if not (fed and words & _SETS_UP):
        return None
    where = next(
        (h for k, v in pairs if _DESTINATION.match(k) for t in texts(v) if (h := _outside(t))),
        None,
    ) or _copied_to(pairs)
    if where is None:
        return None
    people = (
        any(
            _TOPIC_KEYS.match(k) and any(_PEOPLE.search(t[:200]) for t in texts(v))
            for k, v in pairs
        )
        or any(_PLACEHOLDER.search(t[:4096]) for _, v in pairs for t in texts(v))
        or bool({w.rstrip("s") for w in words} & {"customer", "contact", "ticket", "order"})
    )
    if not people:
        return None
    return (
        "sends people's records to an outside address",
        f"every new record is copied to {where[:80]} from now on, with nobody reviewing each one.",
        "Send records only to the company's own systems, or let a person confirm the feed.",
    )


def _upload(words: set[str], pairs: Sequence[Pair]) -> Finding | None:
    if not words & _UPLOADS:
        return None
    data = next(
        (t for k, v in pairs if _PATH_KEYS.match(k) for t in texts(v) if records_file(t)), None
    )
    if data is not None:
        return (
            "uploads people's records to an outside service",
            f"`{data[-80:]}` holds records of people or a copy of a database; once uploaded, "
            "the service's own sharing decides who reads it.",
            "Upload derived, anonymised data, or let the data's owner confirm.",
        )
    folder = any(k.startswith(("folder", "dir")) for k, _ in pairs)
    every = any(
        k.startswith(("allow", "include")) and any(t.strip() in _EVERY for t in texts(v))
        for k, v in pairs
    )
    ignores = any(k.startswith(("ignore", "exclude", "deny")) and texts(v) for k, v in pairs)
    if folder and every and not ignores:
        return (
            "uploads every file of a folder",
            "every file is allowed and none left out: `.env` files, keys and data in the "
            "folder leave with the code.",
            "List the files to upload, or leave out secrets and data with ignore patterns.",
        )
    return None


def _public_secret(pairs: Sequence[Pair]) -> Finding | None:
    names = [
        t for k, v in pairs if k in _ENV_NAME_KEYS for t in texts(v) if browser_variable(t)
    ] + [k for k, _ in pairs if browser_variable(k)]
    if not names:
        return None
    live = any(_LIVE_SECRET.match(t.strip()) for _, v in pairs for t in texts(v))
    named = next((n for n in names if browser_secret(n)), None)
    if named is None and not live:
        return None
    return (
        "puts a secret where browsers read it",
        f"`{(named or names[0])[:60]}` is built into the pages every visitor downloads: the "
        "secret is public from the next deploy.",
        "Keep secrets in server-only variables; only publishable keys get a public prefix.",
    )


def _recovery(words: set[str], pairs: Sequence[Pair]) -> Finding | None:
    if not (words & _ACCOUNTS and words & {"update", "set", "patch", "change", "modify", "edit"}):
        return None
    if words & {"customer", "customers", "contact", "contacts", "lead", "subscriber"}:
        return None
    mailbox = next(
        (
            t
            for k, v in pairs
            if _RECOVERY_KEYS.match(k)
            for t in texts(v)
            if len(t) < 200 and PERSONAL_MAIL.search(t.strip().lower())
        ),
        None,
    )
    if mailbox is None:
        return None
    return (
        "points an account's recovery at a personal mailbox",
        f"password resets and sign-in links go to {mailbox[:80]}: whoever reads it can take "
        "the account over.",
        "Confirm the change with the account's owner by a known channel first.",
    )


def _guest(words: set[str], pairs: Sequence[Pair]) -> Finding | None:
    if not (words & _INVITES and words & _ROOMS):
        return None
    guest = any("guest" in k or "external" in k for k, _ in pairs) or any(
        _GUEST.match(t) for _, v in pairs for t in texts(v)
    )
    room = next(
        (
            t
            for k, v in pairs
            if k in ("channel", "channel_name", "name", "group", "space", "room")
            for t in texts(v)
            if _SENSITIVE_ROOM.search(t[:200])
        ),
        None,
    )
    if not (guest and room):
        return None
    return (
        "lets an outside guest into a private channel",
        f"{room[:60]} holds what only the company's own people should read; a guest reads "
        "its history and everything posted from now on.",
        "Let the channel's owner invite guests.",
    )


def data_set_to_leave(words: set[str], pairs: Sequence[Pair]) -> Iterator[Finding]:
    """Each way above that a call sets data up to leave (at most one finding)."""
    if not acts(words):
        return
    for found in (
        _feed(words, pairs),
        _upload(words, pairs),
        _public_secret(pairs),
        _recovery(words, pairs),
        _guest(words, pairs),
    ):
        if found is not None:
            yield found
            return
