"""Rules keyed on a statement's first keyword: DROP, TRUNCATE, ALTER, CREATE, GRANT/REVOKE,
SET (roles, passwords, server settings), EXEC (dangerous procedures), COPY, LOAD, ATTACH,
SHUTDOWN. Read from the tokens, so they hold for every dialect and for SQL sqlglot cannot
parse."""

from __future__ import annotations

from collections.abc import Callable, Iterator

from humangr.contracts import Severity

from .egress_files import system_file
from .sql_access_narrow import account_lock, bare_role, login_disabled, revoke
from .sql_heads_access import backup, grant, no_audit, security_control
from .sql_heads_sessions import kill, one_session
from .sql_issue import C, H, Issue, after, all_words, fragment, object_names, word_at
from .sql_lex import Tok, TokKind
from .sql_overwrite import insert
from .sql_parse import Parsed
from .sql_scope import cache_table, test_database, throwaway_schema, transient_table
from .sql_session import set_statement
from .sql_words import ADMIN_ROLES, OS_PROCEDURES, UNTRUSTED_LANGUAGES, dated_scratch, scratch_name

__all__ = ["HEADS"]

_DATA_OBJECTS = frozenset({"TABLE", "DATABASE", "SCHEMA", "KEYSPACE", "TABLESPACE", "COLLECTION"})
_PRIV_OBJECTS = frozenset({"USER", "ROLE", "LOGIN", "GROUP", "OWNED"})
_STORES = ("s3://", "gs://", "gcs://", "azure://", "wasbs://", "abfss://", "https://", "http://")
_SAFE_ATTACH = (".db", ".sqlite", ".sqlite3", ".duckdb", ":memory:", "")
Rule = Callable[[Parsed, int, bool], Iterator[Issue]]


def _drop(p: Parsed, i: int, production: bool) -> Iterator[Issue]:
    toks = p.stmt.tokens
    j, temporary = i + 1, False
    while j < len(toks) and toks[j].upper in ("TEMPORARY", "TEMP", "MATERIALIZED", "EXTERNAL"):
        temporary = temporary or toks[j].upper in ("TEMPORARY", "TEMP")
        j += 1
    what = toks[j].upper if j < len(toks) else ""
    names = object_names(toks, j + 1)
    shown = ", ".join(names)[:80] or "?"
    if what in _PRIV_OBJECTS:
        yield Issue(C, f"drops {what.lower()} {shown}", fragment(p), "privilege")
    elif what in _DATA_OBJECTS:
        if temporary or (names and all(n.startswith("#") for n in names)):
            return
        if what == "TABLE" and names and all(throwaway_schema(n) for n in names):
            return  # a scratch or test schema's table: rebuilt at will
        if what == "DATABASE" and not production and names and all(map(test_database, names)):
            return  # ``acme_test``, ``ci_run_42``: a test database, rebuilt for every run
        if what == "TABLE" and names and all(map(dated_scratch, names)):
            return  # one day's scratch table of a job (``tmp_segment_20240610``), even live
        if names and all(scratch_name(n) for n in names) and what == "TABLE":
            yield Issue(H, f"drops scratch table {shown}", fragment(p), "change")
        else:
            yield Issue(C, f"drops {what.lower()} {shown} and its data", fragment(p), "destroy")
    elif what:
        yield Issue(H, f"drops {what.lower()} {shown}", fragment(p), "change")


def _truncate(p: Parsed, i: int, production: bool) -> Iterator[Issue]:
    names = object_names(p.stmt.tokens, i + 1)
    shown = ", ".join(names)[:80] or "?"
    if names and all(throwaway_schema(n) or transient_table(n) for n in names):
        return  # a scratch schema's table, or a load's landing table emptied to be refilled
    if names and all(scratch_name(n) or cache_table(n) for n in names):
        return  # a temporary or cache table (``tmp_rate_calc``, ``cache_page``) is refilled
    else:
        yield Issue(C, f"empties table {shown} (TRUNCATE)", fragment(p), "destroy")


def _alter(p: Parsed, i: int, production: bool) -> Iterator[Issue]:
    toks = p.stmt.tokens
    what = toks[i + 1].upper if i + 1 < len(toks) else ""
    words = [t.upper for t in toks[i + 2 :] if t.kind is TokKind.WORD and t.depth == 0]
    if login_disabled(what, words):
        return  # an ordinary account's sign-in switched off: access cut
    if account_lock(what, words):
        if words[2] == "LOCK":
            return  # an ordinary account locked: access cut, the containment step
        yield Issue(  # unlocked: access given back, locked by whom and why the call cannot say
            H, "unlocks an account", fragment(p), "privilege"
        )
        return
    if what in ("USER", "ROLE", "LOGIN", "GROUP", "AUTHORIZATION") or words[:1] == ["PRIVILEGES"]:
        yield Issue(
            C, f"changes {what.lower()} privileges or credentials", fragment(p), "privilege"
        )
        return
    control = security_control(what, list(toks[i + 2 :]))
    if control is not None:
        yield Issue(control[0], control[1], fragment(p), "privilege")
        return
    if what == "DEFAULT" or (what == "SERVER" and "ROLE" in words[:1]):
        yield Issue(C, "changes default privileges or server roles", fragment(p), "privilege")
        return
    if what == "SYSTEM":
        if one_session(toks[i + 2 : i + 8]):
            return  # one session by its sid and serial: the runaway one a person found
        bad = {
            "ARCHIVE_COMMAND",
            "RESTORE_COMMAND",
            "SHARED_PRELOAD_LIBRARIES",
            "SSL_PASSPHRASE_COMMAND",
            "LOCAL_PRELOAD_LIBRARIES",
            "SESSION_PRELOAD_LIBRARIES",
        }
        sev = C if bad & set(words) else H
        yield Issue(sev, "changes the server's configuration (ALTER SYSTEM)", fragment(p), "server")
        return
    if what == "SHARE" and "ACCOUNTS" in words and ({"ADD", "SET"} & set(words)):
        yield Issue(H, "shares data with another account", fragment(p), "change")
        return
    if what != "TABLE":
        if production and what:
            yield Issue(H, f"changes {what.lower()} in production", fragment(p), "change")
        return
    target = ", ".join(object_names(toks, i + 2))[:60] or "?"
    for k, w in enumerate(words):
        nxt = words[k + 1] if k + 1 < len(words) else ""
        if (w == "DROP" and nxt in ("PARTITION", "COLUMN")) or (
            w == "DROP"
            and nxt
            and nxt
            not in (
                "CONSTRAINT",
                "INDEX",
                "KEY",
                "PRIMARY",
                "FOREIGN",
                "DEFAULT",
                "CHECK",
                "NOT",
                "IDENTITY",
                "EXPRESSION",
                "UNIQUE",
                "ROW",
                "TRIGGER",
            )
        ):
            yield Issue(C, f"drops a column or partition of {target}", fragment(p), "destroy")
            return
    if {"SWAP", "EXCHANGE", "SWITCH"} & set(words) and not throwaway_schema(target):
        yield Issue(H, f"swaps {target}'s rows with another table's", fragment(p), "change")
    elif "DROP" in words or "RENAME" in words or "DISABLE" in words or "TYPE" in words:
        yield Issue(H, f"changes the structure of {target}", fragment(p), "change")
    elif {"MODIFY", "CHANGE"} & set(words):
        yield Issue(H, f"changes columns of {target}", fragment(p), "change")
    elif production:
        yield Issue(H, f"changes the structure of {target} in production", fragment(p), "change")


def _create(p: Parsed, i: int, production: bool) -> Iterator[Issue]:
    toks = p.stmt.tokens
    words = [t.upper for t in toks[i + 1 :] if t.kind is TokKind.WORD][:40]
    lead = [
        w
        for w in words[:6]
        if w
        not in (
            "OR",
            "REPLACE",
            "TEMP",
            "TEMPORARY",
            "UNIQUE",
            "UNLOGGED",
            "GLOBAL",
            "LOCAL",
            "SECURE",
            "TRANSIENT",
            "MATERIALIZED",
            "DEFINER",
        )
    ]
    what = lead[0] if lead else ""
    if bare_role(words):
        return  # a name to grant rights to: no login, password nor admin attribute
    if what in ("USER", "ROLE", "LOGIN", "GROUP"):
        yield Issue(
            C, f"creates {what.lower()} {' '.join(words[1:2]).lower()}", fragment(p), "privilege"
        )
    elif what in ("FUNCTION", "PROCEDURE") and (
        after(words, "LANGUAGE") in UNTRUSTED_LANGUAGES or "EXTERNAL" in words
    ):
        yield Issue(
            C,
            "creates a function in an untrusted language (runs code on the server)",
            fragment(p),
            "server",
        )
    elif what == "ASSEMBLY":
        yield Issue(C, "loads a CLR assembly (runs code on the server)", fragment(p), "server")
    elif (
        what == "EXTENSION"
        and words
        and {"DBLINK", "PLPYTHON3U", "PLPYTHONU", "PLPERLU", "ADMINPACK", "FILE_FDW", "PLSH"}
        & set(words)
    ):
        yield Issue(
            H,
            "creates an extension that reaches the server's files or network",
            fragment(p),
            "server",
        )
    elif what == "TABLE" and words[:2] == ["OR", "REPLACE"] and not _scratch_created(toks, i):
        yield Issue(H, "replaces a table and the data in it", fragment(p), "change")
    elif (
        production
        and what in ("INDEX", "TRIGGER", "FUNCTION", "PROCEDURE", "VIEW")
        and not (what == "INDEX" and _online_index(words, toks))
    ):
        yield Issue(H, f"creates {what.lower()} in production", fragment(p), "change")


def _online_index(words: list[str], toks: tuple[Tok, ...]) -> bool:
    """``CREATE INDEX CONCURRENTLY …`` (PostgreSQL), ``… WITH (ONLINE = ON)`` (SQL Server) or
    ``… ONLINE`` (Oracle): an index built without locking the table's writes, which changes no
    row and no result (not a ``UNIQUE`` one: that makes writes with duplicates fail)."""
    if "UNIQUE" in words[:3]:
        return False
    return (
        "CONCURRENTLY" in words[:3]
        or any(words[k : k + 2] == ["ONLINE", "ON"] for k in range(len(words) - 1))
        or any(t.depth == 0 and t.upper == "ONLINE" for t in toks[:200])
    )


def _scratch_created(toks: tuple[Tok, ...], i: int) -> bool:
    """``CREATE OR REPLACE TABLE scratch_x.t``: the table made lies in a scratch schema, or
    is a session's temporary table (``CREATE OR REPLACE TEMPORARY TABLE``: gone with it)."""
    k = word_at(toks, "TABLE", i)
    if k != -1 and {t.upper for t in toks[i + 1 : k]} & {"TEMP", "TEMPORARY"}:
        return True
    names = object_names(toks, k + 1) if k != -1 else []
    return bool(names) and throwaway_schema(names[0])


def _exec(p: Parsed, i: int, production: bool) -> Iterator[Issue]:
    toks = p.stmt.tokens
    words = [t.upper for t in toks[i + 1 :] if t.kind is TokKind.WORD][:8]
    values = {t.text.strip("'\"`[]N").lower() for t in toks[i + 1 : i + 8]}
    if words[:1] == ["AS"] and values & ADMIN_ROLES:
        yield Issue(C, "impersonates an administrator (EXECUTE AS)", fragment(p), "privilege")
        return
    proc = set(words[:4]) & OS_PROCEDURES
    if proc:
        name = sorted(proc)[0].lower()
        yield Issue(
            C, f"runs {name} (operating-system commands, logins or roles)", fragment(p), "server"
        )


def _copy(p: Parsed, i: int, production: bool) -> Iterator[Issue]:
    toks = p.stmt.tokens
    words = all_words(p.stmt)
    if "PROGRAM" in words:
        yield Issue(C, "runs a shell command on the server (COPY … PROGRAM)", fragment(p), "server")
        return
    for k, t in enumerate(toks[i:], start=i):
        if t.kind is TokKind.WORD and t.upper in ("TO", "FROM", "INTO") and k + 1 < len(toks):
            nxt = toks[k + 1]
            if t.upper == "INTO" and nxt.kind is TokKind.PARAM and nxt.text.startswith("@"):
                yield Issue(H, f"unloads rows to stage {nxt.text[:40]}", fragment(p), "change")
                return
            if nxt.kind is not TokKind.STRING:
                continue
            path = nxt.text.strip("'")
            if path.lower().startswith(_STORES):
                if t.upper == "INTO":
                    yield Issue(H, "unloads data to external storage", fragment(p), "change")
            elif system_file(path):
                yield Issue(C, f"reads or writes server file {path[:60]}", fragment(p), "server")
            elif t.upper == "TO":
                yield Issue(H, f"writes server file {path[:60]}", fragment(p), "server")
            return


def _export(p: Parsed, i: int, production: bool) -> Iterator[Issue]:
    """BigQuery's ``EXPORT DATA OPTIONS (uri = 'gs://…')``, Redshift's ``UNLOAD … TO 's3://…'``:
    a query's rows written to storage outside the database."""
    for t in p.stmt.tokens[i + 1 :]:
        if t.kind is TokKind.STRING and t.text.strip("'\"").lower().startswith(_STORES):
            yield Issue(H, "exports data to external storage", fragment(p), "change")
            return


def _load(p: Parsed, i: int, production: bool) -> Iterator[Issue]:
    toks = p.stmt.tokens
    k = word_at(toks, "INFILE", i)
    if k != -1 and k + 1 < len(toks) and toks[k + 1].kind is TokKind.STRING:
        path = toks[k + 1].text.strip("'\"")
        if system_file(path):
            yield Issue(C, f"loads server file {path[:60]} into a table", fragment(p), "server")


def _attach(p: Parsed, i: int, production: bool) -> Iterator[Issue]:
    path = next((t.text.strip("'\"") for t in p.stmt.tokens[i:] if t.kind is TokKind.STRING), "")
    low = path.lower()
    if low.endswith(
        (".php", ".jsp", ".asp", ".aspx", ".sh", ".py", ".pl", ".cgi", "authorized_keys")
    ) or system_file(path):
        yield Issue(C, f"writes a database file to {path[:60]}", fragment(p), "server")
    elif not low.endswith(_SAFE_ATTACH) and "." in low.rsplit("/", 1)[-1]:
        yield Issue(H, f"attaches {path[:60]} as a database", fragment(p), "change")


def _simple(sev: Severity, title: str, kind: str) -> Rule:
    def rule(p: Parsed, i: int, production: bool) -> Iterator[Issue]:
        yield Issue(sev, title, fragment(p), kind)

    return rule


HEADS: dict[str, Rule] = {
    "ALTER": _alter,
    "CREATE": _create,
    "DROP": _drop,
    "TRUNCATE": _truncate,
    "GRANT": grant,
    "INSERT": insert,
    "BACKUP": backup,
    "NOAUDIT": no_audit,
    "REVOKE": revoke,
    "DENY": _simple(C, "denies privileges", "privilege"),
    "SET": set_statement,
    "EXEC": _exec,
    "EXECUTE": _exec,
    "CALL": _exec,
    "COPY": _copy,
    "EXPORT": _export,
    "UNLOAD": _export,
    "LOAD": _load,
    "ATTACH": _attach,
    "SHUTDOWN": _simple(C, "shuts the database server down", "server"),
    "KILL": kill,
    "PURGE": _simple(H, "purges the server's logs", "change"),
    "RESTORE": _simple(H, "restores a database over the existing one", "change"),
    "SETUSER": _simple(C, "impersonates another user (SETUSER)", "privilege"),
}
