"""An HTTP request as a tool call spells it: URL, method, headers and payload, read from the
argument names HTTP tools use (``url``/``uri``/``endpoint``, ``method``, ``headers``,
``body``/``data``/``json``/``params``/``files``). Shared by ``tool-http`` and ``data-egress``."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from humangr.contracts import ToolKind

from .http_override import method_override
from .http_split_url import split_url
from .http_url import Url, parse_url
from .view import ToolView

__all__ = [
    "AUTH_HEADER",
    "INIT_ARGS",
    "METHODS",
    "PAYLOAD_ARGS",
    "REQUEST_ARGS",
    "URL_ARGS",
    "HttpCall",
    "json_text",
    "read_http",
]

URL_ARGS = (
    "url",
    "uri",
    "endpoint",
    "href",
    "link",
    "target_url",
    "webhook_url",
    "api_url",
    "request_url",
    "webhook",
    "callback_url",
    "address",
    "location",
    "page",
    "site",
)
_METHOD_ARGS = ("method", "http_method", "verb", "request_method", "httpmethod")
_HEADER_ARGS = ("headers", "header", "http_headers", "request_headers")
_AUTH_ARGS = (
    "authorization",
    "auth",
    "token",
    "api_key",
    "apikey",
    "bearer_token",
    "bearer",
    "cookies",
    "cookie",
    "access_token",
    "password",
    "credentials",
    "basic_auth",
)
PAYLOAD_ARGS = (
    "body",
    "data",
    "json",
    "payload",
    "form",
    "form_data",
    "files",
    "params",
    "query_params",
    "content",
    "text",
    "message",
    "request_body",
    "json_body",
    "fields",
    "multipart",
    "upload",
    "file",
    "attachment",
    "attachments",
)
METHODS = frozenset(
    {
        "GET",
        "HEAD",
        "OPTIONS",
        "POST",
        "PUT",
        "PATCH",
        "DELETE",
        "TRACE",
        "CONNECT",
        "PROPFIND",
        "MKCOL",
        "COPY",
        "MOVE",
        "PURGE",
    }
)
REQUEST_ARGS = frozenset(
    (*URL_ARGS, *_METHOD_ARGS, *_HEADER_ARGS, *_AUTH_ARGS, *PAYLOAD_ARGS, "base_url", "path")
)
"""The arguments that spell the request itself (its address, method, headers and body)."""
_NAME_METHOD = re.compile(r"(?i)(?:^|[_.:-])(get|post|put|patch|delete|head)(?:[_.:-]|$)")
AUTH_HEADER = re.compile(
    r"(?i)^(?:authorization|proxy-authorization|cookie|x-api-key|api-key|apikey|x-auth-token"
    r"|private-token|x-goog-api-key|x-amz-security-token|x-access-token|x-csrf-token"
    r"|ocp-apim-subscription-key|x-vault-token|x-github-token|x-gitlab-token|x-figma-token"
    r"|x-shopify-access-token|x-rapidapi-key|x-functions-key|xi-api-key|anthropic-api-key"
    r"|x-.*(?:token|secret|key|password).*)$"
)
_GRAPH_TOOL = re.compile(r"(?i)(?:^|_)(?:ms_?)?graph(?:_|$)|msgraph")
"""A Microsoft Graph tool, whose ``path`` is relative to the Graph API."""
_WEB_TOOLS = re.compile(
    r"(?i)fetch|http|request|curl|wget|browse|navigate|scrape|crawl|url|web|api"
)


@dataclass(frozen=True, slots=True)
class HttpCall:
    """What the request sends where."""

    url_argument: str
    raw_url: str
    url: Url | None
    """None when the URL cannot be read at all."""
    method: str
    method_argument: str | None
    headers: tuple[tuple[str, str, str], ...]
    """``(argument path, header name, value)``, auth arguments (``token=``) included."""
    payload: tuple[tuple[str, Any], ...]
    """``(argument, value)`` of every argument whose content is sent."""

    @property
    def writes(self) -> bool:
        """The request sends something: a method other than a read, or a body."""
        return self.method not in ("GET", "HEAD", "OPTIONS") or any(
            key.lower() not in ("params", "query_params") for key, _ in self.payload
        )


def _url(view: ToolView) -> tuple[str, str] | None:
    got = view.text(*URL_ARGS)
    if got is not None:
        arg, value = got
        base = view.text("base_url", "baseurl", "host", "server")
        if value.startswith("/") and not value.startswith("//") and base is not None:
            return arg, base[1].rstrip("/") + value
        return got
    base = view.text("base_url", "baseurl")
    path = view.text("path", "route")
    if base is not None:
        return base[0], base[1].rstrip("/") + "/" + (path[1].lstrip("/") if path else "")
    if path is not None and path[1].startswith("/") and _GRAPH_TOOL.search(view.name):
        return path[0], "https://graph.microsoft.com/v1.0" + path[1]  # a Graph tool's path
    return split_url(view)  # ``host`` + ``port`` + ``path``


INIT_ARGS = ("options", "init", "opts", "request_options", "config", "request")
"""A Fetch-style call's second argument (``fetch(url, {method, headers})``): its request
options in one object."""


def _init(view: ToolView, names: tuple[str, ...]) -> tuple[str, Any] | None:
    """``names``'s first key inside a Fetch-style options object (``options.headers``) when the
    call has no such top-level argument."""
    for opt in INIT_ARGS:
        got = view.get(opt)
        if got is not None and isinstance(got[1], dict):
            for key, value in list(got[1].items())[:50]:
                if isinstance(key, str) and key.lower() in names:
                    return f"{got[0]}.{key}", value
    return None


def _headers(view: ToolView) -> list[tuple[str, str, str]]:
    out: list[tuple[str, str, str]] = []
    got = view.get(*_HEADER_ARGS) or _init(view, _HEADER_ARGS)
    if got is not None:
        arg, value = got
        if isinstance(value, dict):
            out.extend((f"{arg}.{k}", str(k), _text(v)) for k, v in list(value.items())[:200])
        elif isinstance(value, list):
            for i, item in enumerate(value[:200]):
                if isinstance(item, list | tuple) and len(item) == 2:
                    out.append((f"{arg}[{i}]", str(item[0]), _text(item[1])))
                elif isinstance(item, str) and ":" in item:
                    name, _, v = item.partition(":")
                    out.append((f"{arg}[{i}]", name.strip(), v.strip()))
        elif isinstance(value, str):
            for line in value.splitlines()[:200]:
                name, _, v = line.partition(":")
                out.append((arg, name.strip(), v.strip()))
    for name in _AUTH_ARGS:
        found = view.get(name)
        if found is not None and found[1] not in (None, "", [], {}):
            out.append((found[0], found[0], _text(found[1])))
    return out


def _text(value: Any) -> str:
    if isinstance(value, str):
        return value[:8192]
    if isinstance(value, list | tuple):
        return ":".join(_text(v) for v in value[:4])
    if isinstance(value, dict):
        return " ".join(f"{k}={_text(v)}" for k, v in list(value.items())[:16])
    return str(value)[:64]


def _method(view: ToolView, has_payload: bool) -> tuple[str, str | None]:
    got = view.text(*_METHOD_ARGS)
    nested = _init(view, _METHOD_ARGS) if got is None else None
    if nested is not None and isinstance(nested[1], str) and nested[1].strip():
        got = nested[0], nested[1]
    if got is not None:
        return got[1].strip().upper()[:16] or "GET", got[0]
    m = _NAME_METHOD.search(view.name)
    if m is not None:
        return m.group(1).upper(), None
    return ("POST" if has_payload else "GET"), None


def read_http(view: ToolView) -> HttpCall | None:
    """The request ``view``'s call makes, or None when the call makes none.

    An HTTP tool's URL is always read; an MCP or unknown tool's ``url`` argument is read as a
    request when the tool's name or its other arguments say it fetches or sends."""
    kind = view.kind
    if kind not in (ToolKind.HTTP, ToolKind.MCP, ToolKind.OTHER):
        return None
    found = _url(view)
    if found is None:
        return None
    arg, raw = found
    payload = tuple(
        (key, view.call.arguments[key])
        for key in view.call.arguments
        if key.lower() in PAYLOAD_ARGS and view.call.arguments[key] not in (None, "", {}, [])
    )
    if kind is not ToolKind.HTTP and not (
        _WEB_TOOLS.search(view.name) or view.get(*_METHOD_ARGS) or payload
    ):
        return None
    body = any(key.lower() not in ("params", "query_params") for key, _ in payload)
    method, method_arg = _method(view, body)
    url = parse_url(raw, default_scheme="https")
    headers = tuple(_headers(view))
    if method in ("POST", "GET") and (tunnelled := method_override(headers, raw, payload)):
        method, method_arg = tunnelled  # ``X-HTTP-Method-Override: DELETE``, ``_method=DELETE``
    return HttpCall(
        url_argument=arg,
        raw_url=raw,
        url=url,
        method=method,
        method_argument=method_arg,
        headers=headers,
        payload=payload,
    )


MAX_JSON_TEXT = 262_144


def json_text(value: Any) -> Any:
    """A body given as JSON text, decoded as the service reads it (any other value, and text
    that is not JSON or is longer than ``MAX_JSON_TEXT``, as it is)."""
    if isinstance(value, str) and value.lstrip()[:1] in ("{", "[") and len(value) < MAX_JSON_TEXT:
        try:
            return json.loads(value)
        except ValueError:
            return value
    return value
