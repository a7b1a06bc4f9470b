"""Document-store deletes of a tool call (``mongodb_delete_many``, ``deleteMany``, ``remove``,
``bulk_delete``), read from the words of the tool's name and its filter argument: an empty
filter deletes every document, as ``DELETE`` without ``WHERE`` deletes every row; a filter
that only asks for fields to exist deletes nearly every one.

A delete of one document (``delete_one``), and reads with any filter, are none of these.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from humangr.contracts import Severity

from .http_apis import name_words
from .view import ToolView

__all__ = ["DocDelete", "document_delete"]

_DELETES = frozenset({"delete", "remove", "purge", "destroy", "wipe", "erase"})
_MANY = frozenset({"many", "all", "bulk", "batch", "multiple"})
_ONE = frozenset({"one", "single", "first", "by_id", "byid", "id"})
_FILTERS = ("filter", "filters", "query", "selector", "where", "criteria", "conditions", "match")
_STORES = ("collection", "table", "index", "model", "kind", "entity", "container")
"""Arguments naming what a store-wide delete empties: without a filter, all of it."""
_EMPTY_TEXT = frozenset({"", "{}", "null", "none", "[]", "*"})
_SET_TESTS = (("$exists", True), ("$ne", None))


DocDelete = tuple[Severity, str, str]
"""A finding: its severity, title and the argument it concerns."""


def _empty(value: Any) -> bool:
    """A filter that selects every document: ``{}``, ``null``, ``""``, the text ``"{}"``."""
    if value is None or value == {} or value == []:
        return True
    return isinstance(value, str) and value.strip().lower() in _EMPTY_TEXT


def _only_existence(value: Any) -> bool:
    """A filter whose every condition asks only that a field is set (``{"_id": {"$exists":
    true}}``, ``{"email": {"$ne": null}}``): every document that has the field."""
    if not isinstance(value, Mapping) or not value or len(value) > 8:
        return False
    for key, test in value.items():
        if str(key).startswith("$") or not isinstance(test, Mapping) or len(test) != 1:
            return False
        ((op, arg),) = test.items()
        if not any(op == want and arg is expected for want, expected in _SET_TESTS):
            return False
    return True


def _store(view: ToolView) -> str:
    """`` of <collection>`` for a title, when the call names it."""
    got = view.get(*_STORES)
    return f" of {got[1][:60]}" if got is not None and isinstance(got[1], str) else ""


def document_delete(view: ToolView) -> DocDelete | None:
    """What a document-store delete tool's call deletes: every document (critical) when its
    filter is empty, or absent while its name says ``many``/``all``; nearly every document
    (high) when the filter only asks for fields to exist; None otherwise."""
    words = set(name_words(view.name.rsplit("__", 1)[-1], 8))
    if not words & _DELETES or words & _ONE:
        return None
    many = bool(words & _MANY)
    found = view.get(*_FILTERS)
    if found is None:
        store = view.get(*_STORES)
        if many and store is not None:
            title = f"deletes every document{_store(view)} (no filter)"
            return Severity.CRITICAL, title, store[0]
        return None
    arg, value = found
    if _empty(value):
        return Severity.CRITICAL, f"deletes every document{_store(view)} (empty filter)", arg
    if _only_existence(value):
        title = f"deletes nearly every document{_store(view)} (its filter only asks for a field)"
        return Severity.HIGH, title, arg
    return None
