"""Human review: the request for a human's decision, the human's answer (with a standing
approval, if any), and asking a Supervisor for the reviews that wait for one."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Literal

import msgspec
from msgspec import Meta

from .actions import ActionContext
from .decisions import HumanLayerReport
from .types import Count, Hash, Name, ShortText, Token, _Frozen, utc_now

__all__ = [
    "MAX_GRANT_S",
    "ReviewDetail",
    "ReviewListing",
    "ReviewQuery",
    "ReviewRequested",
    "ReviewResolution",
    "ReviewSummary",
]

MAX_GRANT_S = 30 * 24 * 3600.0
"""The longest a standing approval (grant) may last: 30 days; longer is refused, never cut."""


class ReviewRequested(_Frozen, frozen=True, kw_only=True):
    """A human must decide (``hl.reviews.pending``)."""

    action_id: Token
    action_hash: Hash
    report_id: Token
    action: ActionContext
    blocking_reasons: Annotated[list[ShortText], Meta(max_length=200)] = []
    deadline: datetime


class ReviewResolution(_Frozen, frozen=True, kw_only=True):
    """A human's answer (``hl.reviews.<action_id>.resolve``)."""

    action_id: Token
    action_hash: Hash
    verdict: Literal["approve", "reject"]
    reviewer: Name
    reason: Annotated[str, Meta(min_length=20, max_length=2_000)]
    resolved_at: datetime = msgspec.field(default_factory=utc_now)
    grant_s: Annotated[float, Meta(ge=0, le=MAX_GRANT_S)] = 0
    """With an approve: keep approving this agent's calls for this many seconds (a standing
    approval, ``Grant``); 0: none. At most ``MAX_GRANT_S``."""
    grant_scope: Literal["exact", "tool"] = "exact"
    """What the grant allows: the exact call reviewed, or any call of its tool the policy
    would send to the layers."""


class ReviewQuery(_Frozen, frozen=True, kw_only=True):
    """Ask a Supervisor for the reviews waiting for a human, or for one review in full
    (``hl.reviews.query``, request/reply, answered with a ``ReviewListing``)."""

    action_id: Annotated[str, Meta(min_length=1, max_length=64)] | None = None
    """One review (by action id or report id), with its action; ``None``: the pending list."""
    limit: Annotated[int, Meta(ge=1, le=1_000)] = 200


class ReviewSummary(_Frozen, frozen=True, kw_only=True):
    """One review waiting for a human, as a list shows it."""

    action_id: Token
    agent_id: Token
    action_type: Name
    action_description: ShortText = ""
    report_id: Token
    action_hash: Hash
    blocking_reasons: Annotated[list[ShortText], Meta(max_length=200)] = []
    findings: Count = 0
    decided_at: datetime
    deadline: datetime


class ReviewDetail(_Frozen, frozen=True, kw_only=True):
    """One review in full: its decision, the action (with its diff) and where it stands."""

    report: HumanLayerReport
    action: ActionContext | None = None
    pending: bool = False
    deadline: datetime | None = None
    final: HumanLayerReport | None = None
    """The human's (or the deadline's) decision, once there is one."""


class ReviewListing(_Frozen, frozen=True, kw_only=True):
    """The answer to a ``ReviewQuery``: the pending reviews (oldest deadline first), or one
    review, or an error saying why there is none."""

    reviews: Annotated[list[ReviewSummary], Meta(max_length=1_000)] = []
    detail: ReviewDetail | None = None
    error: ShortText | None = None
