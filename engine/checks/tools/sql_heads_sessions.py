"""Other sessions ended: MySQL's and SQL Server's ``KILL`` of a connection and PostgreSQL's
``pg_terminate_backend`` drop a client's connection and roll back its open transaction — a
person confirms whose work that is. Cancelling one running statement (``KILL QUERY 42``,
``pg_cancel_backend``) leaves the connection and committed data alone, and runs. So does
ending one session named by its literal id (``KILL 88231``, ``pg_terminate_backend(4120)``,
Oracle's ``ALTER SYSTEM KILL SESSION '412,33817'``): the runaway or blocking session a person
found, the way ``kill -9 <pid>`` ends one process; ending sessions chosen by a query (every
pid of ``pg_stat_activity``) still needs a person. Pure."""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence

from .sql_issue import H, Issue, called_names, fragment
from .sql_lex import Tok, TokKind
from .sql_parse import Parsed

__all__ = ["kill", "one_session", "sessions_ended"]

_ENDS = frozenset({"PG_TERMINATE_BACKEND"})
_ONE_ID = re.compile(r"\s*\d{1,10}\s*")
_ONE_SESSION = re.compile(r"'\s*\d{1,10}\s*,\s*\d{1,10}\s*(?:,\s*@?\d{1,5}\s*)?'")
"""Oracle's ``'sid,serial#[,@inst]'``: one session."""
_TERMINATE_ONE = re.compile(r"(?i)\bpg_terminate_backend\s*\(\s*\d{1,10}\s*\)")


def kill(p: Parsed, i: int, production: bool) -> Iterator[Issue]:
    """``KILL [CONNECTION] id`` ends a session; ``KILL QUERY id`` only cancels its statement."""
    words = [t.upper for t in p.stmt.tokens[i + 1 : i + 3] if t.kind is TokKind.WORD]
    if words[:1] == ["QUERY"]:
        return
    rest = [t for t in p.stmt.tokens[i + 1 : i + 4] if t.text != ";"]
    if rest[:1] and rest[0].upper == "CONNECTION":
        rest = rest[1:]
    if len(rest) == 1 and _ONE_ID.fullmatch(rest[0].text):
        return  # one session by its id: the runaway one a person found
    yield Issue(H, "kills a database session", fragment(p), "change")


def sessions_ended(p: Parsed) -> Issue | None:
    """A statement that ends other sessions (``SELECT pg_terminate_backend(pid)``)."""
    if called_names(p.stmt) & _ENDS and not _one_terminated(p):
        return Issue(
            H, "ends other database sessions (pg_terminate_backend)", fragment(p), "change"
        )
    return None


def _one_terminated(p: Parsed) -> bool:
    """``SELECT pg_terminate_backend(4120)``: one session by a literal pid, read from nothing."""
    text = " ".join(t.text for t in p.stmt.tokens[:12])
    words = {t.upper for t in p.stmt.tokens[:40] if t.kind is TokKind.WORD}
    return (
        len(p.stmt.tokens) <= 12 and "FROM" not in words and _TERMINATE_ONE.search(text) is not None
    )


def one_session(toks: Sequence[Tok]) -> bool:
    """``ALTER SYSTEM KILL|DISCONNECT SESSION 'sid,serial#' [IMMEDIATE]``: one session ended
    (``toks``: the tokens after ``SYSTEM``)."""
    heads = [t.upper for t in toks[:2]]
    if heads not in (["KILL", "SESSION"], ["DISCONNECT", "SESSION"]) or len(toks) < 3:
        return False
    tail = {t.upper or t.text for t in toks[3:]}
    return (
        toks[2].kind is TokKind.STRING
        and _ONE_SESSION.fullmatch(toks[2].text) is not None
        and tail <= {"IMMEDIATE", "POST_TRANSACTION", "NOREPLAY", "FORCE", ";"}
    )
