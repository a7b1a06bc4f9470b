"""``data-egress``: secrets and personal data leaving by HTTP or e-mail.

Only what goes outside counts: an HTTP request to a host not in ``allowed_hosts``, a message to
a recipient whose domain is not in ``allowed_email_domains`` (empty lists: everything is
outside). What it carries:

- A token sent to the service it belongs to (a GitHub token to ``api.github.com``) and an
  ``Authorization``/``Cookie``/``X-Api-Key`` header to a named host over HTTPS are everyday.
  A provider's token sent anywhere else (a look-alike host such as ``github.com-status.net``
  included), a private key, any credential sent to a raw IP address or a capture, echo or
  paste site, and a secret in a body or a message are critical; a credential header over
  plain HTTP is high. A header value that carries a service's token prefix (``ghp_``,
  ``SSWS``, ``xoxb-``, ``sk_live_``…) without the exact format is read as that service's
  token too: high to any other host.
- A card number (public test numbers aside; payment processors excepted), a valid SSN or CPF,
  or five or more people's e-mail addresses are critical; contact details of three or four
  people (e-mail addresses, phone numbers) are high; one or two people's are everyday.
- A file that holds credentials attached or uploaded (``~/.ssh/id_rsa``, ``.env``) is critical.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any
from urllib.parse import parse_qsl

from humangr.contracts import Severity

from ..base import CheckInput, Hit
from .business import PERSONAL_MAIL
from .egress_carries import carried_outside, loose_tokens
from .egress_config_secrets import config_secret_file
from .egress_env import env_secrets
from .egress_files import data_export, secret_file
from .egress_judge import (
    SUGGEST_PERSONAL,
    SUGGEST_SECRET,
    C,
    Dest,
    H,
    destination,
    hit,
    personal_severity,
    secret_severity,
    service_severity,
    with_article,
)
from .egress_mail import (
    DISTRIBUTION,
    Mail,
    domain_allowed,
    everyone,
    place_outside,
    read_mail,
)
from .egress_scan import Carried, Secret, scan_payload, secret_in, service_token
from .http_call import AUTH_HEADER, HttpCall, read_http
from .http_sites import (
    PAYMENT,
    SECRET_HOMES,
    allowed,
    host_in,
)
from .key_ids import lone_key_ids
from .personal_data import PersonalData
from .token_request import posted_token_request
from .view import ToolView

__all__ = ["data_egress"]

_LOGIN_PATH = re.compile(
    r"(?i)/(?:login|log-in|signin|sign-in|auth|oauth2?|token|session|"
    r"register|signup|sign-up|authenticate|connect/token)(?:/|$|\?)"
)
_PLACEHOLDER = re.compile(
    r"(?i)^(?:bearer\s+|basic\s+|token\s+)?(?:\$\{?\w+\}?|\{\{.*\}\}|<[^>]*>"
    r"|\*+|x{3,}|redacted|your[\w-]*|placeholder|changeme|none|null|)$"
)
_AUTH_PARAM = re.compile(
    r"(?i)^(?:(?:access|auth|api|app|client|private)[-_]?)?(?:token|key|secret)$"
    r"|^(?:apikey|auth|sig|signature)$"
)
"""A query or form parameter a service reads its caller's key from (``?access_token=…``,
``auth-token=…``, ``…&token=…`` of a form-encoded POST)."""
_FORM = re.compile(r"^[\w.\[\]-]{1,64}=[^&\s]*(?:&[\w.\[\]-]{1,64}=[^&]*)+$", re.S)
"""A form-encoded body (``f=json&features=…&token=…``): a query string sent in a POST."""
_UPLOAD_ARGS = ("files", "file", "upload", "attachment", "attachments", "multipart")


_METADATA_SESSION = frozenset({"x-aws-ec2-metadata-token"})


def _header_secrets(call: HttpCall, dest: Dest) -> Iterator[tuple[str, Severity, str]]:
    for path, name, value in call.headers:
        if name.lower() in _METADATA_SESSION:
            continue  # a session token the metadata service issued, usable only on the machine
        found = secret_in(value, name)
        named = found is not None and found.kind in SECRET_HOMES
        loose = None if named else service_token(value)
        if loose is not None and (sev := service_severity(loose, dest)) is not None:
            yield path, sev, f"sends {with_article(loose)} ({name}) to {dest.name}, not its service"
            continue
        if found is None and AUTH_HEADER.match(name) and not _PLACEHOLDER.match(value.strip()):
            found = Secret("credential", "high", name)
        if found is None:
            continue
        sev = secret_severity(found, dest, header=True, login=False)
        if sev is not None:
            yield path, sev, f"sends {with_article(found.kind)} ({name}) to {dest.name}"


def _uploads(call: HttpCall) -> Iterator[tuple[str, str]]:
    """``(argument, path)`` of files named by path in an upload argument (``files=``)."""
    for arg, value in call.payload:
        if arg.lower() not in _UPLOAD_ARGS:
            continue
        todo: list[Any] = [value]
        seen = 0
        while todo and seen < 200:
            item = todo.pop()
            seen += 1
            if isinstance(item, str) and len(item) < 1024 and secret_file(item):
                yield arg, item
                break
            if isinstance(item, dict):
                todo.extend(item.values())
            elif isinstance(item, list | tuple):
                todo.extend(item)


def _http(view: ToolView, call: HttpCall, allow: frozenset[str]) -> Iterator[Hit]:
    dest = destination(call)
    if dest.kind == "local" or (call.url is not None and allowed(call.url.host.name, allow)):
        return  # what goes to this machine does not leave it
    login = call.url is not None and bool(_LOGIN_PATH.search(call.url.path))
    flagged: set[str] = set()
    for path, sev, title in _header_secrets(call, dest):
        flagged.add(path)
        yield hit(view, path, sev, title, SUGGEST_SECRET)
    for arg, path in _uploads(call):
        title = f"uploads credential file {path[-60:]} to {dest.name}"
        yield hit(view, arg, C, title, SUGGEST_SECRET)
    payment = call.url is not None and host_in(call.url.host.name, PAYMENT)
    samples = dest.kind != "internal" and not payment  # test cards belong in a sandbox
    carried: list[tuple[str, Carried]] = [
        (arg, scan_payload(v, arg, samples=samples)) for arg, v in call.payload
    ]
    if call.url is not None and call.url.query:
        query = dict(parse_qsl(call.url.query[:65_536]))
        carried.append((call.url_argument, scan_payload(query)))
    total = PersonalData()
    in_query = len(carried) - 1 if call.url is not None and call.url.query else -1
    forms = {
        n
        for n, (_, v) in enumerate(call.payload)
        if isinstance(v, str) and _FORM.match(v[:65_536].strip())
    }
    for n, (arg, got) in enumerate(carried):
        for secret in got.secrets[:1]:
            # a key in the query string is how some services are called: read as a header
            auth = (n == in_query or n in forms) and bool(_AUTH_PARAM.search(secret.key))
            level = secret_severity(secret, dest, header=auth, login=login)
            if level is not None:
                title = f"sends {with_article(secret.kind)} to {dest.name}"
                flagged.add(arg)
                yield hit(view, arg, level, title, SUGGEST_SECRET)
        total.merge(got.personal)
        if got.cut:
            title = f"payload to {dest.name} too large to review in full"
            yield hit(view, arg, H, title)
    for arg, kind in loose_tokens(call):
        if arg not in flagged and (rank := service_severity(kind, dest)) is not None:
            yield hit(
                view, arg, rank, f"sends {with_article(kind)} to {dest.name}, not its service"
            )
    if dest.kind != "internal":
        for arg, title in carried_outside(call, dest.name):
            yield hit(view, arg, H, title, SUGGEST_PERSONAL)
    if dest.kind != "internal" and not posted_token_request(call.raw_url, call.payload):
        # a private network's service may hold the secret itself; a token endpoint issued it
        for arg, value in call.payload:
            for name in list(env_secrets(value, dest.name))[:1]:
                title = f"sends the secret ${name} from the environment to {dest.name}"
                yield hit(view, arg, H if dest.kind == "host" else C, title, SUGGEST_SECRET)
    total.settle()
    if payment:
        total.cards = 0
    personal = personal_severity(total, dest.kind)
    if personal is not None:
        arg = max(carried, key=lambda c: c[1].personal.people + 10 * c[1].personal.cards)[0]
        title = f"sends {total.summary()} to {dest.name}"
        yield hit(view, arg, personal, title, SUGGEST_PERSONAL)


_PLACES = {
    "a phone number": "a phone number",
    "a public reply": "a public reply (the requester and anyone shown it)",
}
"""How a finding names a place outside that is not a shared channel."""


def _mail(view: ToolView, mail: Mail, allow: frozenset[str]) -> Iterator[Hit]:
    outside = sorted(d for d in mail.domains if not domain_allowed(d, allow))
    if mail.recipients and not outside:
        return
    where = f"{', '.join(outside[:3])}" if outside else "a channel whose members are not known"
    place = place_outside(view, mail)
    if place is not None:
        outside, where = (
            [place],
            _PLACES.get(place, f"{place}, a channel shared outside the company"),
        )
    exclude = frozenset(mail.recipients) | ({mail.sender} if mail.sender else frozenset())
    own = {
        a.rpartition("@")[2] for a in exclude if a and not PERSONAL_MAIL.search(a)
    }  # colleagues' addresses on the company's own domain are not data leaving
    for arg, path in mail.attachments:
        if secret_file(path) or config_secret_file(path):
            title = f"attaches credential file {path[-60:]}"
            yield hit(view, arg, C, title, SUGGEST_SECRET)
        elif data_export(path):
            title = f"mails a database dump or people's records ({path[-60:]}) to {where}"
            yield hit(view, arg, C, title, SUGGEST_PERSONAL)
    lists = [r for r in mail.recipients if DISTRIBUTION.search(r)]
    whole = everyone(view, mail)
    if lists:
        title = f"mails a distribution list ({lists[0][:80]})"
        yield hit(view, "to", H, title, "Have a person approve messages to many people.")
    elif whole is not None:
        title = f"messages everyone at once ({whole})"
        yield hit(view, "to", H, title, "Have a person approve messages to many people.")
    total = PersonalData()
    best = ("", -1)
    for arg, value in mail.parts:
        got = scan_payload(value, arg, exclude=exclude, samples=bool(outside))
        for secret in got.secrets[:1]:
            if secret.kind == "AWS credential" and lone_key_ids(
                [v for _, v in mail.parts if isinstance(v, str)]
            ):
                continue  # a key named by its id in work on it (``key_ids``): not the key
            sev = C if secret.severity == "critical" or secret.kind in SECRET_HOMES else H
            title = f"mails {with_article(secret.kind)} to {where}"
            yield hit(view, arg, sev, title, SUGGEST_SECRET)
        total.merge(got.personal)
        score = got.personal.people + 10 * (got.personal.cards + got.personal.national_ids)
        if score > best[1]:
            best = (arg, score)
    total.emails = {e for e in total.emails if e.rpartition("@")[2] not in own}
    total.settle()
    found = personal_severity(total, "host")
    if found is None and not mail.recipients and total.addressed and total.phones:
        found = H  # a named person's home address and phone, posted to a channel or a reply
    personal = any(PERSONAL_MAIL.search(r) for r in mail.recipients)
    if found is None and personal and total.people >= 2:
        found = H  # several people's contact details, to someone's own mailbox
    if found is not None and not outside:
        # a channel of the company's own: a person's record, health or HR details, or many
        # people's, get a person's look; mail to allowed domains only the worst does
        found = H if found is C or not mail.recipients else None
    if found is not None:
        title = f"mails {total.summary()} to {where}"
        yield hit(view, best[0], found, title, SUGGEST_PERSONAL)


def data_egress(ctx: CheckInput) -> Iterator[Hit]:
    """Secrets and personal data a tool call sends by HTTP or e-mail outside the allowed hosts
    and domains."""
    view = ctx.tool
    if view is None:
        return
    call = read_http(view)
    if call is not None:
        yield from _http(view, call, ctx.options.allowed_hosts)
    mail = read_mail(view)
    if mail is not None:
        yield from _mail(view, mail, ctx.options.allowed_email_domains)
