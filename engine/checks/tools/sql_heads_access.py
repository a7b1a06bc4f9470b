"""Rules of ``sql_heads`` about who may reach the data: GRANTs (read rights, write rights, roles,
grants to everyone or to an outside account such as a personal Gmail address), and switches
of the database's own defences: an audit turned off (SQL Server's ``ALTER SERVER AUDIT … STATE
= OFF``, Oracle's ``NOAUDIT``, ``audit_trail = NONE``) and an account's network policy removed
or opened to every address (Snowflake's ``ALTER ACCOUNT UNSET NETWORK_POLICY``)."""

from __future__ import annotations

import re
from collections.abc import Iterator

from humangr.contracts import Severity

from .business_words import PERSONAL_MAIL
from .sql_access_narrow import one_schema_reads
from .sql_issue import C, H, Issue, fragment
from .sql_lex import Tok, TokKind
from .sql_parse import Parsed
from .sql_words import ADMIN_ROLES

__all__ = ["backup", "grant", "no_audit", "security_control"]

_READ_PRIVILEGES = frozenset({"SELECT", "USAGE", "REFERENCES"})
_WIDE_TARGETS = frozenset({"ALL", "DATABASE", "SERVER", "INSTANCE", "*"})
_PUBLIC_MEMBERS = re.compile(r"(?i)\b(?:allusers|allauthenticatedusers)\b")
"""Cloud IAM's members for anyone on the internet (with or without a Google account)."""


def _outside(grantees: list[Tok]) -> str | None:
    """A grantee outside the company: a personal mailbox (``user:x@gmail.com``) or the
    public (``allUsers``)."""
    for t in grantees[:20]:
        text = t.text.strip("'\"`[]")
        member = text.rsplit(":", 1)[-1].lower()
        if _PUBLIC_MEMBERS.search(text) or ("@" in member and PERSONAL_MAIL.search(member)):
            return text[:60]
    return None


def grant(p: Parsed, i: int, production: bool) -> Iterator[Issue]:
    """Read rights on named objects to a named role are everyday; other rights, read rights on
    every table, and a role need a person; everything, to everyone or to an outside account,
    with the right to pass it on, an admin role, or write rights on every table are
    critical."""
    toks = [t for t in p.stmt.tokens[i + 1 :] if t.kind is not TokKind.COMMENT]
    words = [t.upper or t.text for t in toks]
    on = words.index("ON") if "ON" in words else -1
    to = words.index("TO") if "TO" in words else -1
    granted = words[: on if on >= 0 else max(to, 0)]
    rights = {w for w in granted if w.replace("_", "").isalnum()}
    quoted_role = any(t.kind is not TokKind.WORD and "/" in t.text for t in toks[: len(granted)])
    target = words[on + 1 : to] if 0 <= on < to else []
    grantees = words[to + 1 :] if to >= 0 else []
    wide = bool(target) and (target[0] in _WIDE_TARGETS or "*" in "".join(target))
    read = rights <= _READ_PRIVILEGES and not quoted_role
    admin = on < 0 and bool({w.lower() for w in rights} & ADMIN_ROLES)
    outside = _outside(toks[to + 1 :]) if to >= 0 else None
    if outside is not None:
        yield Issue(C, f"grants access to an outside account ({outside})", fragment(p), "privilege")
    elif (
        to < 0
        or rights & {"ALL", "PRIVILEGES"}
        or "PUBLIC" in grantees
        or "OPTION" in grantees
        or admin
        or (wide and not read)
    ):
        yield Issue(
            C, "grants an admin role" if admin else "grants privileges", fragment(p), "privilege"
        )
    elif on < 0 or quoted_role:
        yield Issue(H, "grants a role", fragment(p), "privilege")
    elif not read:
        yield Issue(H, "grants rights to change data", fragment(p), "privilege")
    elif wide and rights != {"USAGE"} and not one_schema_reads(target):
        yield Issue(H, "grants reads of every table", fragment(p), "privilege")


_OFF = frozenset({"OFF", "NONE", "FALSE", "DISABLE", "DISABLED", "0"})
_SERVER_OBJECTS = frozenset({"SERVER", "DATABASE", "SYSTEM", "AUDIT", "INSTANCE"})
"""What an audit of the whole database is altered through (not a table named ``audit_*``)."""
_OPEN_NETWORK = re.compile(r"^0\.0\.0\.0/0$|^::/0$")


def security_control(what: str, toks: list[Tok]) -> tuple[Severity, str] | None:
    """What an ``ALTER <what> …`` does to the database's own defences, if anything: an audit
    switched off, an account's network policy removed or opened to every address, other
    account-wide settings changed."""
    words = [t.upper for t in toks if t.kind is TokKind.WORD][:40]
    values = {t.text.strip("'\"").upper() for t in toks[:60]}
    audited = what == "AUDIT" or any("AUDIT" in w for w in words)
    if what in _SERVER_OBJECTS and audited and values & _OFF:
        return C, "turns off the database's audit"
    if what == "ACCOUNT":
        if "UNSET" in words and any("NETWORK_POLICY" in w for w in words):
            return C, "removes the account's network policy (logins from any address)"
        return H, "changes account-wide settings"
    if what == "NETWORK" and any(_OPEN_NETWORK.match(v) for v in values):
        return C, "opens a network policy to every address"
    return None


def no_audit(p: Parsed, i: int, production: bool) -> Iterator[Issue]:
    """Oracle's ``NOAUDIT``: statements stop being recorded."""
    yield Issue(C, "turns off auditing (NOAUDIT)", fragment(p), "privilege")


_OFF_SERVER = re.compile(r"(?i)^(?:https?|s3|gs|azure)://|^\\\\")


def backup(p: Parsed, i: int, production: bool) -> Iterator[Issue]:
    """SQL Server's ``BACKUP DATABASE|LOG … TO DISK = '…'``: a copy on the server's own disk is
    everyday; one sent to a URL or another machine's share (``\\\\host\\share``) takes the
    whole database off the server."""
    toks = [t for t in p.stmt.tokens[i + 1 :] if t.kind is not TokKind.COMMENT][:200]
    for k, t in enumerate(toks):
        if t.upper not in ("DISK", "URL", "TAPE") or k + 1 >= len(toks):
            continue
        target = next((x for x in toks[k + 1 : k + 3] if x.kind is TokKind.STRING), None)
        where = target.text.lstrip("Nn").strip("'") if target is not None else ""
        if t.upper == "URL" or _OFF_SERVER.match(where):
            yield Issue(
                H, f"backs the database up off the server ({where[:60]})", fragment(p), "change"
            )
            return
