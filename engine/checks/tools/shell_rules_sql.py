"""The SQL a database client runs from its command line (``psql -c``, ``mysql -e``,
``sqlite3 app.db "…"``), judged by the same SQL rules as an SQL tool's statement: a real
parser, not a pattern over the command line."""

from __future__ import annotations

from collections.abc import Iterator

from humangr.contracts import Severity

from .shell_model import Cmd
from .shell_rule_kit import Context, Flag, critical, high, rule

__all__ = ["client_sql"]

_CLIENTS: dict[str, tuple[str | None, frozenset[str]]] = {
    "psql": ("postgres", frozenset({"-c", "--command"})),
    "mysql": ("mysql", frozenset({"-e", "--execute"})),
    "mariadb": ("mysql", frozenset({"-e", "--execute"})),
    "sqlite3": ("sqlite", frozenset({"-cmd"})),
    "duckdb": ("duckdb", frozenset({"-c", "-cmd"})),
    "clickhouse-client": ("clickhouse", frozenset({"-q", "--query"})),
    "cqlsh": (None, frozenset({"-e", "--execute"})),
    "sqlcmd": ("tsql", frozenset({"-q", "-Q", "--query"})),
    "bq": ("bigquery", frozenset()),
    "snowsql": ("snowflake", frozenset({"-q", "--query"})),
    "cockroach": ("postgres", frozenset({"-e", "--execute"})),
    "ysqlsh": ("postgres", frozenset({"-c", "--command"})),
    "vsql": ("postgres", frozenset({"-c", "--command"})),
    "usql": (None, frozenset({"-c", "--command"})),
    "mycli": ("mysql", frozenset({"-e", "--execute"})),
    "litecli": ("sqlite", frozenset({"-e", "--execute"})),
    "osql": ("tsql", frozenset({"-q", "-Q"})),
    "trino": ("trino", frozenset({"--execute"})),
    "presto": ("presto", frozenset({"--execute"})),
    "beeline": ("hive", frozenset({"-e"})),
    "hive": ("hive", frozenset({"-e"})),
    "spark-sql": ("spark", frozenset({"-e"})),
    "impala-shell": (None, frozenset({"-q", "--query"})),
}
"""Client → its SQL dialect and the options whose value is SQL."""
_POSITIONAL = frozenset({"sqlite3", "duckdb", "bq"})
_EMBEDDED = frozenset({"sqlite3", "duckdb"})
"""Clients whose database runs inside them: a file it writes is written here, not on a server
(system files still count: they are the shell rules' and the SQL rules' alike)."""
"""Clients that take SQL as a plain argument after the database (``bq query '…'``)."""
_MAX_TEXTS = 8


def client_sql(cmd: Cmd) -> tuple[str | None, list[str]]:
    """The SQL dialect of ``cmd``'s database client and the SQL texts its arguments carry
    (``--command=…`` and ``-c…`` forms too); no texts for any other program."""
    known = _CLIENTS.get(cmd.name)
    if known is None:
        return None, []
    dialect, options = known
    argv = cmd.argv
    texts: list[str] = []
    plain: list[str] = []
    i = 1
    while i < len(argv) and len(texts) < _MAX_TEXTS:
        word = argv[i]
        name, eq, value = word.partition("=")
        if word in options and i + 1 < len(argv):
            texts.append(argv[i + 1])
            i += 2
            continue
        if eq and name in options:
            texts.append(value)
        elif not word.startswith("--") and word[:2] in options and len(word) > 2:
            texts.append(word[2:])
        elif not word.startswith("-"):
            plain.append(word)
        i += 1
    if cmd.name in _POSITIONAL:  # after the database file (``bq``: after ``query``)
        texts.extend(p for p in plain[1:] if p.strip())
    if cmd.stdin is not None and cmd.stdin.strip() and len(texts) < _MAX_TEXTS:
        texts.append(cmd.stdin)  # a heredoc, a here-string, ``echo '…' |``: read as a script
    return dialect, [t for t in texts if t.strip()][:_MAX_TEXTS]


@rule
def database_statements(cmd: Cmd, ctx: Context) -> Iterator[Flag]:
    """Destructive statements, privilege changes, the server's files and commands, injection
    shapes and credential reads in the SQL a database client is given."""
    dialect, texts = client_sql(cmd)
    if not texts:
        return
    from .sql import review_sql  # sqlglot is loaded only when a client carries SQL

    for text in texts:
        for issue in review_sql(text, dialect)[:3]:
            if issue.kind == "unreadable":
                continue
            if cmd.name in _EMBEDDED and issue.title.startswith("writes server file"):
                continue  # the "server" is this process: an export into the working folder
            make = critical if issue.severity is Severity.CRITICAL else high
            if issue.severity in (Severity.CRITICAL, Severity.HIGH):
                yield make(
                    issue.title,
                    cmd.text,
                    f"{cmd.name} runs it: {issue.detail}",
                    "Ask a human; back up first.",
                )
