"""A script from another site put into what a service serves (for ``tool-http``): a write
request whose body carries an HTML ``<script src="https://…">`` tag, or a field named for a
script's source (``src``, ``script_url``) holding a ``.js`` address, on a site that shares no
registrable name with the service it is sent to. Whatever that site serves then runs in every
visitor's browser (skimmers, ad fraud). Pure functions of the request; bounded walk.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlsplit

from .http_call import HttpCall, json_text
from .prose_hosts import site_of

__all__ = ["injected_script"]

_MAX_NODES = 2_000
_MAX_TEXT = 200_000
_SCRIPT_TAG = re.compile(
    r"(?i)<script\b[^>]{0,400}?\bsrc\s*=\s*[\"']?\s*((?:https?:)?//[^\s\"'>]{1,300})"
)
_SRC_KEY = re.compile(r"(?i)^(?:src|script_?(?:src|url)|js_?url|loader_?url)$")
_JS_PATH = re.compile(r"(?i)\.m?js(?:$|\?)")


def _strings(value: Any) -> Iterator[tuple[str, str]]:
    todo: list[tuple[str, Any]] = [("", json_text(value))]
    seen = 0
    while todo and seen < _MAX_NODES:
        key, item = todo.pop()
        seen += 1
        if isinstance(item, str):
            yield key, item[:_MAX_TEXT]
        elif isinstance(item, dict):
            todo.extend((str(k), json_text(v)) for k, v in list(item.items())[:_MAX_NODES])
        elif isinstance(item, list | tuple):
            todo.extend((key, json_text(v)) for v in item[:_MAX_NODES])


def _host(url: str) -> str:
    try:
        return (
            urlsplit(url if not url.startswith("//") else "https:" + url).hostname or ""
        ).lower()
    except ValueError:
        return ""


def injected_script(call: HttpCall) -> tuple[str, str] | None:
    """``(argument, script host)`` when a write request puts a script served by another site
    into the service it is sent to, else None."""
    if call.url is None or call.method in ("GET", "HEAD", "OPTIONS", "DELETE"):
        return None
    own = site_of(call.url.host.name)[0]
    for arg, value in call.payload:
        for key, text in _strings(value):
            found = [m.group(1) for m in _SCRIPT_TAG.finditer(text)][:20]
            if _SRC_KEY.match(key) and _JS_PATH.search(text) and "://" in text[:12]:
                found.append(text.strip())
            for url in found:
                host = _host(url)
                if host and site_of(host)[0] != own:
                    return arg, host
    return None
