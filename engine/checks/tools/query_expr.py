"""A field's value that is a query or rule expression, not a fact about someone.

Search and monitoring APIs name their filter ``condition`` (``"'Review Status' == 'Not
Reviewed'"``, ``"cpu_usage > 90"``): the word that names a person's medical condition in a
record. A value that compares a field with a value is a filter; a condition a person has
(``"type 2 diabetes"``) has no comparison.
"""

from __future__ import annotations

import re

__all__ = ["query_expression"]

_COMPARISON = re.compile(
    r"==|!=|<>|>=|<=|[<>]\s*-?[\d'\"]|(?i:\s(?:=|in|like|is\s+(?:not\s+)?null|contains)\s)"
)
_MAX = 400


def query_expression(text: str) -> bool:
    """Whether ``text`` (its first 400 characters) reads as a filter or rule expression: a
    field compared with a value (``==``, ``!=``, ``>=``, ``x > 5``, `` = ``, `` IN ``,
    `` LIKE ``, ``IS NULL``)."""
    return _COMPARISON.search(text[:_MAX]) is not None
