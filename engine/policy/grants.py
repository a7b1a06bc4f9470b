"""Standing approvals (grants) applied before the policy file's rules decide.

A grant allows one agent's calls of one tool until it expires:

* ``exact`` — the call with exactly the arguments the reviewer saw (the digest of the whole
  tool call: name, arguments, kind, workspace, truncation); it may answer an ``ask`` rule;
* ``tool`` — any arguments the policy would send to the layers (a ``review`` rule or the
  default), never what an ``ask`` or ``deny`` rule catches.

No grant overrides a ``deny`` rule; the allow it yields goes through ``policy_report``, which
keeps a rejection of the local checks (a strong veto). An expired grant never applies. Pure:
the clock is a parameter.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime

from humangr.contracts import ActionContext, Grant, ToolCall, canonical_json, sha256_hex

from .model import Effect, PolicyDecision

__all__ = ["MAX_GRANTS_CHECKED", "apply_grants", "call_digest", "grant_applies"]

MAX_GRANTS_CHECKED = 10_000
"""At most this many grants are looked at per action (bounded work)."""


def call_digest(call: ToolCall) -> str:
    """sha256 (hex) of the canonical JSON of ``call``: what an ``exact`` grant is bound to."""
    return sha256_hex(canonical_json(call))


def grant_applies(
    grant: Grant,
    decision: PolicyDecision | None,
    action: ActionContext,
    now: datetime,
    *,
    digest: str | None = None,
) -> bool:
    """Whether ``grant`` allows ``action`` given what the policy decided (``None``: no policy
    file, the layers review it). ``digest``: ``call_digest`` of the call, if already known."""
    call = action.tool_call
    if call is None or now >= grant.expires_at:
        return False
    if grant.agent_id != action.agent_id or grant.tool != call.name:
        return False
    effect = Effect.REVIEW if decision is None else decision.effect
    if effect in (Effect.DENY, Effect.ALLOW):
        return False  # a deny stands; an allow needs no grant
    if grant.scope == "tool":
        return effect is Effect.REVIEW
    if grant.scope != "exact" or grant.arguments_digest is None:
        return False
    return grant.arguments_digest == (digest if digest is not None else call_digest(call))


def apply_grants(
    decision: PolicyDecision | None,
    grants: Iterable[Grant],
    action: ActionContext,
    now: datetime,
) -> tuple[PolicyDecision | None, Grant | None]:
    """The decision after the grants: an ``allow`` decided by the first grant (by id) that
    applies, with that grant; else ``decision`` unchanged and ``None``."""
    call = action.tool_call
    if call is None or (decision is not None and decision.effect in (Effect.DENY, Effect.ALLOW)):
        return decision, None
    digest: str | None = None
    found: Grant | None = None
    for count, grant in enumerate(grants):
        if count >= MAX_GRANTS_CHECKED:
            break
        if grant.scope == "exact" and digest is None:
            digest = call_digest(call)
        if grant_applies(grant, decision, action, now, digest=digest) and (
            found is None or grant.id < found.id
        ):
            found = grant
    if found is None:
        return decision, None
    rule_id = decision.rule_id if decision is not None else ""
    reason = f"standing approval by {found.reviewer}: {found.reason}"
    return PolicyDecision(Effect.ALLOW, rule_id, reason[:2_000], grant_id=found.id), found
