"""A small SQL tokenizer that never fails: strings, quoted names, comments and placeholders of
every common dialect, and the statements a script splits into.

sqlglot parses what it can; this tokenizer is what the review falls back on when it cannot
(and what tells where statements, comments and unterminated quotes are, which a parse
tree forgets). Linear time, bounded by ``MAX_SQL`` characters.
"""

from __future__ import annotations

import enum
import re
from dataclasses import dataclass

from .sql_exec_comments import opened

__all__ = ["MAX_SQL", "Lexed", "Statement", "Tok", "TokKind", "lex"]

MAX_SQL = 262_144
"""Characters of SQL read; a longer text is reported as not fully reviewed."""
_MAX_STATEMENTS = 500


class TokKind(enum.Enum):
    WORD = "word"
    QNAME = "quoted name"
    STRING = "string"
    NUMBER = "number"
    PARAM = "placeholder"
    COMMENT = "comment"
    OP = "operator"
    LPAREN = "("
    RPAREN = ")"
    SEMI = ";"


@dataclass(frozen=True, slots=True)
class Tok:
    kind: TokKind
    text: str
    start: int
    end: int
    depth: int
    """Parenthesis depth the token sits at (0: the statement's own level)."""

    @property
    def upper(self) -> str:
        return self.text.upper() if self.kind is TokKind.WORD else ""


@dataclass(frozen=True, slots=True)
class Statement:
    """One statement: its tokens (comments apart) and where it lies in the script."""

    tokens: tuple[Tok, ...]
    comments: tuple[Tok, ...]
    start: int
    end: int

    def words(self, limit: int = 12) -> list[str]:
        """The first ``limit`` words at depth 0, upper-case (its leading keywords)."""
        out: list[str] = []
        for t in self.tokens:
            if t.kind is TokKind.WORD and t.depth == 0:
                out.append(t.upper)
                if len(out) >= limit:
                    break
        return out


@dataclass(frozen=True, slots=True)
class Lexed:
    text: str
    statements: tuple[Statement, ...]
    problems: tuple[str, ...]
    """Unterminated strings or comments, text cut at ``MAX_SQL``, too many statements."""
    max_depth: int


_TOKEN = re.compile(
    r"""
    (?P<space>\s+)
  | (?P<line>--[^\n]*|\#(?![A-Za-z_\#])[^\n]*)
  | (?P<block>/\*)
  | (?P<string>[NnEeBbXxUu]?'(?:[^'\\]|''|\\.)*'|[Uu]&'(?:[^']|'')*')
  | (?P<open_string>[NnEeBbXxUu]?')
  | (?P<dollar>\$(?:[A-Za-z_]\w{0,30})?\$)
  | (?P<qname>"(?:[^"]|"")*"|`(?:[^`]|``)*`|\[[^\]\n]{0,256}\])
  | (?P<open_qname>["`])
  | (?P<param>\?|%\(\w{1,64}\)s|%[sd]|:[A-Za-z_]\w{0,64}|\$\d{1,4}|@@?[A-Za-z_]\w{0,64}
        |\$\{[^}\n]{0,128}\}|\{\{[^}\n]{0,128}\}\}|\{[A-Za-z_]\w{0,64}\})
  | (?P<number>(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?|0[xX][0-9a-fA-F]+)
  | (?P<word>\#{0,2}[^\W\d]\w*(?:[$\#]+(?![\w$\#])|\$\w+)*)
  | (?P<semi>;)
  | (?P<lparen>\()
  | (?P<rparen>\))
  | (?P<op>::|<>|!=|<=|>=|\|\||[^\s\w])
    """,
    re.VERBOSE,
)
_GO = re.compile(r"(?im)^[ \t]*GO[ \t]*$")


class _State:
    def __init__(self) -> None:
        self.stmts: list[Statement] = []
        self.tokens: list[Tok] = []
        self.comments: list[Tok] = []
        self.start = 0
        self.depth = 0
        self.max_depth = 0

    def close(self, end: int) -> None:
        if self.tokens and len(self.stmts) < _MAX_STATEMENTS:
            self.stmts.append(Statement(tuple(self.tokens), tuple(self.comments), self.start, end))
        elif self.comments and self.stmts and len(self.stmts) < _MAX_STATEMENTS:
            last = self.stmts[-1]
            self.stmts[-1] = Statement(
                last.tokens, last.comments + tuple(self.comments), last.start, last.end
            )
        self.tokens, self.comments, self.depth = [], [], 0

    def add(self, kind: TokKind, text: str, start: int, end: int) -> None:
        if not self.tokens and not self.comments:
            self.start = start
        if kind is TokKind.RPAREN:
            self.depth = max(0, self.depth - 1)
        tok = Tok(kind, text, start, end, self.depth)
        if kind is TokKind.LPAREN:
            self.depth += 1
            self.max_depth = max(self.max_depth, self.depth)
        (self.comments if kind is TokKind.COMMENT else self.tokens).append(tok)


def _go_breaks(text: str) -> set[int]:
    return {m.start() for m in _GO.finditer(text)} if "GO" in text.upper() else set()


def lex(sql: str) -> Lexed:
    """``sql`` split into statements of tokens. Never raises."""
    problems: list[str] = []
    text = sql
    if len(text) > MAX_SQL:
        text = text[:MAX_SQL]
        problems.append(f"only the first {MAX_SQL:,} of {len(sql):,} characters were read")
    text = opened(text)  # MySQL's ``/*! … */`` runs what it holds
    go = _go_breaks(text)
    state = _State()
    pos, n = 0, len(text)
    while pos < n:
        if pos in go:
            state.close(pos)
            pos += 2
            continue
        m = _TOKEN.match(text, pos)
        if m is None:  # pragma: no cover - the op branch matches any one character
            pos += 1
            continue
        group, end = m.lastgroup, m.end()
        if group == "space":
            pass
        elif group == "line":
            state.add(TokKind.COMMENT, text[pos:end], pos, end)
        elif group == "block":
            close = text.find("*/", end)
            if close == -1:
                problems.append("an unterminated /* comment")
                close = n - 2
            end = close + 2
            state.add(TokKind.COMMENT, text[pos:end], pos, end)
        elif group in ("open_string", "open_qname"):
            problems.append("an unterminated quote")
            state.add(TokKind.STRING, text[pos:n], pos, n)
            end = n
        elif group == "dollar":
            tag = m.group(0)
            close = text.find(tag, end)
            if close == -1:
                problems.append("an unterminated dollar-quoted string")
                close = n - len(tag)
            end = close + len(tag)
            state.add(TokKind.STRING, text[pos:end], pos, end)
        elif group == "semi":
            state.close(pos)
        else:
            state.add(TokKind[_KINDS[group or "op"]], m.group(0), pos, end)
        pos = end
    state.close(n)
    if len(state.stmts) >= _MAX_STATEMENTS:
        problems.append(f"more than {_MAX_STATEMENTS} statements")
    return Lexed(text, tuple(state.stmts), tuple(problems), state.max_depth)


_KINDS = {
    "string": "STRING",
    "qname": "QNAME",
    "param": "PARAM",
    "number": "NUMBER",
    "word": "WORD",
    "lparen": "LPAREN",
    "rparen": "RPAREN",
    "op": "OP",
}
