"""Assemble and run the review engine: the actors, in process or against NATS."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from functools import partial
from typing import TYPE_CHECKING

import anyio

from humangr.contracts import (
    ActionContext,
    HumanLayerReport,
    LayerID,
    Subjects,
)
from humangr.engine.actor import Actor, ActorSystem, SupervisionPolicy
from humangr.engine.bus import Bus, MemoryBus
from humangr.engine.checks.release import checks_digest
from humangr.engine.checks.tools.resemblance import model_digest
from humangr.engine.config import ReviewConfig
from humangr.engine.decisions import DecisionWaiters, LocalDecisions
from humangr.engine.llm import LLMClient, prompts_digest
from humangr.engine.metrics import Metrics
from humangr.engine.review import policy_version
from humangr.engine.signing import SigningKey
from humangr.engine.state import StateStore
from humangr.engine.submission import fetch_report, new_action_id, submission, submit_and_wait

if TYPE_CHECKING:
    from humangr.actors.review.layer import LayerActor

__all__ = [
    "Engine",
    "current_policy_version",
    "fetch_report",
    "layer_actors",
    "new_action_id",
    "review_actors",
    "run_engine",
    "submit_and_wait",
    "worker_keys",
]

log = logging.getLogger("humangr.runtime")


def current_policy_version(
    config: ReviewConfig, layers: Sequence[LayerID] | None = None, *, llm_review: bool = True
) -> str:
    """The policy version of ``config`` with the shipped prompts: the layer table, the prompts,
    the thresholds, the repair budget, adaptive redundancy, the unsafe switch, whether the
    layers run LLM runs, the layers that review (``layers``, by default the configured
    ones), the local checks shipped (their code's digest: an upgrade reviews calls again) and
    the policy file's sha256 (``config.rules``)."""
    chosen = config.layers if layers is None else tuple(layers)
    thresholds = {
        "llm_review": llm_review,
        **config.gate.thresholds(),
        "max_repairs": config.max_repairs,
        "adaptive_redundancy": config.adaptive_redundancy,
        "unsafe_policy": config.unsafe_policy,
        "review_layers": sorted(lid.value for lid in chosen),
        "local_checks": checks_digest(),
    }
    if config.rules is not None:
        thresholds["policy_file"] = config.rules.digest
    if config.resemblance_model is not None:
        thresholds["resemblance_model"] = model_digest(config.resemblance_model)
    if config.allowed_hosts or config.allowed_email_domains:
        thresholds["allowed_hosts"] = sorted({h.lower() for h in config.allowed_hosts})
        thresholds["allowed_email_domains"] = sorted(
            {d.lower() for d in config.allowed_email_domains}
        )
    return policy_version(prompts_digest=prompts_digest(), thresholds=thresholds)


def layer_actors(
    config: ReviewConfig,
    llm: LLMClient | None,
    *,
    instance: str = "",
    worker_key: SigningKey | None = None,
) -> list[Actor]:
    """One ``LayerActor`` per configured layer. They sign their reports with ``worker_key``
    (a worker process's key), or each with a fresh key of its own when it is ``None``."""
    from humangr.actors.review.layer import LayerActor

    return [
        LayerActor(
            lid, llm, max_repairs=config.max_repairs, instance=instance, signing_key=worker_key
        )
        for lid in config.layers
    ]


def worker_keys(actors: Sequence[Actor]) -> tuple[str, ...]:
    """The public keys the layer actors among ``actors`` sign their reports with."""
    from humangr.actors.review.layer import LayerActor

    keys = (actor.public_key for actor in actors if isinstance(actor, LayerActor))
    return tuple(dict.fromkeys(keys))


def _by_layer(actors: Sequence[Actor]) -> dict[LayerID, LayerActor]:
    from humangr.actors.review.layer import LayerActor

    return {actor.layer_id: actor for actor in actors if isinstance(actor, LayerActor)}


def review_actors(
    config: ReviewConfig,
    llm: LLMClient | None,
    *,
    roles: Sequence[str] = ("supervisor", "layers"),
    llm_review: bool | None = None,
    state: StateStore | None = None,
    resume_inflight: bool = True,
    signing_key: SigningKey | None = None,
    trusted_workers: Sequence[str] = (),
    worker_key: SigningKey | None = None,
    on_decision: Callable[[HumanLayerReport], bool | None] | None = None,
) -> list[Actor]:
    """The actors of the review: the Supervisor and one actor per configured layer.

    ``llm_review`` tells the Supervisor whether the layers run LLM runs (by default: whether
    ``llm`` is given); a Supervisor in its own process is told by its operator. ``state`` is
    where the Supervisor keeps decisions and pending reviews (memory by default);
    ``resume_inflight`` runs again the reviews of a Supervisor that died (leave it on unless
    the bus redelivers unfinished work, as JetStream does). ``signing_key`` signs the
    decisions (a new key when ``None``). The Supervisor accepts layer reports signed by the
    ``trusted_workers`` keys and by the layer actors made here (signing with ``worker_key``,
    or each with a fresh key); any other report is dead-lettered. The layer actors made here
    get the Supervisor's tasks in process, with no bus message. ``on_decision`` is told of
    each decision the Supervisor signs and records, as the object signed (``LocalDecisions``);
    ``True`` from it: whoever would receive it from the bus has it, so it is not published."""
    from humangr.actors.review.supervisor import SupervisorActor

    actors: list[Actor] = []
    layers = layer_actors(config, llm, worker_key=worker_key) if "layers" in roles else []
    if "supervisor" in roles:
        with_llm = llm is not None if llm_review is None else llm_review
        policies: dict[tuple[LayerID, ...], str] = {}

        def policy(layers: Sequence[LayerID]) -> str:
            key = tuple(layers)
            if key not in policies:
                policies[key] = current_policy_version(config, key, llm_review=with_llm)
            return policies[key]

        actors.append(
            SupervisorActor(
                config,
                policy=policy,
                llm_review=with_llm,
                state=state,
                resume_inflight=resume_inflight,
                signing_key=signing_key,
                trusted_workers=(*trusted_workers, *worker_keys(layers)),
                on_decision=on_decision,
                local_layers=_by_layer(layers),
            )
        )
    actors.extend(layers)
    return actors


@dataclass(slots=True)
class Engine:
    """A running review engine: submit actions and await their decisions."""

    bus: Bus
    system: ActorSystem
    config: ReviewConfig
    llm: LLMClient | None
    public_key: str = ""
    """The public key the Supervisor signs decisions with (``humangr verify --key``)."""
    waiters: DecisionWaiters = field(default_factory=DecisionWaiters)
    local: LocalDecisions = field(default_factory=LocalDecisions)
    """The decisions this engine's Supervisor signs, handed over in process (``listen``)."""

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
        ``needs_review`` for the human resolution or the review timeout); no decision in time
        raises ``ReviewTimeout``, a refusal ``SubmissionRefused``."""
        limit = timeout or self.config.layer_deadline_s * 2 + 5
        submitted = submission(action, action_id or new_action_id(), layers)
        return await self.waiters.submit(
            self.bus, self.subjects, submitted, timeout=limit, final=final
        )

    async def report(self, id_: str, *, timeout: float = 5.0) -> HumanLayerReport:
        return await fetch_report(self.bus, self.subjects, id_, timeout=timeout)


async def _hand_over(
    system: ActorSystem, bus: MemoryBus, subject: str, data: bytes, headers: dict[str, str]
) -> bool:
    """Give a submission of this process straight to its Supervisor when the Supervisor alone
    would receive it from the bus (no other subscriber misses it); ``False``: publish it."""
    if bus.receivers(subject) != 1:
        return False
    return await system.deliver_here("supervisor", subject, data, headers)


def _heard_here(engine: Engine, bus: MemoryBus, report: HumanLayerReport) -> bool:
    """Whether the engine's own waiters, told of ``report`` in process, are all that would
    receive it from the bus (their listener alone is subscribed to its subject)."""
    listener = engine.waiters.listener
    subject = engine.subjects.decision(report.agent_id)
    return listener is not None and bus.only_receiver(subject, listener)


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
    state: StateStore | None = None,
    signing_key: SigningKey | None = None,
    trusted_workers: Sequence[str] = (),
    worker_key: SigningKey | None = None,
) -> AsyncIterator[Engine]:
    """Run the Supervisor and the layer actors (on ``bus``, or an in-process ``MemoryBus``).

    ``roles=("supervisor",)`` leaves the layers to worker processes on the same NATS.
    ``state`` keeps decisions and pending reviews (``SqliteStateStore`` to survive a restart
    in one process, ``KeyValueStateStore`` on JetStream; memory by default).
    ``signing_key`` signs the decisions (a new key for this engine when ``None``; its public
    key is ``engine.public_key``). Its layer actors sign their reports with ``worker_key``, or
    with a fresh key each; the Supervisor trusts exactly those, plus ``trusted_workers`` (the
    keys of layer worker processes). Engines sharing one NATS and subject prefix share their
    layers' queue groups, so give them the same ``worker_key`` (or trust each other's).
    """
    config = config or ReviewConfig()
    own_bus = bus is None
    the_bus: Bus = bus if bus is not None else MemoryBus()
    try:
        system = ActorSystem(
            the_bus,
            subjects=subjects,
            metrics=metrics,
            policy=policy,
            claim_exhausted="supervisor" in roles,  # the Supervisor claims exhausted work
        )
        durable = getattr(the_bus, "jetstream", None) is not None
        key = signing_key or SigningKey.generate()
        local = LocalDecisions()
        actors = review_actors(
            config,
            llm,
            roles=roles,
            state=state,
            resume_inflight=not durable,
            signing_key=key,
            trusted_workers=trusted_workers,
            worker_key=worker_key,
            on_decision=local,
        )
        system.add(*actors, *extra_actors)
        engine = Engine(
            the_bus,
            system,
            config,
            llm,
            public_key=key.public_key,
            waiters=DecisionWaiters(
                trusted=(key.public_key,) if "supervisor" in roles else (),
                # the Supervisor's mailbox is in this process: a publish is its delivery
                in_process="supervisor" in roles and isinstance(the_bus, MemoryBus),
            ),
            local=local,
        )
        local.listen(engine.waiters.deliver)
        if engine.waiters.in_process and isinstance(the_bus, MemoryBus):
            engine.waiters.here = partial(_hand_over, system, the_bus)
            local.reaches_all = partial(_heard_here, engine, the_bus)
        async with system.running(), anyio.create_task_group() as tg:
            await tg.start(engine.waiters.run, the_bus, system.subjects)
            try:
                yield engine
            finally:
                tg.cancel_scope.cancel()
    finally:
        if own_bus:
            await the_bus.close()
