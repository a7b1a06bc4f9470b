"""The stored decisions of a served engine, read page by page by ``humangr replay --nats``.

A reviewer's ``HistoryQuery`` on ``hl.history.query`` (request/reply, reviewers only) is
answered by a Supervisor with a ``HistoryPage``: the first decision of each action it keeps,
with the action and the report (whose recorded layer results a replay reuses), in key order
after ``after``. Nothing is written: the query only reads the Supervisor's state.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

from msgspec import Meta

from .actions import ActionContext
from .decisions import HumanLayerReport
from .types import ShortText, _Frozen

__all__ = ["MAX_HISTORY_PAGE", "HistoryPage", "HistoryQuery", "StateKey", "StoredDecision"]

MAX_HISTORY_PAGE = 200
"""Decisions (and skipped entries) in one ``HistoryPage`` at most."""

StateKey = Annotated[str, Meta(min_length=1, max_length=255)]
"""A key of the Supervisor's decisions bucket (an action id)."""


class HistoryQuery(_Frozen, frozen=True, kw_only=True):
    """Ask a Supervisor for one page of the decisions it keeps (``hl.history.query``)."""

    after: StateKey | None = None
    """Only the decisions stored under a key that sorts after this one (the ``next`` of the
    previous page); ``None``: from the first."""
    limit: Annotated[int, Meta(ge=1, le=MAX_HISTORY_PAGE)] = 100
    since: Annotated[datetime, Meta(tz=True)] | None = None
    """Only the decisions made at or after this time."""


class StoredDecision(_Frozen, frozen=True, kw_only=True):
    """The first decision of one action, as stored: the report and the action decided."""

    key: StateKey
    report: HumanLayerReport
    action: ActionContext


class HistoryPage(_Frozen, frozen=True, kw_only=True):
    """The answer to a ``HistoryQuery``: one page, or an error saying why there is none."""

    decisions: Annotated[list[StoredDecision], Meta(max_length=MAX_HISTORY_PAGE)] = []
    skipped: Annotated[list[ShortText], Meta(max_length=MAX_HISTORY_PAGE)] = []
    """One line per stored entry that could not be read (damaged, no action): skipped."""
    next: StateKey | None = None
    """Ask again with ``after=next`` for the next page; ``None``: this was the last."""
    error: ShortText | None = None
