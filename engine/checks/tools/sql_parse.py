"""SQL read for review: the tokenizer's statements, each parsed by sqlglot when it can be.

Placeholders of every driver (``%s``, ``%(name)s``, ``{name}``, ``${x}``) are read as ``?`` so
a parameterised query parses; the dialect an argument names is tried first, then sqlglot's
generic dialect, then the dialect the text's quoting suggests. Never raises.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING

from .sql_lex import Lexed, Statement, Tok, TokKind, lex

if TYPE_CHECKING:
    from sqlglot import exp

__all__ = ["SQLGLOT_DIALECTS", "Parsed", "dialect_of", "read_sql"]

_MAX_PARSE = 24_000
"""Characters of one statement given to sqlglot; a longer one is read from its tokens only."""
_MAX_PARSED_TOTAL = 120_000
_MAX_DEPTH = 64
_DIALECTS = {
    "postgres": "postgres",
    "postgresql": "postgres",
    "pg": "postgres",
    "psql": "postgres",
    "psycopg": "postgres",
    "psycopg2": "postgres",
    "asyncpg": "postgres",
    "supabase": "postgres",
    "neon": "postgres",
    "cockroachdb": "postgres",
    "timescaledb": "postgres",
    "mysql": "mysql",
    "mariadb": "mysql",
    "pymysql": "mysql",
    "aurora": "mysql",
    "sqlite": "sqlite",
    "sqlite3": "sqlite",
    "mssql": "tsql",
    "sqlserver": "tsql",
    "sql server": "tsql",
    "sql_server": "tsql",
    "tsql": "tsql",
    "t-sql": "tsql",
    "azuresql": "tsql",
    "pyodbc": "tsql",
    "oracle": "oracle",
    "plsql": "oracle",
    "bigquery": "bigquery",
    "snowflake": "snowflake",
    "redshift": "redshift",
    "duckdb": "duckdb",
    "clickhouse": "clickhouse",
    "trino": "trino",
    "presto": "presto",
    "athena": "athena",
    "spark": "spark",
    "sparksql": "spark",
    "databricks": "databricks",
    "hive": "hive",
    "teradata": "teradata",
    "doris": "doris",
    "starrocks": "starrocks",
    "materialize": "materialize",
}


class _Unsupported(logging.Filter):
    """sqlglot warns on every statement it reads as an opaque command; the review reads those
    from their tokens, so the warning is noise in the user's log."""

    def filter(self, record: logging.LogRecord) -> bool:
        return "unsupported syntax" not in str(record.msg)


logging.getLogger("sqlglot").addFilter(_Unsupported())


@dataclass(frozen=True, slots=True)
class Parsed:
    """One statement: its tokens and, when sqlglot read it, its tree."""

    stmt: Statement
    text: str
    tree: exp.Expression | None
    """None when sqlglot could not read it, or read it only as an opaque command."""
    error: bool
    """sqlglot failed on it (an opaque command is no failure)."""


def dialect_of(name: str | None) -> str | None:
    """The sqlglot dialect a name (``PostgreSQL``, ``mssql``, ``sqlite3``) stands for."""
    if not name:
        return None
    key = name.strip().lower()
    found = _DIALECTS.get(key) or _DIALECTS.get(key.split(":", 1)[0].split("+", 1)[0])
    return found or (key if key in _known_dialects() else None)


SQLGLOT_DIALECTS = frozenset(
    {
        "athena", "bigquery", "clickhouse", "databricks", "dax", "doris", "dremio", "drill",
        "druid", "duckdb", "dune", "exasol", "fabric", "hive", "materialize", "mysql", "oracle",
        "postgres", "presto", "prql", "redshift", "risingwave", "singlestore", "snowflake",
        "solr", "spark", "spark2", "sqlite", "starrocks", "tableau", "teradata", "trino", "tsql",
    }
)  # fmt: skip
"""sqlglot's dialect names (``sqlglot.dialects.DIALECTS``, lower-cased; a test keeps the two
equal). Written out because reading sqlglot's own list imports sqlglot, a tenth of a second
of every process's start, and the Claude Code hook starts one per tool call."""


def _known_dialects() -> frozenset[str]:
    return SQLGLOT_DIALECTS


def _normalised(text: str, stmt: Statement) -> str:
    """The statement's text with driver placeholders as ``?`` and comments left out."""
    out: list[str] = []
    pos = stmt.start
    for tok in sorted(stmt.tokens + stmt.comments, key=lambda t: t.start):
        out.append(text[pos : tok.start])
        if tok.kind is TokKind.COMMENT:
            out.append(" ")
        elif tok.kind is TokKind.PARAM and tok.text[0] in "%{$" and not tok.text[1:].isdigit():
            out.append("?")
        else:
            out.append(tok.text)
        pos = tok.end
    return "".join(out).strip()


def _guesses(tokens: tuple[Tok, ...]) -> list[str]:
    out: list[str] = []
    texts = {t.text[:1] for t in tokens if t.kind in (TokKind.QNAME, TokKind.PARAM)}
    words = {t.upper for t in tokens if t.kind is TokKind.WORD and t.depth == 0}
    if "`" in texts or words & {"OUTFILE", "DUMPFILE", "INFILE", "AUTO_INCREMENT"}:
        out.append("mysql")
    if (
        "[" in texts
        or "@" in texts
        or any(w.startswith("#") for w in words)
        or words & {"TOP", "EXEC", "NVARCHAR", "GO"}
    ):
        out.append("tsql")
    if "$" in texts or words & {"ILIKE", "RETURNING", "SERIAL", "PROGRAM"}:
        out.append("postgres")
    if "@" in texts or ":" in texts or words & {"FLATTEN", "VARIANT", "QUALIFY", "WAREHOUSE"}:
        out.append("snowflake")
    if "`" in texts:
        out.append("bigquery")
    return out or ["mysql", "postgres"]


def _parse(text: str, dialect: str | None) -> exp.Expression | None:
    # sqlglot is imported on the first SQL read, not with the checks: a tenth of a second of
    # every process's start (the Claude Code hook starts one per tool call)
    import sqlglot
    from sqlglot import exp

    trees = sqlglot.parse(text, read=dialect)
    return next((t for t in trees if isinstance(t, exp.Expression)), None)


def _one(text: str, stmt: Statement, dialect: str | None) -> tuple[exp.Expression | None, bool]:
    from sqlglot import exp

    tries: list[str | None] = [dialect] if dialect else []
    tries.append(None)
    tries.extend(d for d in _guesses(stmt.tokens) if d != dialect)
    command: exp.Expression | None = None
    for d in tries[:4]:
        try:
            tree = _parse(text, d)
        except Exception:  # sqlglot raises many kinds; RecursionError too
            continue
        if tree is None or isinstance(tree, exp.Command):
            command = command or tree
            continue
        if isinstance(tree, exp.Condition | exp.Tuple | exp.Identifier | exp.Alias):
            continue  # an expression is no statement: ``105 OR 1=1``
        return tree, False
    return None, command is None


def read_sql(sql: str, dialect: str | None = None) -> tuple[Lexed, list[Parsed]]:
    """``sql`` split and parsed. Statements too long or too deep to parse have no tree."""
    lexed = lex(sql)
    out: list[Parsed] = []
    budget = _MAX_PARSED_TOTAL
    for stmt in lexed.statements:
        text = _normalised(lexed.text, stmt)
        depth = max((t.depth for t in stmt.tokens), default=0)
        if len(text) > min(_MAX_PARSE, budget) or depth > _MAX_DEPTH:
            out.append(Parsed(stmt, text, None, True))
            continue
        budget -= len(text)
        tree, error = _one(text, stmt, dialect)
        out.append(Parsed(stmt, text, tree, error))
    return lexed, out
