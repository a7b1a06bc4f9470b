"""SQL put together from values in a source file of another language, for ``source_code``: a
query literal joined to a variable (``"… WHERE id = " + id``, PHP's ``.``) or with a value
interpolated into it (``${name}``, ``#{name}``, ``{name}``, ``$name``, ``\\(name)``, a
``%s`` of ``Sprintf``/``String.format``: other languages bind with ``?``, ``$1``, ``:name``) where
a value goes — after ``=``, ``LIKE``, ``IN (``, ``ORDER BY``, ``VALUES (``, inside quotes.

A table or column name joined from a constant reads the same as a value would only at a value
position, so ``"SELECT * FROM " + TABLE`` is not one. Tagged templates (``sql`…${x}```) bind
their values and are not one either. Python has its own reader (``security_code``).
"""

from __future__ import annotations

import re

from .source_strings import closing_quote

__all__ = ["built_sql"]

_QUERY = re.compile(
    r"([\"'`])\s*(?=(?:SELECT\s[^\"'`]{0,400}?\bFROM|INSERT\s+INTO|UPDATE\s+[\w.\"`\[\]]+"
    r"\s+SET|DELETE\s+FROM|WITH\s+\w+\s+AS\s*\()\b)",
    re.IGNORECASE,
)
_VALUE_AT = (
    r"(?:[=<>]|\b(?:I?LIKE|IN\s*\(|ORDER\s+BY|GROUP\s+BY|VALUES\s*\(|LIMIT|OFFSET|"
    r"BETWEEN|AND|THEN)|,)\s*'?%?"
)
_ENDS_AT_VALUE = re.compile(_VALUE_AT + r"$", re.IGNORECASE)
_INTERPOLATED = re.compile(
    _VALUE_AT + r"(?:\$\{|#\{|\{\$|\\\(|\$[A-Za-z_]|\{[A-Za-z_][\w.]*\}|%[sdvq]\b)", re.IGNORECASE
)
_JOINED_VARIABLE = re.compile(r"\s*(?:\+|\.|\.\.|&|<>)\s*(?![\"'`\s])[\w$@(]")
_NEXT_LITERAL = re.compile(r"[^\n;]{0,200}?[+.&]\s*([\"'`])")
"""The next literal joined after a variable, on the same statement."""
_JOINED_LITERAL = re.compile(r"\s*(?:[+.&]|\.\.)?\s*([\"'`])")
_TAGGED = re.compile(r"[\w.$]\s*$")
_BINDING_TAGS = re.compile(r"(?<![\w.])(?:sql|sqlu|fr|fr0|cql)$")
"""Scala's interpolators that bind what they interpolate (Slick, Doobie); ``s"…"`` does not."""
_FRAGMENT = re.compile(
    r"\.(?:where|order|reorder|having|group|joins|select|from|pluck|find_by_sql|exists\?)\(\s*"
    r"\"[^\"\n]{0,300}#\{"
)
"""An Active Record SQL fragment with a Ruby value interpolated into it."""
_SPLICED = re.compile(r"\b(?:sql|sqlu)\"{1,3}[^\"]{0,2000}?#\$\w")
"""Slick's ``#$name``: spliced into the query's text, not bound."""
_MAX_QUERIES = 16
_MAX_TEXT = 4_000


def built_sql(text: str) -> int | None:
    """Where ``text`` builds a query from a value joined or interpolated into it, or None."""
    fragment = _FRAGMENT.search(text) or _SPLICED.search(text)
    if fragment is not None:
        return fragment.start()
    for m in list(_QUERY.finditer(text))[:_MAX_QUERIES]:
        quote, start = m.group(1), m.end()
        if _bound_by_tag(text, m.start(), quote):
            continue
        for _ in range(8):
            end = closing_quote(text, start, quote, _MAX_TEXT)
            if end is None:
                break
            piece = text[start:end]
            if quote != "'" and _INTERPOLATED.search(piece):
                return m.start()
            if _ENDS_AT_VALUE.search(piece.rstrip()) and _JOINED_VARIABLE.match(text, end + 1):
                return m.start()
            joined = _JOINED_VARIABLE.match(text, end + 1)
            if joined is not None:  # a variable joined where no value goes: read on after it
                nxt = _NEXT_LITERAL.match(text, joined.end() - 1)
            else:
                nxt = _JOINED_LITERAL.match(text, end + 1)
            if nxt is None:
                break
            quote, start = nxt.group(1), nxt.end()
    return None


def _bound_by_tag(text: str, at: int, quote: str) -> bool:
    """Whether the literal opening at ``at`` is a tagged template or a binding interpolator
    (``sql`…```, ``sql"…"``, a triple-quoted ``sql`` string): its values are bound."""
    begin = at
    while begin > 0 and text[begin - 1] == quote and at - begin < 2:
        begin -= 1
    before = text[max(0, begin - 40) : begin]
    if quote == "`":
        return bool(_TAGGED.search(before))
    return bool(_BINDING_TAGS.search(before))
