"""A delete whose one target is named as throwaway: a sandbox resource group
(``rg-sandbox-jkim-poc``), a test account (``test.sync03@…``), a scratch or load-test project.
Read only from the arguments that name the target (``resourceGroupName``, ``userKey``,
``project_id``) — never from a note, reason or comment, which say what the agent wishes — and
undone by any production word among them, or by a production tag. A list of targets, a filter
or a count of people is not one target and keeps its finding. Pure."""

from __future__ import annotations

import re
from collections.abc import Sequence

from .business_words import Pair

__all__ = ["throwaway_target"]

_THROWAWAY = frozenset(
    {"sandbox", "scratch", "tmp", "temp", "test", "tests", "testing", "loadtest", "perftest",
     "synthetic", "ephemeral", "playground", "throwaway", "e2e"}
)  # fmt: skip
_LIVE = frozenset({"prod", "production", "prd", "live", "primary", "main", "master"})
_NAMING = re.compile(r"(?:name|id|key|slug|user|account|group|project|bucket|table|resource)$")
"""Keys that name the target (``resourceGroupName``, ``userKey``, ``project_id``)."""
_TAGS = frozenset({"env", "environment", "stage", "tier", "lifecycle"})
_IDENT = re.compile(r"[\w.@:/+-]{1,120}")
_SPLIT = re.compile(r"[^a-z0-9]+")


def throwaway_target(pairs: Sequence[Pair]) -> bool:
    """The call names its target, every naming argument of it is free of production words and
    at least one says test, sandbox, scratch or load test; no list of targets."""
    marked, seen = False, 0
    for key, value in pairs[:200]:
        if isinstance(value, list) and len(value) > 1:
            return False
        if not isinstance(value, str):
            continue
        if key in _TAGS and set(_SPLIT.split(value[:60].lower())) & _LIVE:
            return False
        if not key or not _NAMING.search(key) or not _IDENT.fullmatch(value):
            continue
        words = set(_SPLIT.split(value.lower()))
        seen += 1
        if words & _LIVE:
            return False
        marked = marked or bool(words & _THROWAWAY)
    return marked and seen <= 6
