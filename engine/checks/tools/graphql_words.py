"""The words of a GraphQL mutation a SaaS tool of any name sends (``linear_graphql(query=
"mutation { teamDelete(id: …) }")``): the fields it calls read as the tool's name
(``teamDelete`` → team, delete), so the business readers see what it does. A raw HTTP call's
mutation is read by ``http_service``; this reads the other tools' ``query`` arguments."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from .http_apis import name_words

__all__ = ["mutation_words"]

_MUTATION = re.compile(r"^\s*mutation\b")
_FIELD_CALL = re.compile(r"\b([a-z][A-Za-z0-9]{3,60})\s*\(")
_QUERY_KEYS = frozenset({"query", "mutation", "graphql", "document"})


def mutation_words(pairs: Sequence[tuple[str, Any]]) -> set[str]:
    """The words of the fields a GraphQL mutation in a ``query`` argument calls (at most 12
    fields, from its first 16,384 characters); empty for a query or no GraphQL at all."""
    out: set[str] = set()
    for key, value in pairs[:200]:
        if key not in _QUERY_KEYS or not isinstance(value, str) or not _MUTATION.match(value):
            continue
        for name in _FIELD_CALL.findall(value[:16384])[:12]:
            out.update(name_words(name, 8))
    return out
