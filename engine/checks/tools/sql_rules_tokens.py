"""Rules of ``tool-sql`` read from a statement's tokens alone: an always-true ``OR`` in text
sqlglot could not parse (an injection payload), and sqlite3's dot commands (``.shell``,
``.output``)."""

from __future__ import annotations

from collections.abc import Iterator

from .sql_issue import C, H, Issue, fragment
from .sql_lex import Tok, TokKind
from .sql_parse import Parsed

__all__ = ["dot_command", "token_tautology"]


def _same_literal(a: Tok, b: Tok) -> bool:
    kinds = (TokKind.STRING, TokKind.NUMBER)
    return a.kind in kinds and b.kind in kinds and a.text.strip("'\"") == b.text.strip("'\"")


def token_tautology(p: Parsed) -> Iterator[Issue]:
    """``OR '1'='1``, ``OR 1=1``, ``OR TRUE`` in text sqlglot could not parse (an injection
    payload on its own, or a statement it breaks): read from the tokens."""
    if p.tree is not None:
        return
    toks = p.stmt.tokens
    for k, t in enumerate(toks):
        if t.upper not in ("OR", "||"):
            continue
        rest = toks[k + 1 : k + 4]
        if (
            len(rest) == 3
            and rest[1].kind is TokKind.OP
            and rest[1].text in ("=", "LIKE")
            and _same_literal(rest[0], rest[2])
        ) or (
            (rest[:1] and rest[0].upper == "TRUE")
            or (len(rest) == 1 and rest[0].kind is TokKind.NUMBER and rest[0].text != "0")
        ):
            starts_quoted = toks[0].kind is TokKind.STRING and toks[0].start == p.stmt.start
            sev = C if p.stmt.comments or starts_quoted else H
            yield Issue(sev, "always-true OR (injection shape)", fragment(p), "injection")
            return


def dot_command(p: Parsed) -> list[Issue] | None:
    """A sqlite3 shell command (``.tables``, ``.shell rm -rf /``): None when it is none."""
    toks = p.stmt.tokens
    if len(toks) < 2 or toks[0].text != "." or toks[1].kind is not TokKind.WORD:
        return None
    if toks[1].start != toks[0].end:
        return None
    name = toks[1].text.lower()
    if name in ("shell", "system"):
        return [Issue(C, f"runs a shell command (.{name})", fragment(p), "server")]
    if name in ("output", "once", "save", "backup", "import", "load", "open", "excel"):
        return [Issue(H, f"reads or writes a file (.{name})", fragment(p), "change")]
    return []
