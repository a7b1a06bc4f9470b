"""Session settings that switch off the records of what a session does: MySQL's ``SET
sql_log_bin = 0`` (its changes left out of the binary log, so replicas and point-in-time
recovery never see them), PostgreSQL's ``SET session_replication_role = replica`` (triggers —
audit triggers among them — and foreign keys skipped), statement logging and ``pgaudit``
turned off for the session. A change made after one of these is a change meant to leave no
trace; a person confirms it."""

from __future__ import annotations

from collections.abc import Iterator

from .sql_issue import C, H, Issue, fragment
from .sql_lex import TokKind
from .sql_parse import Parsed
from .sql_words import ADMIN_ROLES

__all__ = ["logging_off", "set_statement"]

_SCOPES = frozenset({"SESSION", "LOCAL", "@@SESSION", "@@LOCAL"})
_OFF = frozenset({"0", "off", "false", "none", "no", "disable", "disabled", "-1"})
_SETTINGS: dict[str, tuple[frozenset[str], str]] = {
    "sql_log_bin": (_OFF, "leaves the session's changes out of the binary log"),
    "session_replication_role": (
        frozenset({"replica", "local"}),
        "skips triggers and foreign keys (audit triggers with them)",
    ),
    "general_log": (_OFF, "turns off the general query log"),
    "log_statement": (frozenset({"none"}), "turns off statement logging"),
    "pgaudit.log": (frozenset({"none", "-all"}), "turns off pgaudit's audit log"),
    "audit_log": (_OFF, "turns off the audit log"),
}
"""Setting → (values that switch its record off, what that does)."""


def _setting(p: Parsed, i: int) -> tuple[str, str] | None:
    """(name, value) of ``SET [SESSION|LOCAL] name = value`` / ``SET @@session.name = value``
    / ``SET name TO value``, lower case."""
    toks = [t for t in p.stmt.tokens[i + 1 : i + 12] if t.kind is not TokKind.COMMENT]
    name: list[str] = []
    k = 0
    while k < len(toks) and toks[k].text.upper() in _SCOPES:
        k += 1
    while k < len(toks) and not (toks[k].text in ("=", ":=") or toks[k].upper == "TO"):
        piece = toks[k].text.strip('`"')
        name.append(piece.lower())
        k += 1
    if k + 1 >= len(toks) or not name:
        return None
    joined = (
        "".join(name).lstrip(".").removeprefix("@@").removeprefix("session.").removeprefix("local.")
    )
    value = toks[k + 1].text.strip("'\"").lower()
    if toks[k + 1].text == "-" and k + 2 < len(toks):
        value = "-" + toks[k + 2].text.strip("'\"").lower()
    return joined, value


def logging_off(p: Parsed, i: int) -> Issue | None:
    """``p`` (a ``SET`` whose keyword is at ``i``) switches off a record of the session's
    changes (see the module's docstring)."""
    found = _setting(p, i)
    if found is None:
        return None
    name, value = found
    rule = _SETTINGS.get(name)
    if rule is None or value not in rule[0]:
        return None
    return Issue(H, f"{rule[1]} ({name} = {value})", fragment(p), "change")


def set_statement(p: Parsed, i: int, production: bool) -> Iterator[Issue]:
    """``SET``: a record of the session's changes switched off, an administrator role taken,
    a password or the server's global configuration changed."""
    toks = p.stmt.tokens
    if (off := logging_off(p, i)) is not None:
        yield off
        return
    words = [t.upper for t in toks[i + 1 :] if t.kind is TokKind.WORD][:12]
    values = [
        t.text.strip("'\"`[]").lower()
        for t in toks[i + 1 :]
        if t.kind in (TokKind.WORD, TokKind.STRING, TokKind.QNAME)
    ][:12]
    if "ROLE" in words[:3] or words[:2] == ["SESSION", "AUTHORIZATION"]:
        if set(values) & ADMIN_ROLES:
            yield Issue(C, "switches to an administrator role", fragment(p), "privilege")
    elif words[:1] == ["PASSWORD"]:
        yield Issue(C, "changes a password (SET PASSWORD)", fragment(p), "privilege")
    elif words[:1] == ["GLOBAL"] or words[:1] == ["PERSIST"]:
        logs = {"GENERAL_LOG_FILE", "SLOW_QUERY_LOG_FILE", "GENERAL_LOG", "SECURE_FILE_PRIV"}
        sev = C if logs & set(words) else H
        yield Issue(sev, "changes the server's global configuration", fragment(p), "server")
