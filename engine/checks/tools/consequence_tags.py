"""A change that only sets a resource's tags or labels (for ``consequence.consequential``'s
production rule): ``PATCH …/tags/default`` with ``{"properties": {"tags": {"CostCenter": …}}}``,
``tag_resources(ResourceARNList=[…], Tags={…})`` — bookkeeping on a production resource, not
a change of what it runs or serves.

Not when a tag could steer something: a key or value that reads as an exemption, access,
routing, protection, scheduling or retention switch (``EDR-Exclude``, ``public``, ``route``,
``backup``, ``shutdown``…), nor Kubernetes objects' labels (selectors route traffic by them).
A pure function of the call's arguments and request.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

__all__ = ["only_tags"]

_TAG_KEYS = frozenset({"tags", "tag", "labels", "label", "tagset", "taglist"})
_WRAPPERS = frozenset({"properties", "body", "json", "data", "resource"})
_PLAIN = frozenset({"operation", "action", "labelfingerprint", "key", "value"})
_IDS = re.compile(
    r"(?i)(?:^|_)(?:id|ids|name|arn|arns|arnlist|resource\w*|project\w*|zone|region|location|"
    r"subscription\w*|account\w*|scope|method|url|headers|api_version|apiversion)$|id$|ids$|"
    r"name$|arn$|arnlist$"
)
_STEERS = re.compile(
    r"(?i)exempt|exclu|bypass|skip|ignore|allow|deny|public|access|admin|role|perm|route|"
    r"routing|traffic|weight|policy|firewall|quarantin|isolat|protect|tamper|edr|scan|"
    r"monitor|alert|secur|complian|retention|backup|delete|expir|ttl|lifecycle|shutdown|"
    r"schedule|stop|sensitiv|share|external|trust|whitelist|blacklist|disable|enable"
)
_K8S_PATH = re.compile(r"^/(?:api|apis)/")
_TAG_PATH = re.compile(r"(?i)/(?:tags|labels|setlabels|settags|tagging)(?:/[\w.:-]{0,80})?/?$")
_TAG_NAME = re.compile(
    r"(?i)(?:^|[_.\-])(?:tag|tags|label|labels|untag)(?:$|[_.\-])|[a-z](?:Tags|Labels)(?:$|[A-Z_])"
)


def _tag_strings(value: Any, depth: int = 0) -> Iterable[str]:
    """The keys and values of a tags or labels value (a map or a list of key/value pairs)."""
    if depth > 3:
        yield "\x00"  # deeper than tags go: not a tags value
    elif isinstance(value, dict):
        for k, v in list(value.items())[:100]:
            yield str(k)
            yield from _tag_strings(v, depth + 1)
    elif isinstance(value, list):
        for item in value[:100]:
            yield from _tag_strings(item, depth + 1)
    elif isinstance(value, str | int | float | bool):
        yield str(value)[:200]


def _tags_body(body: Any, depth: int = 0) -> list[Any] | None:
    """The tags or labels values of ``body`` when it holds nothing else (wrappers and plain
    operation words aside), else None."""
    if not isinstance(body, dict) or depth > 3 or not body:
        return None
    found: list[Any] = []
    for key, value in list(body.items())[:40]:
        k = str(key).lower()
        if k in _TAG_KEYS:
            found.append(value)
        elif k in _WRAPPERS:
            inner = _tags_body(value, depth + 1)
            if inner is None:
                return None
            found += inner
        elif k in _PLAIN and isinstance(value, str | int):
            found.append(value)
        elif not _IDS.search(k):
            return None
    return found


def only_tags(tool_name: str, arguments: dict[str, Any], path: str | None, body: Any) -> bool:
    """Whether the call only sets tags or labels on a resource, none of them a switch that
    could steer access, routing, protection or retention (see the module). ``path`` and
    ``body`` are an HTTP request's, None for a tool's own call."""
    if path is not None:
        if _K8S_PATH.match(path):
            return False
        values = _tags_body(body)
        if values is None or not (values and (_TAG_PATH.search(path) or _has_tag_key(body))):
            return False
    else:
        if not _TAG_NAME.search(tool_name.rsplit("__", 1)[-1]):
            return False
        values = _tags_body(arguments)
        if not values:
            return False
    strings = [s for v in values for s in _tag_strings(v)]
    return bool(strings) and "\x00" not in strings and not any(_STEERS.search(s) for s in strings)


def _has_tag_key(body: Any) -> bool:
    return isinstance(body, dict) and any(
        str(k).lower() in _TAG_KEYS or (str(k).lower() in _WRAPPERS and _has_tag_key(v))
        for k, v in list(body.items())[:40]
    )
