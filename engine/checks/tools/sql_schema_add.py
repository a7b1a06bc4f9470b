"""Additive changes of a table's structure: ``ALTER TABLE t ADD [COLUMN] c type [NULL |
DEFAULT …]`` adds a column every existing row reads as empty or as its default — nothing is
dropped, renamed, retyped or rewritten, so a planned migration's additive step runs even in
production. A column added ``NOT NULL`` with no default fails or rewrites the table, and any
other clause (DROP, RENAME, ALTER COLUMN, a constraint, an owner) keeps the ``tool-sql``
check's finding. Pure, over the statement's tokens."""

from __future__ import annotations

from collections.abc import Sequence

from .sql_lex import Tok, TokKind

__all__ = ["additive_only"]

_LEAD = frozenset({"ADD", "COLUMN", "IF", "NOT", "EXISTS"})
_RISKY = frozenset(
    {"DROP", "RENAME", "ALTER", "MODIFY", "CHANGE", "TYPE", "OWNER", "CONSTRAINT", "PRIMARY",
     "FOREIGN", "REFERENCES", "UNIQUE", "CHECK", "GENERATED", "IDENTITY", "AUTO_INCREMENT",
     "DISABLE", "ENABLE", "SWAP", "EXCHANGE", "SWITCH", "PARTITION", "POLICY", "SECURITY",
     "ROW", "TRIGGER", "REPLICA", "TABLESPACE", "LOGGED", "UNLOGGED", "INHERIT", "ENCRYPTION"}
)  # fmt: skip


def additive_only(toks: Sequence[Tok]) -> bool:
    """``toks`` (what follows ``ALTER TABLE``: the name, then its clauses) add one or more
    nullable or defaulted columns and do nothing else."""
    words = [t.upper for t in toks[:200] if t.kind is TokKind.WORD and t.depth == 0]
    if len(toks) > 200 or "ADD" not in words or set(words) & _RISKY:
        return False
    clauses: list[list[str]] = []
    for w in words[words.index("ADD") :]:
        if w == "ADD":
            clauses.append([])
        elif clauses:
            clauses[-1].append(w)
    for clause in clauses:
        k = 0
        while k < min(len(clause), 5) and clause[k] in _LEAD:
            k += 1
        body = clause[k:]
        if "NOT" in body[1:] and "DEFAULT" not in body:
            return False  # NOT NULL with no default: every existing row must change
        if not body or body[0] in ("INDEX", "KEY", "FULLTEXT", "SPATIAL"):
            return False
    return bool(clauses)
