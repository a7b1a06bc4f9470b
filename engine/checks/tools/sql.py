"""``tool-sql``: SQL a tool call would run — destructive statements, privilege changes, the
server's files and commands, injection shapes (stacked statements, tautologies, comment
truncation, UNION reads) and bulk reads of credentials; and its document-store equivalent, a
delete tool's call with an empty filter (``docstore``).

SQL is read from a SQL tool's statement arguments, from arguments named ``sql``/``query`` of
any tool, and from any string argument that clearly is SQL (starts with a statement keyword
and parses). See ``sql_rules`` for what each statement is judged by.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from humangr.contracts import Severity

from ..base import CheckInput, Hit
from .docstore import document_delete
from .sql_args import MAX_STRICT, clearly_sql, production_target, sql_dialect, sql_texts
from .sql_bodies import Body, bodies, joined, schedules
from .sql_called import called_sql
from .sql_decode import opaque_dynamic
from .sql_definer import routine_risk
from .sql_heads_sessions import sessions_ended
from .sql_issue import Issue
from .sql_lex import TokKind
from .sql_maintenance import dynamic_head
from .sql_parse import Parsed, read_sql
from .sql_preview import ROW_HEADS, rolled_back
from .sql_scope import Target, sql_target
from .view import ToolView

__all__ = ["review_sql", "sql_statement", "sql_texts"]

_MAX_NESTING = 2
_DML = frozenset({"SELECT", "INSERT", "UPDATE", "DELETE", "MERGE", "WITH"})
_DESTRUCTIVE = frozenset({"destroy", "privilege", "server"})


def _truncation(lexed_text: str, p: Parsed) -> str | None:
    """A comment that cuts off the rest of a quoted condition (``'admin'--' AND pass = …``)."""
    ordered = sorted(p.stmt.tokens + p.stmt.comments, key=lambda t: t.start)
    for k, tok in enumerate(ordered):
        if tok.kind is not TokKind.COMMENT:
            continue
        body = tok.text[2:] if tok.text[:2] in ("--", "/*") else tok.text[1:]
        prev = ordered[k - 1] if k else None
        glued = prev is not None and prev.kind is TokKind.STRING and prev.end == tok.start
        if (
            body.lstrip()[:1] in ("'", '"')
            or (glued and not tok.text.startswith("/*"))
            or re.search(r"(?i)'\s*(?:and|or)\b|\b(?:and|or)\s+\w*(?:pass|pwd)", body)
        ):
            return tok.text[:60]
    return None


def _nested(p: Parsed, text: str) -> list[Body]:
    """The SQL a statement runs in turn: ``EXPLAIN ANALYZE <stmt>`` (which runs it), dynamic
    SQL in ``EXEC('…')`` / ``sp_executesql N'…'`` / ``EXECUTE '…'``, and the bodies of blocks,
    scheduled events, triggers and scheduled jobs (``sql_bodies``)."""
    words = p.stmt.words(4)
    toks = p.stmt.tokens
    if words[:1] == ["EXPLAIN"] and "ANALYZE" in words:
        for t in toks:
            if t.kind is TokKind.WORD and t.upper in _DML:
                return [Body(text[t.start : p.stmt.end])]
    found = bodies(p, text)
    found.extend(Body(t) for t in called_sql(toks) if clearly_sql(t))
    for k, tok in enumerate(toks[:64]):
        if tok.upper in ("EXEC", "EXECUTE", "SP_EXECUTESQL"):
            built = joined(toks[k + 1 :])
            if built.text and (clearly_sql(built.text) or dynamic_head(built.text)):
                found.append(built)
            break
    return found


def _capped(issues: list[Issue]) -> list[Issue]:
    """Findings of dynamic SQL whose names are stand-ins: high, as what it may build."""
    return [
        Issue(Severity.HIGH, f"dynamic SQL may build: {i.title}", i.detail, i.kind)
        if i.severity is Severity.CRITICAL
        else i
        for i in issues
    ]


def _payload(sql: str, dialect: str | None) -> list[Issue]:
    """A text with an odd quote read as what it is built to be: a fragment pasted between two
    quotes of a query (``admin' OR 1=1 --`` → ``'admin' OR 1=1 --'``)."""
    for quote in ("'", '"'):
        issues = review_sql(quote + sql + quote, dialect, depth=_MAX_NESTING)
        shapes = [i for i in issues if i.kind in ("injection", "credentials", "destroy")]
        if shapes:
            worst = shapes[0]
            return [
                Issue(
                    Severity.CRITICAL,
                    f"SQL injection payload: {worst.title.split(' (')[0]}",
                    sql[:80],
                    "injection",
                )
            ]
    return []


def review_sql(
    sql: str,
    dialect: str | None = None,
    *,
    production: bool = False,
    depth: int = 0,
    target: Target | None = None,
) -> list[Issue]:
    """Everything the SQL text ``sql`` would do that a reviewer must know, worst first.
    ``target``: what the call says of the database it runs in (``sql_scope``)."""
    from .sql_rules import statement_issues  # with sqlglot, only once SQL is read
    from .sql_values import STORED_TITLE, balanced_transfer

    lexed, parsed = read_sql(sql, dialect)
    out: list[Issue] = []
    for problem in lexed.problems:
        out.append(Issue(Severity.HIGH, f"could not read this SQL: {problem}", "", "unreadable"))
    if depth == 0 and (
        any("unterminated quote" in p for p in lexed.problems)
        or ("'" in sql and any(p.error for p in parsed))
    ):
        out.extend(_payload(sql[:MAX_STRICT], dialect))
    read_before = False
    preview = depth == 0 and rolled_back(parsed)
    for p in parsed:
        issues = statement_issues(p, production=production, target=target)
        if preview and p.stmt.words(1)[:1] and p.stmt.words(1)[0] in ROW_HEADS:
            issues = [i for i in issues if i.kind != "change"]  # undone by the ROLLBACK
        if target is None or not target.throwaway:  # a test database's routines harm nothing
            found_here = (schedules(p), routine_risk(p), sessions_ended(p), opaque_dynamic(p))
            issues.extend(x for x in found_here if x is not None)
        for inner in _nested(p, lexed.text) if depth < _MAX_NESTING else []:
            found = review_sql(
                inner.text, dialect, production=production, depth=depth + 1, target=target
            )
            issues.extend(_capped(found) if inner.guessed else found)
        cut = _truncation(lexed.text, p)
        if cut is not None:
            worst = any(i.kind == "injection" and i.severity is Severity.CRITICAL for i in issues)
            tautology = any(i.kind == "injection" for i in issues) or re.search(
                r"(?i)pass|pwd", cut
            )
            sev = Severity.CRITICAL if worst or tautology else Severity.HIGH
            issues.append(
                Issue(
                    sev,
                    "a comment cuts off the rest of the condition (injection shape)",
                    cut,
                    "injection",
                )
            )
        if read_before:
            issues = [
                Issue(i.severity, f"stacked after a SELECT: {i.title}", i.detail, i.kind)
                if i.kind in _DESTRUCTIVE and i.severity is Severity.CRITICAL
                else i
                for i in issues
            ]
        words = p.stmt.words(1)
        read_before = read_before or (bool(words) and words[0] in ("SELECT", "WITH"))
        out.extend(issues)
    if any(i.title.startswith(STORED_TITLE) for i in out) and balanced_transfer(parsed):
        out = [i for i in out if not i.title.startswith(STORED_TITLE)]
    out.sort(key=lambda i: i.severity != Severity.CRITICAL)
    return out


def _hit(view: ToolView, argument: str, issues: list[Issue]) -> Hit:
    worst = issues[0]
    lines = [f"- {i.title}" + (f": `{i.detail}`" if i.detail else "") for i in issues[:6]]
    more = f"\n- and {len(issues) - 6} more" if len(issues) > 6 else ""
    return Hit(
        severity=worst.severity,
        title=worst.title,
        description=f"The SQL in `{argument}` of {view.name}:\n" + "\n".join(lines) + more,
        suggestion=_SUGGESTIONS.get(worst.kind),
        argument=argument[:128],
    )


_SUGGESTIONS = {
    "destroy": "Take a backup first and have a human run it, or restrict the statement to the "
    "rows meant (a WHERE on a key).",
    "privilege": "Privilege changes are for a database administrator, not an agent.",
    "server": "Do not reach the server's files or commands from SQL.",
    "credentials": "Read only the columns and rows needed; never credentials in bulk.",
    "injection": "This is the shape of SQL injection: build queries with bound parameters.",
    "change": "Check the statement against the intended data before running it.",
    "unreadable": "Rewrite the SQL so it can be read, or have a human review it.",
}


def sql_statement(ctx: CheckInput) -> Iterator[Hit]:
    """SQL of a tool call that destroys data, changes privileges, reaches the server's files
    or commands, has an injection's shape or reads credentials in bulk."""
    view = ctx.tool
    if view is None:
        return
    deleted = document_delete(view)
    if deleted is not None:
        severity, title, argument = deleted
        yield Hit(
            severity=severity,
            title=title,
            description=f"{view.name} {title}: like DELETE without WHERE, there is no undo.",
            suggestion=_SUGGESTIONS["destroy"].replace("a WHERE on a key", "a filter on a key"),
            argument=argument[:128] or None,
        )
    texts = list(sql_texts(view))
    if not texts:  # most calls carry no SQL: the dialect and target are not looked for
        return
    dialect = sql_dialect(view)
    target = sql_target(view, production_target(view))
    for argument, text, whole in texts:
        issues = (
            review_sql(text, dialect, production=target.production, target=target)
            if whole
            else _payload(text, dialect)
        )
        if issues:
            yield _hit(view, argument, issues)
