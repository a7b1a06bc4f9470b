"""Literal values for the taint engine: a constant's ``Val``, and whether text looks like SQL."""

from __future__ import annotations

import bisect
import re

from .flow import CONST, NOCONST, SAFELOADER, SQLTEXT, Val, constant
from .interp_budget import MAX_FOLD
from .sources import cred_tags

__all__ = ["SAFE_LOADER", "SQL_TEXT", "from_const", "sql_text"]

_ITEM_DEPTH = 4
"""Levels of nested tuples and lists a constant keeps as entries."""

SQL_TEXT = re.compile(
    r"(?is)\b(?:insert\s+(?:or\s+\w+\s+)?into\b|update\s+[\w\"`.\[\]]+"
    r"\s+set\b|delete\s+from\b|drop\s+(?:table|database|index|view)\b|create\s+(?:table|index)\b"
    r"|alter\s+table\b|truncate\s+table\b|replace\s+into\b|where\s+[\w.\"`]+\s*(?:=|like|in)\b)"
)
"""SQL statements but ``SELECT ... FROM`` (``sql_text`` finds that one in linear time)."""
_SELECT = re.compile(r"(?i)\bselect\s")
_VERB_HEAD = re.compile(r"^\s*(?:SELECT|INSERT|UPDATE|DELETE)\s")
"""An upper-case SQL verb opening a literal (``"SELECT " + cols + " FROM " + table``)."""
_FROM = re.compile(r"(?i)\sfrom\b")
_SELECT_SPAN = 400
_SQL_WORDS = (
    *("select", "insert", "update", "delete", "drop", "create", "alter", "truncate"),
    *("replace", "where"),
)


def sql_text(text: object) -> bool:
    """Whether literal text looks like SQL (``SELECT`` with ``FROM`` within 400 characters,
    ``INSERT INTO``, ``UPDATE ... SET``, ...); linear in the text."""
    if not isinstance(text, str):
        return False
    low = text.lower()
    if not any(word in low for word in _SQL_WORDS):
        return False
    if SQL_TEXT.search(text) or _VERB_HEAD.match(text):
        return True
    froms = [m.start() for m in _FROM.finditer(text)]
    if not froms:
        return False
    for m in _SELECT.finditer(text):
        i = bisect.bisect_left(froms, m.end())
        if i < len(froms) and froms[i] <= m.end() + _SELECT_SPAN:
            return True
    return False


SAFE_LOADER = re.compile(r"^C?(?:Safe|Base)Loader$")


def from_const(value: object, depth: int = _ITEM_DEPTH) -> Val:
    """The value of a Python literal (containers of literals keep their entries, to a few
    levels of nesting)."""
    if isinstance(value, list | tuple) and len(value) <= 64 and depth > 0:
        items: tuple[tuple[object, Val], ...] = tuple(
            (i, from_const(x, depth - 1)) for i, x in enumerate(value)
        )
        const = value if isinstance(value, tuple) else NOCONST
        return Val((CONST, CONST, CONST, CONST), 0, None, items, True, const)
    if isinstance(value, str | bytes | int | float | bool | type(None)):
        if isinstance(value, str | bytes) and len(value) > MAX_FOLD:
            return constant()
        tags = SQLTEXT if sql_text(value) else 0
        if isinstance(value, str) and SAFE_LOADER.match(value):
            tags |= SAFELOADER
        if isinstance(value, str):
            tags |= cred_tags(value)
        return constant(value, tags)
    return constant(value if isinstance(value, tuple) else NOCONST)
