"""The ``Enforcer``: one agent call from envelope to a validated ``AgentResult``
(docs/design.md#the-enforcer-and-envelope-gates).

Order: the request is checked (a mode no reply could satisfy is ``BLOCKED`` at once), the
breaker of (project, agent, mode) is asked (open → ``BLOCKED`` with ``breaker_open``, no LLM
call), the prompt bundle is built, and ``complete_structured`` runs the call with the strict
parse (exactly one JSON object, a per-attempt deadline of ``limits.timeout_sec``), the schema
and the gates as its check, repairing up to ``max_repairs`` times. A reply that still fails, a
transport error or a timeout gives ``BLOCKED`` with the errors and ``validator_pass=False`` —
never the last output. Each of those counts as a breaker failure; a valid reply (whatever its
status) closes the breaker.

Transport retries are not repeated here: ``LLMTransportError`` means the client already gave
up after its own retries (``AnthropicLLM`` lets the SDK retry 429/5xx/overloaded/timeouts
with backoff, jitter and ``retry-after``; only it sees the status and headers). Retrying here would
multiply the attempts, so the enforcer treats every transport error as final for this call.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Mapping
from typing import Any

import anyio
import msgspec

from humangr.contracts import (
    AgentName,
    AgentResult,
    AgentRunRecord,
    BreakerChanged,
    MessageEnvelope,
    ResponseEnvelope,
    ResponseMeta,
    Usage,
    canonical_json,
    sha256_hex,
)
from humangr.engine.errors import ConfigError, StateError
from humangr.engine.llm import LLMClient, complete_structured
from humangr.engine.metrics import Metrics

from .breaker import BreakerKey, BreakerState, BreakerStore, CircuitBreaker
from .bundle import DEFAULT_MAX_TOKENS, DEFAULT_TOKEN_BUDGET, PromptAssets, build_request
from .gates import check_reply, messages, request_problems
from .outcome import EnforcerOutcome, _blocked, _idempotency_key, _refusal, _short
from .strict import StrictLLM

__all__ = ["AssetLoader", "Enforcer", "EnforcerOutcome", "default_assets"]

log = logging.getLogger("humangr.enforcer")
AssetLoader = Callable[[str, str], PromptAssets]
_MAX_ERRORS = 200
TRIAL_MARGIN_S = 60.0
"""Added to the longest a call may take to make the lease of a half-open trial."""


def default_assets(agent: str, variant: str) -> PromptAssets:
    """``agents.load_agent_assets``: the shipped prompts (``ConfigError`` when missing)."""
    from humangr.agents import load_agent_assets

    return load_agent_assets(agent, variant)


class Enforcer:
    """Runs agent calls through the bundle, the strict parse, the gates, the repairs and the
    circuit breakers. One instance serves every agent of a process (it keeps no per-call
    state); ``breakers`` are shared through their state store with every other worker."""

    def __init__(
        self,
        llm: LLMClient,
        *,
        breakers: BreakerStore | None = None,
        metrics: Metrics | None = None,
        max_repairs: int = 2,
        assets: AssetLoader = default_assets,
        token_budget: int = DEFAULT_TOKEN_BUDGET,
        max_tokens: int = DEFAULT_MAX_TOKENS,
    ) -> None:
        if max_repairs < 0:
            raise ConfigError(f"max_repairs must be >= 0, got {max_repairs}")
        if token_budget < 1 or max_tokens < 1:
            raise ConfigError("token_budget and max_tokens must be >= 1")
        self.llm = llm
        self.breakers = breakers if breakers is not None else BreakerStore()
        self.metrics = metrics
        self.max_repairs = max_repairs
        self.assets = assets
        self.token_budget = token_budget
        self.max_tokens = max_tokens

    def _reject(self, agent: str, gate: str) -> None:
        if self.metrics is not None:
            self.metrics.envelope_rejections.labels(agent=agent, gate=gate).inc()

    def _check(self, envelope: MessageEnvelope) -> Callable[[Any], list[str]]:
        def check(value: Any) -> list[str]:
            if not isinstance(value, ResponseEnvelope):
                return ["the reply is not a ResponseEnvelope"]
            violations = check_reply(envelope, value)
            for gate in dict.fromkeys(v.gate for v in violations):
                self._reject(envelope.agent.value, gate)
            return messages(violations)

        return check

    async def run(
        self, envelope: MessageEnvelope, *, artifacts: Mapping[str, str] | None = None
    ) -> EnforcerOutcome:
        """Call ``envelope.agent`` and return a validated result, or ``BLOCKED`` with the errors.

        ``artifacts`` (path → text) are shown as budgeted excerpts beside the envelope.
        Cancellation propagates; a half-open trial that is cancelled is released.
        """
        started = time.perf_counter()
        key: BreakerKey = (envelope.project_id, envelope.agent.value, envelope.mode)
        request_hash = sha256_hex(canonical_json(envelope))
        idempotency_key = _idempotency_key(envelope, request_hash)
        events: list[BreakerChanged] = []

        def finish(
            reply: ResponseEnvelope,
            errors: list[str],
            *,
            passed: bool,
            attempts: int = 0,
            repairs: int = 0,
            usage: Usage | None = None,
            breaker_open: bool = False,
        ) -> EnforcerOutcome:
            usage = usage or Usage()
            errors = [_short(e) for e in errors[:_MAX_ERRORS]]
            result = AgentResult(
                request_id=envelope.request_id,
                project_id=envelope.project_id,
                agent=envelope.agent,
                mode=envelope.mode,
                task_id=envelope.task_id,
                envelope=reply,
                validator_pass=passed,
                validation_errors=errors,
                attempts=attempts,
                repairs=repairs,
                breaker_open=breaker_open,
                usage=usage,
            )
            record = AgentRunRecord(
                project_id=envelope.project_id,
                agent=envelope.agent,
                mode=envelope.mode,
                task_id=envelope.task_id,
                request_id=envelope.request_id,
                request_hash=request_hash,
                model=reply.meta.model,
                attempts=attempts,
                repairs=repairs,
                validator_pass=passed,
                validation_errors=errors,
                artifact_paths=[a.path for a in reply.artifacts] if passed else [],
                status=reply.status,
                usage=usage,
                duration_ms=(time.perf_counter() - started) * 1000,
            )
            return EnforcerOutcome(result=result, record=record, breaker_events=tuple(events))

        problems = request_problems(envelope)
        if problems:
            summary = f"the request cannot be served: {'; '.join(problems)}"
            return finish(
                _blocked(summary, problems, model="", key=idempotency_key), problems, passed=False
            )
        try:
            assets = self.assets(envelope.agent.value, envelope.variant)
        except ConfigError as exc:
            errors = [f"prompt assets: {exc}"]
            return finish(
                _blocked(errors[0], errors, model="", key=idempotency_key), errors, passed=False
            )

        lease = envelope.limits.timeout_sec * (self.max_repairs + 1) * 2 + TRIAL_MARGIN_S
        try:
            allowed, change, token, breaker = await self.breakers.acquire(key, lease=lease)
        except StateError as exc:
            error = f"circuit breaker state unavailable, call refused: {exc}"
            log.error("%s", error)
            return finish(
                _blocked(error, [error], model="", key=idempotency_key), [error], passed=False
            )
        if change is not None:
            events.append(await self._changed(key, change, breaker))
        if not allowed:
            error = _refusal(envelope, breaker)
            return finish(
                _blocked(error, [error], model="", key=idempotency_key),
                [error],
                passed=False,
                breaker_open=True,
            )

        settled = False
        try:
            request = build_request(
                envelope,
                assets,
                artifacts=artifacts,
                token_budget=self.token_budget,
                max_tokens=self.max_tokens,
            )
            strict = StrictLLM(
                self.llm,
                timeout=envelope.limits.timeout_sec,
                on_reject=lambda gate: self._reject(envelope.agent.value, gate),
            )
            outcome = await complete_structured(
                strict,
                request,
                max_repairs=self.max_repairs,
                check=self._check(envelope),
                metrics=self.metrics,
            )
            settled = True
        finally:
            if not settled:
                with anyio.CancelScope(shield=True):
                    await self._release(key, token)
        ok = outcome.ok and isinstance(outcome.value, ResponseEnvelope)
        try:
            verdict, breaker = await (self.breakers.succeed if ok else self.breakers.fail)(key)
        except StateError as exc:
            log.error(
                "circuit breaker %s: the %s of this call is not recorded: %s",
                "/".join(key),
                "success" if ok else "failure",
                exc,
            )
            verdict = None
        if verdict is not None:
            events.append(await self._changed(key, verdict, breaker))
        model = outcome.model or ""
        if ok:
            meta = ResponseMeta(
                round=envelope.attempt, model=model, idempotency_key=idempotency_key
            )
            reply: ResponseEnvelope = msgspec.structs.replace(outcome.value, meta=meta)
            return finish(
                reply,
                [],
                passed=True,
                attempts=outcome.attempts,
                repairs=outcome.repairs,
                usage=outcome.usage,
            )
        errors = list(outcome.errors) or [outcome.error or "no valid reply"]
        summary = f"{envelope.agent.value} {envelope.mode}: {outcome.error or 'no valid reply'}"
        return finish(
            _blocked(summary, errors, model=model, key=idempotency_key),
            errors,
            passed=False,
            attempts=outcome.attempts,
            repairs=outcome.repairs,
            usage=outcome.usage,
        )

    async def _release(self, key: BreakerKey, token: str) -> None:
        try:
            await self.breakers.release(key, token)
        except StateError as exc:
            log.error("circuit breaker %s: the trial is not released: %s", "/".join(key), exc)

    async def _changed(
        self, key: BreakerKey, state: BreakerState, breaker: CircuitBreaker
    ) -> BreakerChanged:
        project, agent, mode = key
        log.warning(
            "circuit breaker %s/%s/%s is now %s (%d failure(s))",
            project,
            agent,
            mode,
            state,
            breaker.failures,
        )
        if self.metrics is not None:
            try:
                worst = await self._worst(agent, mode)
            except StateError as exc:
                log.error("breaker metric of %s/%s not updated: %s", agent, mode, exc)
            else:
                self.metrics.set_breaker(agent, mode, worst)
        return BreakerChanged(
            project_id=project,
            agent=AgentName(agent),
            mode=mode,
            state=state,
            failures=breaker.failures,
        )

    async def _worst(self, agent: str, mode: str) -> BreakerState:
        states = {
            b.state for (_, a, m), b in await self.breakers.items() if (a, m) == (agent, mode)
        }
        worst: tuple[BreakerState, ...] = ("open", "half_open")
        return next((s for s in worst if s in states), "closed")
