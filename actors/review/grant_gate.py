"""The Supervisor's side of standing approvals: read the grants, apply them, count their uses.

Every action reads the shared ``grants`` bucket afresh, so a grant another Supervisor (or
``humangr revoke``) changed applies — or stops applying — at once. Failing closed: grants that
cannot be read or applied leave the policy's decision as it was (never an allow).
"""

from __future__ import annotations

import logging
from datetime import timedelta

import anyio

from humangr.contracts import (
    MAX_GRANT_S,
    ActionContext,
    ActionSubmitted,
    Grant,
    ReviewResolution,
    sha256_hex,
)
from humangr.contracts.types import utc_now
from humangr.engine.metrics import Metrics
from humangr.engine.policy import Effect, PolicyDecision
from humangr.engine.policy.grants import apply_grants, call_digest
from humangr.engine.state import StateStore
from humangr.engine.state.grants import GrantBook
from humangr.engine.state.records import OnDamaged

__all__ = ["GrantGate", "create_grant", "grant_id_of", "grant_problem"]

log = logging.getLogger("humangr.supervisor")
_USE_TIMEOUT_S = 2.0


class GrantGate:
    """The grants of one store, as a Supervisor applies them (``open`` it first)."""

    def __init__(self, store: StateStore, metrics: Metrics, on_damaged: OnDamaged) -> None:
        self.book = GrantBook(store, on_damaged=on_damaged)
        self.metrics = metrics

    async def open(self) -> GrantGate:
        """Open the grants bucket."""
        await self.book.open()
        return self

    async def decide(
        self, submitted: ActionSubmitted, decision: PolicyDecision | None
    ) -> tuple[PolicyDecision | None, Grant | None]:
        """``decision`` after the grants in force now, and the grant that decided (if any)."""
        if submitted.action.tool_call is None or (
            decision is not None and decision.effect in (Effect.DENY, Effect.ALLOW)
        ):
            return decision, None  # nothing a grant could change: the store is not read
        try:
            now = utc_now()
            grants = await self.book.active(now)
            self.metrics.grants_active.set(len(grants))
            return apply_grants(decision, grants, submitted.action, now)
        except Exception:
            log.error(
                "grants of %s could not be applied; the policy decides",
                submitted.action_id,
                exc_info=True,
            )
            return decision, None

    async def used(self, grant: Grant | None) -> None:
        """Count a use of ``grant`` (metric, and in the store, best effort and bounded)."""
        if grant is None:
            return
        self.metrics.grant_uses.labels(scope=grant.scope).inc()
        try:
            with anyio.move_on_after(_USE_TIMEOUT_S):
                await self.book.used(grant.id)
        except Exception:
            log.warning("the use of grant %s was not counted", grant.id, exc_info=True)


def grant_id_of(action_id: str) -> str:
    """The id of the grant a review's approval creates (one per review, whoever resolves)."""
    return "g" + sha256_hex(action_id.encode())[:23]


def grant_problem(resolution: ReviewResolution, action: ActionContext) -> str | None:
    """Why ``resolution`` cannot create a grant for ``action`` (``None``: it can)."""
    if resolution.verdict != "approve":
        return "a grant comes with an approve only; reject without --grant"
    if not 0 < resolution.grant_s <= MAX_GRANT_S:
        return f"a grant lasts more than 0 s and at most {MAX_GRANT_S:.0f} s (30 days)"
    if action.tool_call is None:
        return "the action is not a tool call: a grant allows tool calls only"
    return None


async def create_grant(
    book: GrantBook, resolution: ReviewResolution, action: ActionContext
) -> None:
    """Store the grant of an approve that won (the approval stands if this fails: logged)."""
    call = action.tool_call
    if call is None:
        return
    now = utc_now()
    exact = resolution.grant_scope == "exact"
    grant = Grant(
        id=grant_id_of(resolution.action_id),
        agent_id=action.agent_id,
        tool=call.name,
        scope=resolution.grant_scope,
        arguments_digest=call_digest(call) if exact else None,
        reviewer=resolution.reviewer,
        reason=resolution.reason,
        action_id=resolution.action_id,
        created_at=now,
        expires_at=now + timedelta(seconds=resolution.grant_s),
    )
    try:
        if await book.add(grant):
            log.info(
                "grant %s: %s of agent %s (%s) until %s, by %s",
                grant.id,
                grant.tool,
                grant.agent_id,
                grant.scope,
                grant.expires_at.isoformat(),
                grant.reviewer,
            )
    except Exception:
        log.error("the grant of review %s was not stored", resolution.action_id, exc_info=True)
