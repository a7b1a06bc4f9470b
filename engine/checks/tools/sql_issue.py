"""What the SQL rules say about a statement (``Issue``) and the token helpers they share."""

from __future__ import annotations

from dataclasses import dataclass

from humangr.contracts import Severity

from .sql_lex import Statement, Tok, TokKind
from .sql_parse import Parsed

__all__ = [
    "C",
    "H",
    "Issue",
    "after",
    "all_words",
    "called_names",
    "first_word",
    "fragment",
    "object_names",
    "word_at",
]

C, H = Severity.CRITICAL, Severity.HIGH


@dataclass(frozen=True, slots=True)
class Issue:
    severity: Severity
    title: str
    detail: str
    kind: str
    """``destroy``, ``privilege``, ``server``, ``credentials``, ``injection``, ``change``,
    ``unreadable``: what the statement does, for the script-level rules."""


def fragment(p: Parsed, limit: int = 90) -> str:
    text = " ".join(p.text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def object_names(tokens: tuple[Tok, ...], i: int) -> list[str]:
    """Object names from ``tokens[i]`` on (``IF [NOT] EXISTS`` skipped, ``a.b, c`` read)."""
    out: list[str] = []
    current = ""
    while i < len(tokens) and len(out) < 20:
        t = tokens[i]
        if t.kind is TokKind.WORD and t.upper in ("IF", "NOT", "EXISTS", "ONLY", "TABLE"):
            if current:
                break
        elif t.kind in (TokKind.WORD, TokKind.QNAME, TokKind.PARAM):
            if current and not current.endswith("."):
                break
            current += t.text
        elif t.kind is TokKind.OP and t.text == ".":
            current += "."
        elif t.kind is TokKind.OP and t.text == ",":
            out.append(current)
            current = ""
        else:
            break
        i += 1
    if current:
        out.append(current)
    return [n for n in out if n]


def word_at(tokens: tuple[Tok, ...], word: str, start: int = 0) -> int:
    for i in range(start, len(tokens)):
        if tokens[i].kind is TokKind.WORD and tokens[i].upper == word:
            return i
    return -1


def called_names(stmt: Statement) -> set[str]:
    """Names called as functions (``LOAD_FILE(``, ``utl_http.request(`` gives both words)."""
    out: set[str] = set()
    toks = stmt.tokens
    for i in range(1, len(toks)):
        if toks[i].kind is TokKind.LPAREN and toks[i - 1].kind is TokKind.WORD:
            j = i - 1
            while j >= 0 and len(out) < 500:
                if toks[j].kind is TokKind.WORD:
                    out.add(toks[j].upper)
                if j >= 2 and toks[j - 1].kind is TokKind.OP and toks[j - 1].text == ".":
                    j -= 2
                else:
                    break
    return out


def all_words(stmt: Statement) -> list[str]:
    return [t.upper for t in stmt.tokens if t.kind is TokKind.WORD]


def first_word(stmt: Statement) -> tuple[str, int]:
    for i, t in enumerate(stmt.tokens):
        if t.kind is TokKind.WORD:
            return t.upper, i
    return "", -1


def after(words: list[str], word: str) -> str:
    try:
        k = words.index(word)
    except ValueError:
        return ""
    return words[k + 1] if k + 1 < len(words) else ""
