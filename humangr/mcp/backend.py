"""Where ``validate`` and ``get_report`` go: the engine in process, or a running engine on NATS."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Iterable, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Protocol

from humangr.actors.roles import Engine, fetch_report, run_engine, submit_and_wait
from humangr.contracts import DEFAULT_PREFIX, ActionContext, HumanLayerReport, Subjects
from humangr.engine.bus import Bus
from humangr.engine.config import ReviewConfig
from humangr.engine.errors import BusError, ContractError, EngineError
from humangr.engine.llm import LLMClient
from humangr.engine.redact import redact_seed_urls, redact_url
from humangr.engine.trust import Trust, client_trust

__all__ = [
    "EngineBackend",
    "NatsBackend",
    "ReportNotFound",
    "ReviewBackend",
    "in_process_backend",
    "mcp_trust",
    "nats_backend",
    "redact_url",
]


class ReportNotFound(EngineError):
    """The engine answered: it holds no report with that id."""


class ReviewBackend(Protocol):
    """What the MCP server needs from a review engine."""

    @property
    def mode(self) -> str:
        """``in-process`` or ``nats <url>``."""
        ...

    @property
    def config(self) -> ReviewConfig:
        """The review settings this server knows (a remote engine applies its own)."""
        ...

    @property
    def llm_review(self) -> bool:
        """Whether the layers run LLM runs (as far as this server knows)."""
        ...

    async def validate(self, action: ActionContext) -> HumanLayerReport:
        """Submit ``action`` for the full review and return its decision."""
        ...

    async def report(self, id_: str) -> HumanLayerReport:
        """A stored report by report id or action id; ``ReportNotFound`` if there is none."""
        ...


async def _lookup(
    bus: Bus, subjects: Subjects, id_: str, timeout: float, agent_id: str | None = None
) -> HumanLayerReport:
    try:
        return await fetch_report(bus, subjects, id_, timeout=timeout, agent_id=agent_id)
    except (BusError, ContractError):
        raise
    except EngineError as exc:
        raise ReportNotFound(str(exc)) from None


def mcp_trust(keys: Iterable[str], *, insecure: bool, who: str = "") -> Trust:
    """The keys of ``humangr mcp --nats --public-key`` (else ``$HUMANGR_PUBLIC_KEY``); none
    only with ``--insecure-unsigned``: a ``ConfigError`` saying what to do otherwise."""
    return client_trust(
        tuple(keys),
        insecure=insecure,
        who=who,
        key_option="--public-key",
        insecure_option="--insecure-unsigned",
    )


@dataclass(slots=True)
class EngineBackend:
    """The review engine running in this process on a ``MemoryBus``."""

    engine: Engine
    mode: str = "in-process"

    @property
    def config(self) -> ReviewConfig:
        return self.engine.config

    @property
    def llm_review(self) -> bool:
        return self.engine.llm is not None

    async def validate(self, action: ActionContext) -> HumanLayerReport:
        return await self.engine.submit(action)

    async def report(self, id_: str) -> HumanLayerReport:
        return await _lookup(self.engine.bus, self.engine.subjects, id_, 5.0)


@dataclass(slots=True)
class NatsBackend:
    """A running engine reached over NATS (``humangr serve``)."""

    bus: Bus
    subjects: Subjects
    config: ReviewConfig
    mode: str
    timeout: float = 300.0
    llm_review: bool = True
    trusted_keys: tuple[str, ...] = ()
    """Public keys a decision must be signed by; none only when the user chose
    ``--insecure-unsigned``, and then every report says "unsigned: not verified"."""
    agent_id: str | None = None
    """The agent this server speaks for (``$HUMANGR_AGENT_ID``): reports are asked for on that
    agent's own subject, which its NATS user may use; none: the reviewers' unscoped one."""

    async def validate(self, action: ActionContext) -> HumanLayerReport:
        report = await submit_and_wait(
            self.bus, self.subjects, action, timeout=self.timeout, trusted_keys=self.trusted_keys
        )
        return Trust(self.trusted_keys).shown(report)

    async def report(self, id_: str) -> HumanLayerReport:
        """The stored report, verified against the trusted keys (``SignatureError`` if no
        trusted key signed it), or marked "unsigned: not verified" without keys."""
        report = await _lookup(self.bus, self.subjects, id_, min(self.timeout, 10.0), self.agent_id)
        if self.trusted_keys:
            from humangr.engine.signing import verify_decision

            verify_decision(report, self.trusted_keys)
        return Trust(self.trusted_keys).shown(report)


@asynccontextmanager
async def in_process_backend(
    config: ReviewConfig, llm: LLMClient | None
) -> AsyncIterator[EngineBackend]:
    """The whole engine (Supervisor and layers) in this event loop, on a ``MemoryBus``."""
    async with run_engine(llm=llm, config=config) as engine:
        yield EngineBackend(engine)


@asynccontextmanager
async def nats_backend(
    url: str | Sequence[str],
    config: ReviewConfig,
    *,
    prefix: str = DEFAULT_PREFIX,
    timeout: float = 300.0,
    llm_review: bool = True,
    trust: Trust | None = None,
) -> AsyncIterator[NatsBackend]:
    """A connection to the engine behind ``url`` (one URL or a cluster's seed URLs; credentials
    from the environment). Decisions
    must be signed by ``trust``'s keys (default: ``$HUMANGR_PUBLIC_KEY``, comma-separated);
    without any key it refuses to start (``ConfigError``) before connecting, unless ``trust``
    is explicitly insecure."""
    from humangr.cli.common import connect_nats

    if trust is None:
        trust = mcp_trust((), insecure=False, who="nats_backend")
    bus = await connect_nats(url)
    try:
        mode = f"nats {redact_seed_urls(url)}"
        if not trust.keys:
            mode += " (unsigned: not verified)"
        agent_id = os.environ.get("HUMANGR_AGENT_ID") or None
        yield NatsBackend(
            bus, Subjects(prefix), config, mode, timeout, llm_review, trust.keys, agent_id
        )
    finally:
        await bus.close()
