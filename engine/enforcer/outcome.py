"""What the ``Enforcer`` hands back: the ``EnforcerOutcome`` of a call, and the ``BLOCKED``
replies it builds when a call cannot be served (a bad request, an open breaker, no valid reply)."""

from __future__ import annotations

import time
from dataclasses import dataclass

from humangr.contracts import (
    AgentResult,
    AgentRunRecord,
    BreakerChanged,
    MessageEnvelope,
    NextActions,
    ResponseEnvelope,
    ResponseMeta,
    ResponseStatus,
)

from .breaker import CircuitBreaker

__all__ = ["EnforcerOutcome"]

_SHORT = 2_000
_LONG = 20_000
_MAX_KEY = 128
_ESCALATE_TO = "monitor"


@dataclass(frozen=True, slots=True)
class EnforcerOutcome:
    """What one call produced: the result, its audit record and the breaker changes (in
    order; a call can move a breaker open → half_open → closed)."""

    result: AgentResult
    record: AgentRunRecord
    breaker_events: tuple[BreakerChanged, ...] = ()

    @property
    def breaker_event(self) -> BreakerChanged | None:
        return self.breaker_events[-1] if self.breaker_events else None


def _idempotency_key(envelope: MessageEnvelope, request_hash: str) -> str:
    """``<project>:<agent>:<mode>:<task or ->:<attempt>`` (AGENT_PROTOCOL.md), or the request
    hash when that would be longer than the field allows."""
    key = (
        f"{envelope.project_id}:{envelope.agent.value}:{envelope.mode}:"
        f"{envelope.task_id or '-'}:{envelope.attempt}"
    )
    return key if len(key) <= _MAX_KEY else request_hash


def _short(text: str) -> str:
    return text if len(text) <= _SHORT else text[: _SHORT - 1] + "…"


def _blocked(summary: str, errors: list[str], *, model: str, key: str) -> ResponseEnvelope:
    return ResponseEnvelope(
        status=ResponseStatus.BLOCKED,
        summary=summary if len(summary) <= _LONG else summary[: _LONG - 1] + "…",
        next_actions=NextActions(owner=_ESCALATE_TO, items=[_short(e) for e in errors[:50]]),
        meta=ResponseMeta(model=model, idempotency_key=key),
    )


def _refusal(envelope: MessageEnvelope, breaker: CircuitBreaker) -> str:
    retry_at = breaker.retry_at
    when = ""
    if breaker.state == "open" and retry_at is not None:
        when = " until " + time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(retry_at))
    elif breaker.state == "half_open":
        when = " while its trial call runs"
    return (
        f"circuit breaker {breaker.state} for {envelope.agent.value}/{envelope.mode} of "
        f"project {envelope.project_id} after {breaker.failures} failure(s): calls are "
        f"refused{when}"
    )
