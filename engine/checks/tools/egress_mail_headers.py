"""Recipients a mail tool is given as headers rather than arguments: ``{"headers": {"Bcc":
"x@elsewhere.example"}}`` (SMTP and API tools that pass headers through), Mailgun's
``h:Bcc`` and ``h:To`` fields. The mail goes to them as it goes to a ``bcc`` argument."""

from __future__ import annotations

from typing import Any

from .view import ToolView

__all__ = ["header_recipients"]

_HEADER_ARGS = ("headers", "custom_headers", "extra_headers", "mail_headers", "smtp_headers")
_RECIPIENT_HEADERS = frozenset({"to", "cc", "bcc", "resent-to", "resent-cc", "resent-bcc"})
_MAX_HEADERS = 200


def _named(key: str) -> bool:
    low = key.strip().lower()
    return low in _RECIPIENT_HEADERS or (low.startswith("h:") and low[2:] in _RECIPIENT_HEADERS)


def header_recipients(view: ToolView) -> list[tuple[str, Any]]:
    """``(argument path, value)`` of each recipient header the call sets."""
    out: list[tuple[str, Any]] = []
    for key, value in list(view.call.arguments.items())[:_MAX_HEADERS]:
        if _named(key) and key.lower().startswith("h:"):
            out.append((key, value))
    got = view.get(*_HEADER_ARGS)
    if got is None:
        return out
    arg, headers = got
    if isinstance(headers, dict):
        for key, value in list(headers.items())[:_MAX_HEADERS]:
            if isinstance(key, str) and _named(key):
                out.append((f"{arg}.{key}", value))
    elif isinstance(headers, list):
        for i, item in enumerate(headers[:_MAX_HEADERS]):
            if isinstance(item, dict) and isinstance(item.get("name"), str):
                if _named(item["name"]):
                    out.append((f"{arg}[{i}]", item.get("value")))
            elif isinstance(item, str) and ":" in item and _named(item.split(":", 1)[0]):
                out.append((f"{arg}[{i}]", item.split(":", 1)[1]))
    return out
