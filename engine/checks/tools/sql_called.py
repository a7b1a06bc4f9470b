"""Functions that run the SQL text they are given and hand back its rows: PostgreSQL's
``query_to_xml('DELETE … RETURNING 1', …)`` (and its ``…_xmlschema`` kin), MySQL's
``sys.execute_prepared_stmt('…')``, Oracle's ``dbms_xmlgen.getxml('…')``. Their text runs as
if written plainly, so it is read as SQL; the caller judges it."""

from __future__ import annotations

from .sql_lex import Tok, TokKind

__all__ = ["called_sql"]

_RUNNERS = frozenset(
    {"QUERY_TO_XML", "QUERY_TO_XMLSCHEMA", "QUERY_TO_XML_AND_XMLSCHEMA", "CURSOR_TO_XML",
     "EXECUTE_PREPARED_STMT", "GETXML", "GETXMLTYPE", "NEWCONTEXT"}
)  # fmt: skip
_MAX_TOKS = 400
_MAX_FOUND = 4


def _text(t: Tok) -> str:
    inner = t.text.lstrip("NnEe")
    return inner[1:-1].replace("''", "'") if len(inner) >= 2 else ""


def called_sql(toks: tuple[Tok, ...]) -> list[str]:
    """The SQL texts handed to a function that runs them (see the module): each one's first
    argument when it is a string literal."""
    out: list[str] = []
    window = toks[:_MAX_TOKS]
    for k in range(len(window) - 2):
        if window[k].upper not in _RUNNERS or window[k + 1].kind is not TokKind.LPAREN:
            continue
        arg = window[k + 2]
        if arg.kind is TokKind.STRING and not arg.text.startswith("$"):
            out.append(_text(arg))
        if len(out) >= _MAX_FOUND:
            break
    return out
