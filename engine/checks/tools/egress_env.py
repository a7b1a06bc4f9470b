"""Secrets sent by name: a payload field holding a reference to a secret in the environment
(``"eos_client_secret": "${EOS_CLIENT_SECRET}"``, ``{{ secrets.DEPLOY_TOKEN }}``,
``process.env.API_KEY``). A tool or template that expands references sends the secret itself;
to a host whose name shares no word with the variable's, that is a secret leaving for a
service it does not belong to (``${STRIPE_SECRET_KEY}`` to ``api.stripe.com`` is its home)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

__all__ = ["env_secrets"]

_REFERENCE = re.compile(
    r"^\s*(?:\$\{?|\{\{\s*(?:secrets|env|vars)\.|process\.env\.|os\.environ\[[\"']|%)"
    r"([A-Za-z][A-Za-z0-9_]{2,80})(?:\}|\s*\}\}|[\"']\]|%)?\s*$"
)
_SECRET_NAME = re.compile(
    r"(?i)(?:^|_)(?:key|secret|token|password|passwd|pwd|credentials?|private|apikey)(?:_|$)"
)
_MAX_VALUES = 500
_MAX_DEPTH = 8


def _strings(value: Any, depth: int = 0, seen: list[int] | None = None) -> Iterator[str]:
    seen = seen if seen is not None else [0]
    if depth > _MAX_DEPTH or seen[0] > _MAX_VALUES:
        return
    seen[0] += 1
    if isinstance(value, str):
        if len(value) <= 200:
            yield value
    elif isinstance(value, dict):
        for item in list(value.values())[:_MAX_VALUES]:
            yield from _strings(item, depth + 1, seen)
    elif isinstance(value, list):
        for item in value[:_MAX_VALUES]:
            yield from _strings(item, depth + 1, seen)


def env_secrets(payload: Any, host: str) -> Iterator[str]:
    """The names of secret variables ``payload`` refers to whose names share no word with
    ``host`` (each once)."""
    host_words = set(re.split(r"[^a-z0-9]+", host.lower()))
    found: set[str] = set()
    for text in _strings(payload):
        m = _REFERENCE.match(text)
        if m is None or not _SECRET_NAME.search(m.group(1)) or m.group(1) in found:
            continue
        words = {w for w in m.group(1).lower().split("_") if len(w) > 2}
        if not words & host_words:
            found.add(m.group(1))
            yield m.group(1)
