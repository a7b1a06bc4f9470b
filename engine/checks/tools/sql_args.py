"""Where a tool call's SQL is: a SQL tool's statement arguments, arguments named ``sql`` or
``query`` of any tool, any string argument that clearly is SQL (a statement keyword first, and
sqlglot reads it), and ``query=`` of an HTTP tool's URL. Also the dialect and whether the target
looks like production, from the call's other arguments."""

from __future__ import annotations

import re
from collections.abc import Iterator
from urllib.parse import parse_qsl

from humangr.contracts import ToolKind

from .sql_carried import carried_strings
from .sql_exec_comments import opened
from .sql_heads import HEADS
from .sql_lex import TokKind, lex
from .sql_parse import dialect_of, read_sql
from .sql_words import BENIGN_HEADS, OS_PROCEDURES, SESSION_HEADS
from .view import ToolView

__all__ = ["MAX_STRICT", "clearly_sql", "production_target", "sql_dialect", "sql_texts"]

_LOOSE_ARGS = ("text", "stmt", "sql_text", "q", "body", "code", "expression")
"""Other names a SQL tool gives its statement (``run_sql(text=…)``): read when the value opens
with a statement's keyword."""
_STATEMENT_ARGS = (
    "query",
    "sql",
    "statement",
    "statements",
    "queries",
    "sql_query",
    "command",
    "script",
    "input",
    *_LOOSE_ARGS,
)
_NAMED = ("sql", "query", "statement", "sql_query", "statements", "queries")
_DIALECT_ARGS = (
    "dialect",
    "engine",
    "database_type",
    "db_type",
    "driver",
    "dbms",
    "db_engine",
    "database_engine",
    "flavor",
    "connection_type",
    "type",
)
_CONTEXT_ARGS = (
    "database",
    "db",
    "connection",
    "connection_string",
    "dsn",
    "env",
    "environment",
    "host",
    "server",
    "target",
    "profile",
    "database_url",
    "conn",
    "datasource",
    "cluster",
    "instance",
    "project",
    "warehouse",
    "connection_id",
    "db_url",
)
_PRODUCTION = re.compile(r"(?i)(?:^|[^a-z])(?:prod|production|prd|live)(?:[^a-z]|$)")
_TNS_PRODUCTION = re.compile(r"^[A-Z][A-Z0-9]{1,20}(?:PRD|PROD)\d{0,2}$")
"""An upper-case service name that ends in production (Oracle's ``BILLPRD``, ``CISPROD1``)."""
_STRICT_HEADS = frozenset(
    {"SELECT", "INSERT", "UPDATE", "DELETE", "DROP", "TRUNCATE", "ALTER", "CREATE", "GRANT",
     "REVOKE", "MERGE", "WITH", "REPLACE", "COPY", "EXEC", "EXECUTE", "UPSERT"}
)  # fmt: skip
_SKIPPED_KINDS = (
    ToolKind.SHELL,
    ToolKind.FILE_WRITE,
    ToolKind.FILE_EDIT,
    ToolKind.FILE_READ,
    ToolKind.FILE_DELETE,
    ToolKind.EMAIL,
    ToolKind.CODE,
)
_MAX_TEXTS = 64
_MAX_PAYLOAD = 4_096
_URL_ARGS = frozenset({"url", "uri", "endpoint", "href", "link", "target_url", "request_url"})
_INJECTION_HINT = re.compile(
    r"""['"`].*(?:\b(?:or|and|union|select|sleep|waitfor)\b|--|#|/\*|;)""", re.I | re.S
)
MAX_STRICT = 20_000
_FORM_BODY = re.compile(r"[\w.\[\]-]{1,64}=[^&\n]*(?:&[\w.\[\]-]{1,64}=[^&\n]*)*")
"""A form-encoded body (``query=DROP+TABLE+t&db=prod``): its values are read as a URL's are."""


def sql_dialect(view: ToolView) -> str | None:
    """The sqlglot dialect the call names (``dialect``, ``engine``, a connection URL's scheme)."""
    for name in _DIALECT_ARGS:
        got = view.text(name)
        if got is not None and (d := dialect_of(got[1])) is not None:
            return d
    for name in ("connection_string", "dsn", "database_url", "url", "db_url", "uri"):
        got = view.text(name)
        if got is not None and "://" in got[1]:
            return dialect_of(got[1].split("://", 1)[0])
    return dialect_of(view.name.split("_", 1)[0]) or dialect_of(view.name.split("__")[-1])


def production_target(view: ToolView) -> bool:
    """The call's database, connection or environment argument names production."""
    for name in _CONTEXT_ARGS:
        got = view.get(name)
        if got is not None and isinstance(got[1], str) and _PRODUCTION.search(got[1][:512]):
            return True
        if got is not None and isinstance(got[1], str) and _TNS_PRODUCTION.match(got[1].strip()):
            return True
    return False


def _after_comments(text: str) -> str:
    """``text`` past the comments it opens with (``-- note``, ``/* … */``)."""
    k = 0
    for _ in range(32):
        while k < len(text) and text[k].isspace():
            k += 1
        if text.startswith("--", k):
            end = text.find("\n", k)
            k = len(text) if end == -1 else end + 1
        elif text.startswith("/*", k) and not text.startswith("/*!", k):
            end = text.find("*/", k + 2)
            k = len(text) if end == -1 else end + 2
        else:
            break
    return text[k:]


def _first_word(text: str) -> str:
    text = _after_comments(text[:4_096])
    m = re.match(r"\s*(?:\(\s*)*([A-Za-z_]+)", text[:200])
    return m.group(1).upper() if m else ""


def clearly_sql(text: str) -> bool:
    """A string that is SQL beyond doubt: a statement keyword first, and sqlglot reads its
    first statement (which must end within the first ``MAX_STRICT`` characters)."""
    text = opened(text[:MAX_STRICT]) + text[MAX_STRICT:] if "/*" in text[:200] else text
    if _first_word(text) not in _STRICT_HEADS:
        return False
    lexed = lex(text[:MAX_STRICT])
    if not lexed.statements or any("unterminated" in p for p in lexed.problems):
        return False
    stmt = lexed.statements[0]
    if len(text) > MAX_STRICT and stmt.end >= len(lexed.text):
        return False  # the first statement runs past what is read
    _, parsed = read_sql(lexed.text[stmt.start : stmt.end])
    if not parsed:
        return False
    first = parsed[0]
    words = first.stmt.words(40)
    head = words[0] if words else ""
    toks = first.stmt.tokens
    if head in ("EXEC", "EXECUTE"):
        name = words[1] if len(words) > 1 else ""
        return not first.error and ("_" in name or "." in first.text or name in OS_PROCEDURES)
    if head == "COPY":
        return any(
            (t.upper in ("TO", "FROM") and toks[k + 1].kind is TokKind.STRING)
            or toks[k + 1].upper in ("STDIN", "STDOUT", "PROGRAM")
            for k, t in enumerate(toks[:-1])
        )
    if first.tree is None:
        return not first.error and (
            (head == "GRANT" and "TO" in words and "ON" in words)
            or (head == "REVOKE" and "FROM" in words and "ON" in words)
        )
    need = {"DELETE": "FROM", "UPDATE": "SET", "INSERT": "INTO", "REPLACE": "INTO"}.get(head)
    return need is None or need in words


def sql_texts(view: ToolView) -> Iterator[tuple[str, str, bool]]:
    """``(argument, text, whole)`` for each SQL text of the call: a SQL tool's statements and
    any other string argument that clearly is SQL (``whole``: review it as SQL), and strings an
    HTTP, MCP or unknown tool sends that may be injection payloads (``whole`` False: read only
    as a payload)."""
    if view.kind in _SKIPPED_KINDS or "search" in view.name.lower():
        return
    seen: set[str] = set()
    guessed = view.kind is ToolKind.SQL and view.kind_from_arguments
    if view.kind is ToolKind.SQL:
        for name in _STATEMENT_ARGS:
            got = view.get(name)
            if got is None:
                continue
            arg, value = got
            if (guessed or name in _LOOSE_ARGS) and not (
                isinstance(value, str) and _sql_head(value)
            ):
                continue  # a `query` of a metrics or issue tracker (``is:unresolved``): not SQL
            if isinstance(value, str) and value.strip():
                seen.add(arg)
                yield arg, value, True
            elif isinstance(value, list):
                seen.add(arg)
                for i, item in enumerate(value[:_MAX_TEXTS]):
                    if isinstance(item, str) and item.strip():
                        yield f"{arg}[{i}]", item, True
    payloads = view.kind is not ToolKind.SQL or guessed
    count = 0
    for path, text in view.strings():
        if count >= _MAX_TEXTS:
            return
        if path.split(".", 1)[0].split("[", 1)[0] in seen or not text.strip():
            continue
        count += 1
        if path.lower() in _URL_ARGS and "?" in text:
            yield from _url_queries(path, text, payloads)
        elif clearly_sql(text):
            yield path, text, True
        elif inner := list(carried_strings(text))[:_MAX_TEXTS]:
            yield from ((path + k, t, True) for k, t in inner if clearly_sql(t))
        elif "=" in text[:64] and _FORM_BODY.fullmatch(text.strip()[:MAX_STRICT]):
            yield from _url_queries(path, "?" + text, payloads)  # ``query=DROP+TABLE+t&db=x``
        elif payloads and _INJECTION_HINT.search(text[:_MAX_PAYLOAD]) and len(text) <= _MAX_PAYLOAD:
            yield path, text, False


def _url_queries(argument: str, url: str, payloads: bool) -> Iterator[tuple[str, str, bool]]:
    """SQL (``?query=DROP …``) and injection payloads (``?id=1' OR '1'='1``) in a URL's query."""
    query = url.split("?", 1)[1].split("#", 1)[0][:MAX_STRICT]
    for _, value in parse_qsl(query, keep_blank_values=False)[:32]:
        if clearly_sql(value):
            yield argument, value, True
        elif payloads and len(value) <= _MAX_PAYLOAD and _INJECTION_HINT.search(value):
            yield argument, value, False


_STATEMENT_WORDS = frozenset(HEADS) | BENIGN_HEADS | SESSION_HEADS | frozenset(
    {"SELECT", "WITH", "INSERT", "UPDATE", "DELETE", "MERGE", "CREATE", "ALTER", "DROP",
     "TRUNCATE", "GRANT", "REVOKE", "CALL", "EXEC", "EXECUTE", "COPY", "EXPORT", "UNLOAD",
     "LOAD", "REPLACE", "UPSERT", "SET", "RENAME", "ATTACH", "DETACH", "UNDROP"}
)  # fmt: skip
"""The first words of SQL statements: every head a rule is keyed on, and the common verbs."""
_HEAD = re.compile(r"\s*(?:--[^\n]*\n\s*|/\*.*?\*/\s*)*\(?\s*([A-Za-z]+)", re.DOTALL)


def _sql_head(text: str) -> bool:
    """Whether ``text`` opens with a SQL statement's keyword (comments aside): the test for a
    ``query`` argument of a tool not named for SQL (``is:unresolved`` is a search)."""
    if clearly_sql(text):
        return True
    m = _HEAD.match(text[:4_096])
    word = m.group(1).upper() if m is not None else ""
    return word in _STATEMENT_WORDS
