"""Other sessions ended: MySQL's and SQL Server's ``KILL`` of a connection and PostgreSQL's
``pg_terminate_backend`` drop a client's connection and roll back its open transaction — a
person confirms whose work that is. Cancelling one running statement (``KILL QUERY 42``,
``pg_cancel_backend``) leaves the connection and committed data alone, and runs. Pure."""

from __future__ import annotations

from collections.abc import Iterator

from .sql_issue import H, Issue, called_names, fragment
from .sql_lex import TokKind
from .sql_parse import Parsed

__all__ = ["kill", "sessions_ended"]

_ENDS = frozenset({"PG_TERMINATE_BACKEND"})


def kill(p: Parsed, i: int, production: bool) -> Iterator[Issue]:
    """``KILL [CONNECTION] id`` ends a session; ``KILL QUERY id`` only cancels its statement."""
    words = [t.upper for t in p.stmt.tokens[i + 1 : i + 3] if t.kind is TokKind.WORD]
    if words[:1] == ["QUERY"]:
        return
    yield Issue(H, "kills a database session", fragment(p), "change")


def sessions_ended(p: Parsed) -> Issue | None:
    """A statement that ends other sessions (``SELECT pg_terminate_backend(pid)``)."""
    if called_names(p.stmt) & _ENDS:
        return Issue(
            H, "ends other database sessions (pg_terminate_backend)", fragment(p), "change"
        )
    return None
