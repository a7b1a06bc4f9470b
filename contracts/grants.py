"""Standing approvals (grants): a reviewer's approval that keeps applying for a while.

A ``Grant`` is created when a human approves a review with ``--grant DURATION``; every
Supervisor applies it before the policy file's rules decide (``engine/policy/grants.py``).
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Literal

from msgspec import Meta

from .review import MAX_GRANT_S, ToolName, _Frozen
from .types import Count, Hash, Name, Token

__all__ = ["MAX_GRANT_S", "Grant", "GrantScope"]

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
