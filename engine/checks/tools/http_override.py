"""The method a request really asks for when it tunnels it through another: the
``X-HTTP-Method-Override``/``X-HTTP-Method``/``X-Method-Override`` header (Google, Azure and
many frameworks honour it) or a ``_method`` field in the query or a form body (Rails, Laravel,
Express's method-override). A ``POST`` carrying ``DELETE`` that way deletes."""

from __future__ import annotations

from typing import Any
from urllib.parse import parse_qsl

__all__ = ["method_override"]

_HEADERS = frozenset({"x-http-method-override", "x-http-method", "x-method-override"})
_METHODS = frozenset({"DELETE", "PUT", "PATCH", "POST", "PURGE", "MOVE"})
_FIELD = "_method"


def _field(value: Any) -> str | None:
    if isinstance(value, dict):
        got = value.get(_FIELD)
        return got if isinstance(got, str) else None
    if isinstance(value, str) and _FIELD in value[:4096]:
        for key, got in parse_qsl(value[:4096]):
            if key == _FIELD:
                return got
    return None


def method_override(
    headers: tuple[tuple[str, str, str], ...], raw_url: str, payload: tuple[tuple[str, Any], ...]
) -> tuple[str, str] | None:
    """``(method, argument path)`` a request tunnels through an override header or a
    ``_method`` field (see the module), or None."""
    for path, name, value in headers:
        if name.strip().lower() in _HEADERS and value.strip().upper() in _METHODS:
            return value.strip().upper(), path
    if _FIELD in raw_url and "?" in raw_url:
        got = _field(raw_url.split("?", 1)[1].split("#", 1)[0])
        if got is not None and got.strip().upper() in _METHODS:
            return got.strip().upper(), "url"
    for key, value in payload:
        got = _field(value)
        if got is not None and got.strip().upper() in _METHODS:
            return got.strip().upper(), key
    return None
