"""What one SQL statement would do, and how bad that is: the rules of ``tool-sql``.

Each statement is read from its tokens (which every dialect and every unparseable text has;
``sql_heads`` keys rules on the first keyword) and, when sqlglot parsed it, from its tree
(conditions, projections, UNIONs). Severity follows the gate: irreversible destruction,
privilege changes, the server's files and commands and injection shapes are critical; risky
but legitimate changes are high; everyday SQL is nothing.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from sqlglot import exp

from humangr.contracts import Severity

from .sql_ast import (
    always_true,
    bare_credentials,
    credential_reads,
    every_row,
    limit_of,
    live_rows,
    or_tautology,
    table_names,
    union_shape,
)
from .sql_controls import control_rows
from .sql_guard_rows import guard_rows
from .sql_heads import HEADS
from .sql_issue import (
    C,
    H,
    Issue,
    all_words,
    called_names,
    first_word,
    fragment,
    object_names,
    word_at,
)
from .sql_maintenance import read_only_check
from .sql_mass import AUDIT_TABLE, housekeeping, mass_changes, narrow_statement, narrow_where
from .sql_mass_status import mass_status
from .sql_merge_all import merge_all
from .sql_parse import Parsed
from .sql_routine import one_owner
from .sql_rules_tokens import dot_command, token_tautology
from .sql_scope import Target
from .sql_stated_amount import stated_amounts
from .sql_values import value_changes
from .sql_words import (
    BENIGN_HEADS,
    FILE_FUNCTIONS,
    OS_FUNCTIONS,
    OS_PROCEDURES,
    SCHEMA_TABLES,
    SESSION_HEADS,
    SLEEP_FUNCTIONS,
    credential_column,
    personal_table,
)

__all__ = ["Issue", "statement_issues"]

_ROLE_COLUMNS = frozenset(
    {"role", "roles", "is_admin", "is_superuser", "is_staff", "admin", "superuser",
     "permissions", "privileges", "user_role", "access_level", "is_root", "groups"}
)  # fmt: skip
_BANK_COLUMN = re.compile(
    r"(?:^|_)(?:iban|swift|bic|routing(?:_number)?|sort_code|bank_account\w*|payout_account|"
    r"beneficiary\w*|wallet_address)$"
)
"""Columns that say where money is paid: changing them redirects payments."""
_ADDS = frozenset({"INSERT", "UPSERT", "REPLACE"})
"""Statements that only add rows: one sqlglot cannot parse is read from its tokens alone."""
_HANDLED = frozenset({"DELETE", "UPDATE", "MERGE"})
_REBUILT = frozenset({"destroy", "change"})
"""What a statement does to a throwaway (test, CI, scratch) database's data: rebuilt at will."""


def _target(node: exp.Expression) -> str:
    t = node.this
    return t.sql()[:60] if isinstance(t, exp.Expression) else "?"


def _writes(p: Parsed) -> Iterator[Issue]:
    """DELETE and UPDATE of every row: no WHERE, or one that is always true."""
    if p.tree is None:
        return
    yield from merge_all(p)
    for n, node in enumerate(p.tree.find_all(exp.Delete, exp.Update)):
        if n > 20:
            break
        if node.find_ancestor(exp.Merge) is not None:
            continue  # MERGE's WHEN MATCHED THEN UPDATE/DELETE acts on matched rows only
        verb = "DELETE" if isinstance(node, exp.Delete) else "UPDATE"
        where, target = node.args.get("where"), _target(node)
        kept = every_row(where, node.this)
        if where is None and node.args.get("limit") is not None:
            yield Issue(
                H, f"{verb} of {target} without WHERE (only a LIMIT)", fragment(p), "change"
            )
        elif where is None:
            yield Issue(C, f"{verb} without WHERE on {target}: every row", fragment(p), "destroy")
        elif always_true(where) or kept == "every":
            yield Issue(C, f"{verb} on {target} with an always-true WHERE", fragment(p), "destroy")
        elif kept == "row-independent":
            yield Issue(
                H,
                f"{verb} on {target} with a WHERE that reads nothing of the row",
                fragment(p),
                "change",
            )
        elif kept == "set":
            yield Issue(
                H,
                f"{verb} on {target} with a WHERE that only asks for a set column: nearly "
                "every row",
                fragment(p),
                "change",
            )
        elif AUDIT_TABLE.search(target):
            yield Issue(
                C if verb == "DELETE" else H,
                f"{verb} of audit records ({target})",
                fragment(p),
                "destroy",
            )
        elif isinstance(node, exp.Update):
            sets = {
                e.this.name.lower()
                for e in node.expressions
                if isinstance(e, exp.EQ) and isinstance(e.this, exp.Column)
            }
            touched = sorted(
                c
                for c in sets
                if c in _ROLE_COLUMNS or credential_column(c) or _BANK_COLUMN.search(c)
            )
            if touched:
                yield Issue(
                    H, f"UPDATE sets {', '.join(touched)[:60]} on {target}", fragment(p), "change"
                )


def _writes_unparsed(p: Parsed, head: str, i: int) -> Iterator[Issue]:
    toks = p.stmt.tokens
    if word_at(toks, "WHERE", i) == -1:
        names = object_names(toks, i + (2 if head == "DELETE" else 1))
        target = ", ".join(names)[:60] or "?"
        yield Issue(C, f"{head} without WHERE on {target}: every row", fragment(p), "destroy")


def _anywhere(p: Parsed) -> Iterator[Issue]:
    """Rules for any statement, whatever it starts with: the server's files and commands,
    delays (time-based injection), ``INTO OUTFILE``."""
    calls = called_names(p.stmt)
    words = all_words(p.stmt)
    wordset = set(words)
    if found := sorted(calls & FILE_FUNCTIONS):
        yield Issue(
            C, f"reads or writes the server's files ({found[0].lower()})", fragment(p), "server"
        )
    if found := sorted((calls & OS_FUNCTIONS) | (wordset & OS_PROCEDURES)):
        yield Issue(
            C,
            f"runs commands or connections from the server ({found[0].lower()})",
            fragment(p),
            "server",
        )
    if "OUTFILE" in wordset or "DUMPFILE" in wordset:
        yield Issue(C, "writes a file on the server (INTO OUTFILE)", fragment(p), "server")
    if calls & SLEEP_FUNCTIONS or ("WAITFOR" in wordset and "DELAY" in wordset):
        yield Issue(
            H,
            "delays the server on purpose (time-based injection shape)",
            fragment(p),
            "injection",
        )
    if "SOURCE" in wordset and "MATCHED" in wordset and "DELETE" in wordset:
        yield Issue(H, "MERGE deletes every row missing from the source", fragment(p), "change")


_FEW_ROWS = 10
"""A production read of a people table with no condition may show this many rows unasked."""


def _catalog(table: str) -> bool:
    """A view of the server's own catalogue (``sys.databases``, ``pg_stat_activity``,
    ``information_schema.tables``): a status listing, not a table of records."""
    first = table.split(".", 1)[0].strip('`"[]')
    if first in ("pg_shadow", "pg_authid", "pg_user_mapping"):
        return False  # password hashes and remote credentials, not a status listing
    return first in SCHEMA_TABLES or first.startswith(("pg_", "v$", "gv$", "dm_", "dba_", "cdb_"))


def _pinned(select: exp.Select, where: exp.Expression | None) -> bool:
    """A SELECT's WHERE that picks one row by its key or one owner's rows (``user_id = $1``)."""
    if where is None:
        return False
    table = next(iter(table_names(select)), "")
    if narrow_where(where, table) or one_owner(where, table):
        return True
    stack: list[exp.Expression] = [where.this if isinstance(where, exp.Where) else where]
    while stack and len(stack) < 64:
        e = stack.pop()
        if isinstance(e, exp.And | exp.Paren):
            stack.extend(x for x in (e.this, e.args.get("expression")) if x is not None)
        elif (
            isinstance(e, exp.EQ)
            and isinstance(e.this, exp.Column)
            and _ONE_ID.search(e.this.name.lower())
            and not _GROUP_ID.search(e.this.name.lower())
            and (
                isinstance(e.expression, exp.Literal | exp.Placeholder | exp.Parameter)
                or (
                    isinstance(e.expression, exp.Column)
                    and e.expression.name.startswith(("$", ":", "?", "@"))
                )
            )
        ):
            return True
    return False


_ONE_ID = re.compile(r"(?:^|_)(?:id|uuid)$")
_GROUP_ID = re.compile(
    r"(?:^|_)(?:tenant|org|organi[sz]ation|company|group|team|project|workspace|department|"
    r"dept|region|site|school|district|realm|domain|partner)_(?:id|uuid)$"
)
"""Ids of a whole group of people (``tenant_id = 5``): every member's credentials, not one."""


def _reads(p: Parsed, production: bool) -> Iterator[Issue]:
    """Bulk reads of credentials, injection shapes in SELECTs."""
    tree = p.tree
    if tree is None:
        return
    shape = union_shape(tree)
    if shape is not None:
        what, detail = shape
        sev = C if what == "credentials" else H
        title = {
            "credentials": f"UNION SELECT reads credentials ({detail})",
            "schema": f"UNION SELECT reads the schema catalogue ({detail})",
            "recon": f"UNION SELECT reads server details ({detail})",
            "padding": "UNION SELECT padded with constants (injection shape)",
        }[what]
        yield Issue(
            sev, title, fragment(p), "credentials" if what == "credentials" else "injection"
        )
    for n, select in enumerate(tree.find_all(exp.Select)):
        if n > 50:
            break
        where = select.args.get("where")
        taut = or_tautology(where)
        cols, creds = credential_reads(select)
        from_tables = [t.sql().lower() for t in select.find_all(exp.Table)][:20]
        personal = any(personal_table(t) for t in from_tables)
        if taut is not None:
            sev = C if cols or creds or personal else H
            yield Issue(
                sev,
                f"WHERE made always true by OR {taut[:40]} (injection shape)",
                fragment(p),
                "injection",
            )
        unrestricted = where is None or always_true(where) or taut is not None
        limit = limit_of(select)
        if (cols or creds) and (unrestricted or live_rows(where)):
            shown = ", ".join(cols or creds)[:60]
            if limit is not None and 0 <= limit <= 10:
                yield Issue(
                    H, f"reads credentials ({shown}) of several rows", fragment(p), "credentials"
                )
            else:
                yield Issue(C, f"bulk read of credentials ({shown})", fragment(p), "credentials")
        elif (bare := bare_credentials(select)) and not _pinned(select, where):
            yield Issue(
                H, f"reads credentials ({', '.join(bare)[:60]})", fragment(p), "credentials"
            )
        elif (
            production
            and unrestricted
            and limit is None
            and from_tables
            and not select.find(exp.AggFunc)
            and not all(_catalog(t) for t in from_tables)
        ):
            yield Issue(H, "reads every row of a production table", fragment(p), "change")
        elif (
            production
            and unrestricted
            and personal
            and (limit is None or limit > _FEW_ROWS)
            and not select.find(exp.AggFunc)
        ):
            yield Issue(
                H, "reads many people's records in production", fragment(p), "personal-data"
            )


def statement_issues(
    p: Parsed, *, production: bool = False, target: Target | None = None
) -> list[Issue]:
    """Everything ``p`` would do that a reviewer must know, worst first. ``target``: what the
    call says of the database (production, a throwaway one, an audit trail)."""
    target = target or Target(production=production)
    production = production or target.production
    dot = dot_command(p)
    if dot is not None:
        return dot
    head, i = first_word(p.stmt)
    out: list[Issue] = []
    if head == "EXPLAIN" and "ANALYZE" in p.stmt.words(4):
        return out  # read by the caller on the statement that follows ANALYZE
    rule = HEADS.get(head)
    if rule is not None:
        out.extend(rule(p, i, production))
    if p.tree is not None:
        out.extend(_writes(p))
        if not out:
            out.extend(mass_changes(p, target))
        if not out:
            out.extend(value_changes(p))
    elif head in ("DELETE", "UPDATE"):
        out.extend(_writes_unparsed(p, head, i))
    if not out:
        out.extend(guard_rows(p))
    if not out:
        out.extend(control_rows(p))
    if not out:
        out.extend(mass_status(p))
    if not out:
        out.extend(stated_amounts(p))
    if target.throwaway:
        out = [x for x in out if x.kind not in _REBUILT]
    elif (
        production
        and head in ("DELETE", "UPDATE", "MERGE")
        and not out
        and not (head != "MERGE" and narrow_statement(p))
        and not housekeeping(p)
    ):
        out.append(Issue(H, f"{head} in production", fragment(p), "change"))
    out.extend(_anywhere(p))
    out.extend(_reads(p, production))
    if not out:
        out.extend(token_tautology(p))
    unknown = (p.error and head not in _ADDS and head not in SESSION_HEADS) or (
        p.tree is None and head not in BENIGN_HEADS and head not in _HANDLED
    )
    if not out and unknown and head not in HEADS and not read_only_check(p):
        out.append(Issue(H, "could not read this SQL", fragment(p), "unreadable"))
    out.sort(key=lambda x: x.severity == Severity.HIGH)
    return out
