"""SQL that a statement runs in turn or later, beyond ``EXPLAIN ANALYZE``: dynamic SQL built by
``EXECUTE`` or kept for it (``PREPARE s FROM …``, ``SET @q = …``, ``DECLARE @s … = …``: literals
joined, identifiers quoted, variables and ``format()`` holes filled with a stand-in name), an
anonymous block's body (``DO $$ … $$``), a scheduled event's or a trigger's
body (``CREATE EVENT … DO …``, ``CREATE TRIGGER … FOR EACH ROW …``) and the statement handed to
a scheduler (pg_cron's ``cron.schedule('…', '…')``, ``DBMS_SCHEDULER.CREATE_JOB``,
``sp_add_jobstep``).

A scheduler or a scheduled event is persistence: the SQL runs on its own, again and again,
after the agent is gone, so creating one needs a person whatever it runs."""

from __future__ import annotations

import re
from dataclasses import dataclass

from .sql_args import clearly_sql
from .sql_decode import decoded
from .sql_issue import H, Issue, fragment
from .sql_lex import Tok, TokKind
from .sql_parse import Parsed

__all__ = ["Body", "bodies", "joined", "schedules"]

_MAX_PIECES = 128
_GLUE = frozenset({"||", "+", "(", ")", "IMMEDIATE", "SP_EXECUTESQL", "CONCAT", ","})
_QUOTERS = frozenset(
    {"QUOTE_IDENT", "QUOTE_LITERAL", "QUOTE_NULLABLE", "QUOTENAME", "FORMAT", "LOWER", "UPPER",
     "TRIM", "BTRIM", "CONCAT_WS", "DBMS_ASSERT", "ENQUOTE_NAME", "SIMPLE_SQL_NAME"}
)  # fmt: skip
"""Functions that only quote or case a piece of the text built: read as the piece."""
_STAND_IN = "x"
"""The name put for a variable (``r.tablename``) or a ``format()`` hole in dynamic SQL."""
_HOLE = re.compile(r"%[IsL]")
_ASSIGN = frozenset({"=", ":="})
_SCHEDULERS = frozenset(
    {"SCHEDULE", "SCHEDULE_IN_DATABASE", "CREATE_JOB", "SUBMIT", "SP_ADD_JOBSTEP",
     "SP_ADD_JOB", "SP_ADD_SCHEDULE"}
)  # fmt: skip
"""Called names that hand SQL to a scheduler (``cron.schedule``, ``dbms_scheduler.create_job``,
``dbms_job.submit``, ``msdb.dbo.sp_add_jobstep``)."""
_SCHEDULER_OWNERS = frozenset({"CRON", "DBMS_SCHEDULER", "DBMS_JOB"})


@dataclass(frozen=True, slots=True)
class Body:
    """A piece of SQL a statement runs: its text and whether a stand-in name fills a part the
    text leaves open (a variable, a ``format()`` hole), so its findings are capped at high."""

    text: str
    guessed: bool = False


def _literal(t: Tok) -> str:
    inner = t.text.lstrip("NnEe")
    if inner.startswith("$"):
        end = inner.find("$", 1)
        tag = inner[: end + 1] if end > 0 else "$$"
        return inner[len(tag) : len(inner) - len(tag)] if inner.endswith(tag) else ""
    return inner[1:-1].replace("''", "'") if len(inner) >= 2 else ""


def joined(toks: tuple[Tok, ...]) -> Body:
    """The text that ``EXECUTE [IMMEDIATE]`` / ``EXEC(`` / ``sp_executesql`` is given: string
    literals joined where they are concatenated (``'DR' || 'OP TABLE x'``), quoting functions
    read as their argument (``quote_ident('pay' || 'ments')``), a variable or a ``format()``
    hole (``%I``) as a stand-in name; characters re-spelled by an encoding (``CHAR(68)+…``,
    ``0x44…``, ``FROM_BASE64('…')``) read back (``sql_decode``)."""
    spelled = decoded(toks)
    if spelled is not None:
        return Body(spelled.text, spelled.guessed)
    parts: list[str] = []
    guessed = concat = dotted = False
    expect = True  # a piece may come next: at the start, after ``||``, ``+``, ``(``
    for t in toks[:_MAX_PIECES]:
        word = t.upper or t.text
        if t.kind is TokKind.PARAM and not parts and expect:
            continue  # ``sp_executesql @stmt = N'…'``: the parameter's name
        if word == "=" and not parts:
            continue
        if t.kind is TokKind.STRING or (t.kind is TokKind.QNAME and t.text[:1] == '"' and expect):
            if not expect:
                break
            text = _literal(t)  # a double-quoted text is a string to MySQL and BigQuery
            if _HOLE.search(text):
                text, guessed = _HOLE.sub(_STAND_IN, text), True
            parts.append(text)
            expect = False
        elif word in _QUOTERS or word in _GLUE - {",", ")"}:
            concat = concat or word in ("CONCAT", "CONCAT_WS")
            expect = True
        elif word == ")":
            continue
        elif word == ",":
            if parts and not concat:
                break  # the next argument of ``sp_executesql`` or ``format()``
            expect = True
        elif word == "." and parts and not expect:
            dotted = True
        elif t.kind in (TokKind.WORD, TokKind.QNAME, TokKind.PARAM) and parts and dotted:
            dotted = False  # ``r.tablename``: one variable
        elif t.kind in (TokKind.WORD, TokKind.QNAME, TokKind.PARAM) and parts and expect:
            parts.append(_STAND_IN)
            guessed, expect = True, False
        else:
            break
    return Body("".join(parts), guessed)


def _after(p: Parsed, text: str, k: int) -> str:
    toks = p.stmt.tokens
    return text[toks[k].end : p.stmt.end].strip() if k < len(toks) else ""


def _depth0(toks: tuple[Tok, ...], word: str, start: int = 0) -> int:
    for k in range(start, len(toks)):
        if toks[k].depth == 0 and toks[k].upper == word:
            return k
    return -1


def _scheduler_calls(toks: tuple[Tok, ...]) -> list[int]:
    """Where a scheduler is called: the index of its ``(``."""
    out: list[int] = []
    for k in range(1, min(len(toks), 400)):
        if toks[k].kind is not TokKind.LPAREN or toks[k - 1].upper not in _SCHEDULERS:
            continue
        name = toks[k - 1].upper
        owner = toks[k - 3].upper if k >= 3 and toks[k - 2].text == "." else ""
        if name.startswith("SP_") or owner in _SCHEDULER_OWNERS:
            out.append(k)
    return out


def schedules(p: Parsed) -> Issue | None:
    """``p`` creates a scheduled event or hands SQL to a scheduler (persistence)."""
    toks = p.stmt.tokens
    words = p.stmt.words(3)
    if words[:1] == ["CREATE"] and "EVENT" in words[1:3]:
        return Issue(
            H, "creates a scheduled event (SQL that runs on its own)", fragment(p), "change"
        )
    if _scheduler_calls(toks):
        return Issue(H, "schedules SQL to run on its own, repeatedly", fragment(p), "change")
    return None


def bodies(p: Parsed, text: str) -> list[Body]:
    """The SQL ``p`` runs in turn or later (see the module's docstring); ``text`` is the
    script ``p`` was read from."""
    toks = p.stmt.tokens
    words = p.stmt.words(4)
    head = words[0] if words else ""
    out: list[Body] = []
    if head == "DO":
        block = next((t for t in toks[1:4] if t.kind is TokKind.STRING), None)
        if block is not None:
            out.append(Body(_literal(block)))
    elif head == "CREATE" and "EVENT" in words[1:3]:
        k = _depth0(toks, "DO")
        if k != -1:
            out.append(Body(_after(p, text, k)))
    elif head == "CREATE" and "TRIGGER" in words[1:4]:
        k = _depth0(toks, "ROW")
        k = k if k != -1 else _depth0(toks, "AS")
        if k != -1 and k + 1 < len(toks) and toks[k + 1].upper not in ("EXECUTE", "WHEN"):
            out.append(Body(_after(p, text, k)))
    elif head in ("PREPARE", "SET", "DECLARE"):
        k = next((k for k, t in enumerate(toks[:12]) if t.upper == "FROM" or t.text in _ASSIGN), -1)
        built = joined(toks[k + 1 :]) if k != -1 else Body("")
        if built.text and clearly_sql(built.text):
            out.append(Body(built.text, guessed=True))  # run later, by an EXECUTE of the name
    for k in _scheduler_calls(toks)[:4]:
        for t in toks[k + 1 : k + 40]:
            if t.kind is TokKind.RPAREN and t.depth == toks[k].depth:
                break
            if t.kind is TokKind.STRING and clearly_sql(_literal(t)):
                out.append(Body(_literal(t)))
    return [b for b in out if b.text.strip()][:6]
