"""Standing approvals (grants): a reviewer's approval that keeps applying for a while.

A ``Grant`` is created when a human approves a review with ``--grant DURATION``; every
Supervisor applies it before the policy file's rules decide (``engine/policy/grants.py``).
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Literal

from msgspec import Meta

from .actions import ToolName
from .human_review import MAX_GRANT_S
from .types import Count, Hash, Name, ShortText, Token, _Frozen

__all__ = [
    "MAX_GRANT_PAGE",
    "MAX_GRANT_S",
    "Grant",
    "GrantListing",
    "GrantQuery",
    "GrantRevoke",
    "GrantRevoked",
    "GrantScope",
]

MAX_GRANT_PAGE = 200
"""Grants in one ``GrantListing`` at most (a page; the next one is asked ``after`` it)."""

GrantScope = Literal["exact", "tool"]
"""``exact``: that agent's call with exactly the arguments the reviewer saw (may answer an
``ask`` rule); ``tool``: any arguments of that tool the policy would send to the layers."""


class Grant(_Frozen, frozen=True, kw_only=True):
    """One standing approval, as the state store keeps it."""

    id: Token
    agent_id: Token
    tool: ToolName
    scope: GrantScope = "exact"
    arguments_digest: Hash | None = None
    """For ``exact``: the digest of the tool call as reviewed (``call_digest``); required."""
    reviewer: Name
    reason: Annotated[str, Meta(min_length=1, max_length=2_000)]
    action_id: Token
    """The review the grant was created from."""
    created_at: datetime
    expires_at: datetime
    uses: Count = 0


class GrantQuery(_Frozen, frozen=True, kw_only=True):
    """Ask a Supervisor for the standing approvals, expired or not, in id order
    (``hl.grants.query``, request/reply, reviewers only), answered with a ``GrantListing``."""

    after: Token | None = None
    """Only the grants whose id sorts after this one (the last id of the previous page)."""
    limit: Annotated[int, Meta(ge=1, le=MAX_GRANT_PAGE)] = MAX_GRANT_PAGE


class GrantListing(_Frozen, frozen=True, kw_only=True):
    """The answer to a ``GrantQuery``: one page of grants, or an error saying why there is
    none."""

    grants: Annotated[list[Grant], Meta(max_length=MAX_GRANT_PAGE)] = []
    more: bool = False
    """More grants follow: ask again ``after`` the last id of this page."""
    error: ShortText | None = None


class GrantRevoke(_Frozen, frozen=True, kw_only=True):
    """End a standing approval at once (``hl.grants.revoke``, request/reply, reviewers only),
    answered with a ``GrantRevoked``."""

    grant_id: Token
    reviewer: Name
    """Who ends it (logged by the Supervisor)."""
    reason: ShortText = ""


class GrantRevoked(_Frozen, frozen=True, kw_only=True):
    """The answer to a ``GrantRevoke``: the grant ended, or an error saying why not."""

    grant_id: Token
    revoked: bool = False
    error: ShortText | None = None
