"""``AgentActor``: one pipeline agent (CTO, Engineer, PM, Dev or QA) behind the enforcer."""

from __future__ import annotations

import logging
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from humangr.contracts import AgentName, MessageEnvelope
from humangr.engine.actor import Actor, ActorContext, Route
from humangr.engine.bus import Msg
from humangr.engine.enforcer import BreakerStore, Enforcer
from humangr.engine.enforcer.bundle import DEFAULT_MAX_TOKENS, DEFAULT_TOKEN_BUDGET
from humangr.engine.enforcer.enforcer import AssetLoader, default_assets
from humangr.engine.errors import ConfigError, MessageRefused
from humangr.engine.llm import LLMClient
from humangr.engine.llm.metered import metered
from humangr.engine.state import StateStore

__all__ = ["LLM_AGENTS", "AgentActor", "agent_actors", "serve_actors"]

log = logging.getLogger("humangr.agent")

LLM_AGENTS = (AgentName.CTO, AgentName.ENGINEER, AgentName.PM, AgentName.DEV, AgentName.QA)
"""The agents that are LLM workers; the Monitor is a state machine, not an agent actor."""


class AgentActor(Actor):
    """Serves ``<prefix>.agents.<agent>.request`` in the queue group ``agent-<agent>``.

    Each ``MessageEnvelope`` runs through the ``Enforcer``; the actor then publishes any
    ``BreakerChanged`` on ``breaker``, the ``AgentRunRecord`` on ``audit.<project_id>`` and the
    ``AgentResult`` on ``agents.result``, in that order. An envelope addressed to another agent
    is refused (dead letter). Agents never touch the disk: artifact contents come in
    ``inputs`` (see ``engine.enforcer.bundle``).
    """

    max_concurrency = 16

    def __init__(
        self,
        agent: AgentName,
        llm: LLMClient,
        *,
        breakers: BreakerStore,
        max_repairs: int = 2,
        assets: AssetLoader = default_assets,
        token_budget: int = DEFAULT_TOKEN_BUDGET,
        max_tokens: int = DEFAULT_MAX_TOKENS,
        instance: str = "",
    ) -> None:
        if agent not in LLM_AGENTS:
            raise ConfigError(
                f"{agent} is not an LLM agent; agent actors exist for "
                f"{', '.join(a.value for a in LLM_AGENTS)}"
            )
        self.agent = agent
        self.llm = llm
        self.breakers = breakers
        self.options: dict[str, Any] = {
            "max_repairs": max_repairs,
            "assets": assets,
            "token_budget": token_budget,
            "max_tokens": max_tokens,
        }
        self.name = f"agent-{agent.value}{'-' + instance if instance else ''}"
        self.enforcer: Enforcer | None = None

    def routes(self, ctx: ActorContext) -> Sequence[Route[Any]]:
        self._ctx = ctx
        self.enforcer = Enforcer(
            metered(self.llm, ctx.metrics),
            breakers=self.breakers,
            metrics=ctx.metrics,
            **self.options,
        )
        return [
            Route(
                ctx.subjects.agent_request(self.agent.value),
                MessageEnvelope,
                self._on_request,
                queue=f"agent-{self.agent.value}",
            )
        ]

    async def _on_request(self, envelope: MessageEnvelope, _: Msg) -> None:
        if envelope.agent is not self.agent:
            raise MessageRefused(
                f"envelope for agent {envelope.agent.value} sent to the {self.agent.value} actor"
            )
        assert self.enforcer is not None
        outcome = await self.enforcer.run(envelope)
        result = outcome.result
        log.info(
            "%s %s %s: %s (valid %s, attempts %d, repairs %d)",
            envelope.project_id,
            self.agent.value,
            envelope.mode,
            result.envelope.status.value,
            result.validator_pass,
            result.attempts,
            result.repairs,
        )
        subjects = self._ctx.subjects
        for event in outcome.breaker_events:
            await self._ctx.publish(subjects.breaker, event)
        await self._ctx.publish(subjects.audit(envelope.project_id), outcome.record)
        await self._ctx.publish(subjects.agent_result, result)


def agent_actors(
    llm: LLMClient,
    *,
    breakers: BreakerStore,
    agents: Iterable[AgentName] = LLM_AGENTS,
    **options: Any,
) -> list[AgentActor]:
    """One ``AgentActor`` per agent, sharing ``breakers``."""
    return [AgentActor(agent, llm, breakers=breakers, **options) for agent in agents]


def serve_actors(
    *, llm: LLMClient | None = None, root: Path | str, state: StateStore | None = None
) -> list[Actor]:
    """The ``agents`` role of ``humangr serve``: one ``AgentActor`` per LLM agent, with the
    circuit breakers in ``state`` (the deployment's store, shared by every agents process on
    it; without one, in this process's memory)."""
    if llm is None:
        raise ConfigError("the agents role needs an LLM: --llm anthropic or --llm scripted:FILE")
    return list(agent_actors(llm, breakers=BreakerStore(state)))
