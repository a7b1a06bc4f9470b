"""What an HTTP request carries to a host outside, read beyond ``egress_scan`` (for
``data-egress``):

- a provider's token (``hf_…``, ``ghp_…``) anywhere in the body or the query string, read by
  its prefix as headers are (``service_token``);
- a credential (an auth header, a ``password``/``otp``/``secret`` field) sent to a host whose
  name is dressed to pass for a sign-in or support site (``acme-auth.net``,
  ``api.shop-support.com``: ``prose_hosts.lookalike``);
- a table of people: CSV text whose header names contact columns over two or more rows with
  an e-mail address or phone number, or a list of two or more records that each carry one;
- a person's profile in a URL's query: two or more of an e-mail address, a phone number, a
  postcode or a birth date.

Pure functions of the request; bounded walks (``_MAX_NODES`` values, ``_MAX_CHARS`` of a CSV).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any
from urllib.parse import parse_qsl

from .egress_scan import service_token
from .http_call import AUTH_HEADER, HttpCall, json_text
from .http_sites import SECRET_HOMES, host_in
from .prose_hosts import lookalike

__all__ = [
    "carried_outside",
    "credential_to_lookalike",
    "loose_tokens",
    "people_table",
    "profile_in_query",
]

_MAX_NODES = 2_000
_MAX_CHARS = 65_536
_EMAIL = re.compile(r"[\w.+-]{1,64}@[\w-]{1,63}(?:\.[\w-]{1,63}){1,8}")
_PHONE_SHAPE = re.compile(r"^\+?[\d ().-]{9,20}$")
_POSTCODE = re.compile(
    r"(?i)^(?:[A-Z]{1,2}\d[A-Z\d]? ?\d[A-Z]{2}|\d{5}(?:-\d{4})?|[A-Z]\d[A-Z] ?\d[A-Z]\d"
    r"|[A-Z]\d{2} ?[A-Z\d]{4})$"
)
_CONTACT_COLUMN = re.compile(r"(?i)e-?mail|phone|mobile|^tel|msisdn")
_PERSON_COLUMN = re.compile(
    r"(?i)e-?mail|phone|mobile|name|address|street|post_?code|zip|birth|dob|ssn|city"
)
_CRED_FIELD = re.compile(
    r"(?i)^(?:pass(?:word|wd|phrase)?|pwd|otp|totp|mfa_?code|one_?time_?(?:code|password)"
    r"|client_?secret|secret|api_?key|private_?key)$"
)
_PLACEHOLDER = re.compile(
    r"(?i)^(?:[\w-]{1,20}\s+)?(?:\$\{?\w+\}?|\{\{.*\}\}|<[^>]*>|\*+|x{3,}|redacted|changeme|)$"
)
"""A value that stands for a credential (``token ${GITHUB_TOKEN}``, ``Bearer <token>``)."""
_PROFILE_KEYS = (
    ("email", re.compile(r"(?i)e-?mail")),
    ("phone", re.compile(r"(?i)phone|mobile|^tel$|msisdn")),
    ("postcode", re.compile(r"(?i)post_?code|^zip(?:_?code)?$|postal")),
    ("birth date", re.compile(r"(?i)^(?:dob|birth_?date|date_?of_?birth|birthday)$")),
)


def _phone(text: str) -> bool:
    """``text`` is written as a phone number: nine to fifteen digits, with a leading ``+`` or a
    separator (a bare number or a date is not one)."""
    digits = sum(c.isdigit() for c in text)
    return (
        _PHONE_SHAPE.match(text) is not None
        and 9 <= digits <= 15
        and (text.startswith("+") or " " in text or text.count("-") >= 2 or "(" in text)
        and not re.match(r"^\d{4}-\d{2}-\d{2}", text)
    )


def _strings(value: Any) -> Iterator[tuple[str, str]]:
    """``(key, text)`` of every string in ``value`` (JSON text decoded), at most
    ``_MAX_NODES`` values."""
    todo: list[tuple[str, Any]] = [("", json_text(value))]
    seen = 0
    while todo and seen < _MAX_NODES:
        key, item = todo.pop()
        seen += 1
        if isinstance(item, str):
            yield key, item
        elif isinstance(item, dict):
            todo.extend((str(k), json_text(v)) for k, v in list(item.items())[:_MAX_NODES])
        elif isinstance(item, list | tuple):
            todo.extend((key, json_text(v)) for v in item[:_MAX_NODES])


def _payloads(call: HttpCall) -> list[tuple[str, Any]]:
    out: list[tuple[str, Any]] = list(call.payload)
    if call.url is not None and call.url.query:
        out.append((call.url_argument, dict(parse_qsl(call.url.query[:_MAX_CHARS]))))
    return out


def loose_tokens(call: HttpCall) -> Iterator[tuple[str, str]]:
    """``(argument, service)`` for each argument (the query string under the URL's argument)
    whose values carry a provider's token read by its prefix; one per argument."""
    for arg, value in _payloads(call):
        for _, text in _strings(value):
            kind = service_token(text)
            if kind is not None:
                yield arg, kind
                break


def credential_to_lookalike(call: HttpCall) -> tuple[str, str] | None:
    """``(argument, what the host poses as)`` when the request sends a credential to a host
    whose name is dressed as a sign-in or support site, else None."""
    if call.url is None:
        return None
    host = call.url.host.name
    posed = lookalike(host)
    if posed is None or any(host_in(host, homes) for homes in SECRET_HOMES.values()):
        return None  # not dressed, or a known service's own host (``okta-emea.com``)
    for path, name, value in call.headers:
        if AUTH_HEADER.match(name) and not _PLACEHOLDER.match(value.strip()):
            return path, posed
    for arg, value in _payloads(call):
        for key, text in _strings(value):
            if _CRED_FIELD.match(key) and not _PLACEHOLDER.match(text.strip()):
                return arg, posed
    return None


def _csv_people(text: str) -> int:
    """Rows of people in CSV text whose header names personal columns, one of them a contact
    column (0 when the text is no such table)."""
    lines = text[:_MAX_CHARS].splitlines()
    if len(lines) < 3:
        return 0
    sep = "," if lines[0].count(",") >= lines[0].count(";") else ";"
    header = [h.strip().strip('"') for h in lines[0].split(sep)]
    if len(header) < 2 or not any(_CONTACT_COLUMN.search(h) for h in header):
        return 0
    if sum(1 for h in header if _PERSON_COLUMN.search(h)) < 2:
        return 0
    contact = [i for i, h in enumerate(header) if _CONTACT_COLUMN.search(h)]
    rows = 0
    for line in lines[1:]:
        cells = [c.strip().strip('"') for c in line.split(sep)]
        if len(cells) == len(header) and any(
            _EMAIL.fullmatch(cells[i]) or _phone(cells[i]) for i in contact
        ):
            rows += 1
    return rows


def _record_people(value: Any) -> int:
    """Records in a list (at any depth) of objects that each carry an e-mail address or a
    phone number under a contact key."""
    todo: list[Any] = [json_text(value)]
    seen = 0
    best = 0
    while todo and seen < _MAX_NODES:
        item = todo.pop()
        seen += 1
        if isinstance(item, dict):
            todo.extend(json_text(v) for v in list(item.values())[:200])
        elif isinstance(item, list):
            seen += min(len(item), 500)  # each record read counts against the bound
            people = sum(
                1
                for x in item[:500]
                if isinstance(x, dict)
                and any(
                    isinstance(v, str)
                    and _CONTACT_COLUMN.search(str(k))
                    and (_EMAIL.fullmatch(v.strip()) or _phone(v.strip()))
                    for k, v in list(x.items())[:64]
                )
            )
            best = max(best, people)
            todo.extend(json_text(x) for x in item[:200])
    return best


def people_table(call: HttpCall) -> tuple[str, int] | None:
    """``(argument, rows)`` when the body is a table of two or more people's contact records
    (CSV text, or a list of records), else None."""
    for arg, value in call.payload:
        rows = _record_people(value)
        for _, text in _strings(value):
            if "\n" in text:
                rows = max(rows, _csv_people(text))
        if rows >= 2:
            return arg, rows
    return None


def profile_in_query(call: HttpCall) -> tuple[str, list[str]] | None:
    """``(argument, kinds)`` when the URL's query names a person by two or more of an e-mail
    address, a phone number, a postcode and a birth date, else None."""
    if call.url is None or not call.url.query:
        return None
    kinds: set[str] = set()
    for key, value in parse_qsl(call.url.query[:_MAX_CHARS])[:200]:
        v = value.strip()
        for kind, pattern in _PROFILE_KEYS:
            if not pattern.search(key):
                continue
            if kind == "email" and not _EMAIL.fullmatch(v):
                continue
            if kind == "phone" and not _phone(v):
                continue
            if kind == "postcode" and not _POSTCODE.match(v):
                continue
            if kind == "birth date" and not re.match(r"^\d{1,4}[-/.]\d{1,2}[-/.]\d{1,4}$", v):
                continue
            kinds.add(kind)
    return (call.url_argument, sorted(kinds)) if len(kinds) >= 2 else None


def carried_outside(call: HttpCall, host: str) -> Iterator[tuple[str, str]]:
    """``(argument, title)`` of what the request hands ``host`` (a host outside) that needs a
    person to confirm: a credential for a dressed-up host, a table of people, a person's
    profile in the query."""
    found = credential_to_lookalike(call)
    if found is not None:
        yield found[0], f"sends a credential to {host[:60]}, {found[1]}"
    table = people_table(call)
    if table is not None:
        yield (
            table[0],
            f"sends a table of people's contact records ({table[1]}+ rows) to {host[:60]}",
        )
    profile = profile_in_query(call)
    if profile is not None:
        yield profile[0], f"puts a person's {' and '.join(profile[1])} in a URL to {host[:60]}"
