"""Assemble and run the review engine: the actors, in process or against NATS."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field

import anyio

from humangr.contracts import (
    ActionContext,
    ActionSubmitted,
    HumanLayerReport,
    LayerID,
    Outcome,
    ReportQuery,
    ReportReply,
    Subjects,
    decode,
    encode,
)
from humangr.engine.actor import Actor, ActorSystem, SupervisionPolicy
from humangr.engine.bus import Bus, MemoryBus
from humangr.engine.config import ReviewConfig
from humangr.engine.decisions import DecisionWaiters
from humangr.engine.errors import BusTimeoutError, EngineError
from humangr.engine.llm import LLMClient, prompts_digest
from humangr.engine.metrics import Metrics
from humangr.engine.review import action_hash, policy_version

__all__ = [
    "Engine",
    "current_policy_version",
    "fetch_report",
    "layer_actors",
    "new_action_id",
    "review_actors",
    "run_engine",
    "submit_and_wait",
]


def current_policy_version(config: ReviewConfig) -> str:
    """The policy version of ``config`` with the shipped prompts."""
    return policy_version(prompts_digest=prompts_digest(), thresholds=config.gate.thresholds())


def layer_actors(config: ReviewConfig, llm: LLMClient | None, *, instance: str = "") -> list[Actor]:
    from humangr.actors.layer import LayerActor

    return [
        LayerActor(
            lid,
            llm,
            max_repairs=config.max_repairs,
            adaptive_redundancy=config.adaptive_redundancy,
            instance=instance,
        )
        for lid in config.layers
    ]


def review_actors(
    config: ReviewConfig, llm: LLMClient | None, *, roles: Sequence[str] = ("supervisor", "layers")
) -> list[Actor]:
    """The actors of the review: the Supervisor and one actor per configured layer."""
    from humangr.actors.supervisor import SupervisorActor

    actors: list[Actor] = []
    if "supervisor" in roles:
        actors.append(SupervisorActor(config, policy_version=current_policy_version(config)))
    if "layers" in roles:
        actors.extend(layer_actors(config, llm))
    return actors


def new_action_id() -> str:
    """A fresh action id (a valid subject token)."""
    return f"act-{uuid.uuid4().hex[:20]}"


@dataclass(slots=True)
class Engine:
    """A running review engine: submit actions and await their decisions."""

    bus: Bus
    system: ActorSystem
    config: ReviewConfig
    llm: LLMClient | None
    waiters: DecisionWaiters = field(default_factory=DecisionWaiters)

    @property
    def subjects(self) -> Subjects:
        return self.system.subjects

    @property
    def metrics(self) -> Metrics:
        return self.system.metrics

    async def submit(
        self,
        action: ActionContext,
        *,
        action_id: str | None = None,
        layers: Sequence[LayerID] | None = None,
        timeout: float | None = None,
        final: bool = False,
    ) -> HumanLayerReport:
        """Submit ``action`` and return its decision (with ``final=True``: wait past
        ``needs_review`` for the human resolution or the review timeout)."""
        action_id = action_id or new_action_id()
        limit = timeout or self.config.layer_deadline_s * 2 + 5
        self.waiters.expect(action_id, final=final)
        await self.bus.publish(self.subjects.action_submit, _submission(action, action_id, layers))
        report = await self.waiters.wait(action_id, timeout=limit)
        if report is None:
            raise BusTimeoutError(self.subjects.decision(action.agent_id), limit)
        return report

    async def report(self, id_: str, *, timeout: float = 5.0) -> HumanLayerReport:
        return await fetch_report(self.bus, self.subjects, id_, timeout=timeout)


async def submit_and_wait(
    bus: Bus,
    subjects: Subjects,
    action: ActionContext,
    *,
    action_id: str | None = None,
    layers: Sequence[LayerID] | None = None,
    timeout: float = 300.0,
    final: bool = False,
) -> HumanLayerReport:
    """Publish an ``ActionSubmitted`` and wait for its decision on ``decisions.<agent_id>``."""
    action_id = action_id or new_action_id()
    async with bus.subscribe(subjects.decision(action.agent_id)) as decisions:
        await bus.publish(subjects.action_submit, _submission(action, action_id, layers))
        with anyio.move_on_after(timeout):
            async for msg in decisions:
                report = decode(msg.data, HumanLayerReport)
                if report.action_id != action_id:
                    continue
                if final and report.outcome is Outcome.NEEDS_REVIEW and not report.resolved_by:
                    continue
                return report
    raise BusTimeoutError(subjects.decision(action.agent_id), timeout)


def _submission(action: ActionContext, action_id: str, layers: Sequence[LayerID] | None) -> bytes:
    submitted = ActionSubmitted(
        action_id=action_id,
        action=action,
        action_hash=action_hash(action),
        layers=list(layers) if layers is not None else None,
    )
    return encode(submitted)


async def fetch_report(
    bus: Bus, subjects: Subjects, id_: str, *, timeout: float = 5.0
) -> HumanLayerReport:
    """Ask the Supervisor for a stored report by report id or action id."""
    reply = await bus.request(subjects.report_get, encode(ReportQuery(id=id_)), timeout=timeout)
    answer = decode(reply.data, ReportReply)
    if answer.report is None:
        raise EngineError(answer.error or f"no report {id_!r}")
    return answer.report


@asynccontextmanager
async def run_engine(
    *,
    bus: Bus | None = None,
    llm: LLMClient | None = None,
    config: ReviewConfig | None = None,
    metrics: Metrics | None = None,
    subjects: Subjects | None = None,
    policy: SupervisionPolicy | None = None,
    extra_actors: Sequence[Actor] = (),
    roles: Sequence[str] = ("supervisor", "layers"),
) -> AsyncIterator[Engine]:
    """Run the Supervisor and the layer actors (on ``bus``, or an in-process ``MemoryBus``).

    ``roles=("supervisor",)`` leaves the layers to worker processes on the same NATS.
    """
    config = config or ReviewConfig()
    own_bus = bus is None
    the_bus: Bus = bus if bus is not None else MemoryBus()
    try:
        system = ActorSystem(the_bus, subjects=subjects, metrics=metrics, policy=policy)
        system.add(*review_actors(config, llm, roles=roles), *extra_actors)
        engine = Engine(the_bus, system, config, llm)
        async with system.running(), anyio.create_task_group() as tg:
            await tg.start(engine.waiters.run, the_bus, system.subjects)
            try:
                yield engine
            finally:
                tg.cancel_scope.cancel()
    finally:
        if own_bus:
            await the_bus.close()
