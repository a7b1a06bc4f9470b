"""Forged decisions never reach the agent: a decision with a tampered field, a bad or missing
signature, or another signer, published before the genuine one, is refused
(``SignatureError``); one for another action hash raises ``DecisionMismatch``. On both buses."""

from __future__ import annotations

import logging
import uuid
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from typing import Any

import anyio
import msgspec
import pytest
from client_helpers import served

from humangr import ConfigError, DecisionMismatch, EngineError, SignatureError
from humangr.client import Client, connect
from humangr.contracts import (
    ActionSubmitted,
    HumanLayerReport,
    Outcome,
    Subjects,
    VetoLevel,
    decode,
    encode,
)
from humangr.engine.bus import Bus, MemoryBus
from humangr.engine.signing import SigningKey
from humangr.engine.trust import UNSIGNED_NOTE

pytestmark = pytest.mark.anyio

SUPERVISOR = SigningKey.generate()
MALLORY = SigningKey.generate()
Forge = Callable[[HumanLayerReport], HumanLayerReport]
ACTION = {"agent_id": "payer", "action_type": "payment", "action_description": "pay 10 EUR"}


def genuine(submitted: ActionSubmitted) -> HumanLayerReport:
    """What the real Supervisor decides here: rejected, signed with its key."""
    return SUPERVISOR.sign(
        HumanLayerReport(
            report_id=f"rep-{uuid.uuid4().hex[:12]}",
            action_id=submitted.action_id,
            agent_id=submitted.action.agent_id,
            action_hash=submitted.action_hash or "",
            policy_version="test-policy",
            outcome=Outcome.REJECTED,
            final_veto_level=VetoLevel.STRONG,
            blocking_reasons=["HL4 security: strong veto — pays an unknown account"],
        )
    )


def replace(report: HumanLayerReport, **changes: object) -> HumanLayerReport:
    return msgspec.structs.replace(report, **changes)


FORGERIES: dict[str, Forge] = {
    "outcome flipped": lambda r: replace(r, outcome=Outcome.APPROVED, blocking_reasons=[]),
    "resolved_by changed": lambda r: replace(r, resolved_by="mallory"),
    "policy_version changed": lambda r: replace(r, policy_version="lenient-policy"),
    "signature removed": lambda r: replace(
        r, outcome=Outcome.APPROVED, signer=None, signature=None
    ),
    "signature garbage": lambda r: replace(r, outcome=Outcome.APPROVED, signature="A" * 86),
    "signed by another key": lambda r: MALLORY.sign(replace(r, outcome=Outcome.APPROVED)),
    "another key claiming the supervisor": lambda r: replace(
        MALLORY.sign(replace(r, outcome=Outcome.APPROVED)), signer=SUPERVISOR.public_key
    ),
}


@dataclass
class Stage:
    bus: Bus
    subjects: Subjects
    url: str | None

    def client(self, **options: Any) -> AbstractAsyncContextManager[Client]:
        if self.url is None:
            return connect(bus=self.bus, prefix=self.subjects.prefix, **options)
        return connect(self.url, prefix=self.subjects.prefix, **options)


@pytest.fixture(params=["memory", "nats"])
async def stage(request: pytest.FixtureRequest) -> AsyncIterator[Stage]:
    subjects = Subjects(f"forge{uuid.uuid4().hex[:10]}")
    if request.param == "memory":
        async with MemoryBus() as memory:
            yield Stage(memory, subjects, None)
        return
    from humangr.engine.bus.nats import NatsBus

    url = request.getfixturevalue("nats_url")
    nats = await NatsBus.connect(url, subjects=subjects)
    try:
        yield Stage(nats, subjects, url)
    finally:
        await nats.close()


async def decide(stage: Stage, *decisions: Forge, ready: anyio.Event) -> None:
    """Answer each submission with ``decisions`` applied to the genuine decision, in order."""
    async with stage.bus.subscribe(stage.subjects.agent_submits) as submissions:
        ready.set()
        async for msg in submissions:
            submitted = decode(msg.data, ActionSubmitted)
            for make in decisions:
                report = make(genuine(submitted))
                await stage.bus.publish(stage.subjects.decision(report.agent_id), encode(report))


async def review_against(stage: Stage, hg: Client, *decisions: Forge) -> HumanLayerReport:
    """The client's review of ``ACTION`` while ``decisions`` answer it (its error raised as is)."""
    outcome: list[HumanLayerReport | EngineError] = []
    async with anyio.create_task_group() as tg:
        ready = anyio.Event()
        tg.start_soon(lambda: decide(stage, *decisions, ready=ready))
        await ready.wait()
        with anyio.fail_after(10):
            try:
                outcome.append(await hg.review(ACTION))
            except EngineError as exc:
                outcome.append(exc)
        tg.cancel_scope.cancel()
    if isinstance(outcome[0], EngineError):
        raise outcome[0]
    return outcome[0]


@pytest.mark.parametrize("forgery", list(FORGERIES), ids=list(FORGERIES))
async def test_a_forgery_before_the_genuine_decision_is_refused(stage: Stage, forgery: str) -> None:
    async with stage.client(public_key=SUPERVISOR.public_key) as hg:
        with pytest.raises(SignatureError):
            await review_against(stage, hg, FORGERIES[forgery], lambda r: r)


async def test_the_genuine_decision_alone_is_returned(stage: Stage) -> None:
    async with stage.client(public_key=[MALLORY.public_key, SUPERVISOR.public_key]) as hg:
        report = await review_against(stage, hg, lambda r: r)
    assert report.outcome is Outcome.REJECTED
    assert report.signer == SUPERVISOR.public_key


async def test_a_decision_for_another_action_hash_is_a_mismatch(stage: Stage) -> None:
    def other_action(r: HumanLayerReport) -> HumanLayerReport:
        return SUPERVISOR.sign(replace(r, outcome=Outcome.APPROVED, action_hash="0" * 64))

    async with stage.client(public_key=SUPERVISOR.public_key) as hg:
        with pytest.raises(DecisionMismatch):
            await review_against(stage, hg, other_action, lambda r: r)


async def test_without_a_key_the_client_refuses_to_start(
    stage: Stage, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("HUMANGR_PUBLIC_KEY", raising=False)
    seen: list[bytes] = []

    async def record() -> None:
        async with stage.bus.subscribe(stage.subjects.agent_submits) as submissions:
            async for msg in submissions:
                seen.append(msg.data)

    async with anyio.create_task_group() as tg:
        tg.start_soon(record)
        await anyio.wait_all_tasks_blocked()
        with pytest.raises(ConfigError, match="no public key") as caught:
            async with stage.client() as hg:
                await hg.review(ACTION)
        await stage.bus.flush()
        tg.cancel_scope.cancel()
    assert "public_key=" in str(caught.value)
    assert "insecure_unsigned=True" in str(caught.value)
    assert seen == [], "nothing was submitted"


async def test_insecure_unsigned_works_and_every_result_says_unsigned(
    stage: Stage, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("HUMANGR_PUBLIC_KEY", raising=False)
    with caplog.at_level(logging.WARNING, logger="humangr.client"):
        async with stage.client(insecure_unsigned=True) as hg:
            assert hg.trusted_keys == ()
            assert not hg.verified
            report = await review_against(stage, hg, lambda r: r)
    assert report.outcome is Outcome.REJECTED
    assert report.policy_notes[0] == UNSIGNED_NOTE
    assert "unsigned: not verified" in UNSIGNED_NOTE
    warnings = [r for r in caplog.records if "signatures are not" in r.getMessage()]
    assert len(warnings) == 1


async def test_a_key_and_insecure_unsigned_together_are_refused(stage: Stage) -> None:
    with pytest.raises(ConfigError, match="not both"):
        stage.client(public_key=SUPERVISOR.public_key, insecure_unsigned=True)
    with pytest.raises(ConfigError, match="True or False"):
        stage.client(insecure_unsigned="no")


async def test_a_forged_unsigned_approval_is_never_an_approval_for_a_keyed_client(
    stage: Stage,
) -> None:
    """The attack the key requirement stops: the agent (or anyone on the bus) answers its own
    submission with an unsigned ``approved`` before the Supervisor does."""

    def forged(r: HumanLayerReport) -> HumanLayerReport:
        return replace(
            r, outcome=Outcome.APPROVED, blocking_reasons=[], signer=None, signature=None
        )

    async with stage.client(public_key=SUPERVISOR.public_key) as hg:
        with pytest.raises(SignatureError, match="not signed"):
            await review_against(stage, hg, forged)


async def test_the_key_comes_from_the_environment(
    stage: Stage, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HUMANGR_PUBLIC_KEY", f" {MALLORY.public_key} ,{SUPERVISOR.public_key}")
    async with stage.client() as hg:
        assert hg.trusted_keys == (MALLORY.public_key, SUPERVISOR.public_key)
        with pytest.raises(SignatureError):
            await review_against(stage, hg, FORGERIES["outcome flipped"], lambda r: r)


@pytest.mark.parametrize("where", ["memory", "nats"])
async def test_a_forged_approval_racing_a_real_engine_never_runs_the_tool(
    request: pytest.FixtureRequest, where: str
) -> None:
    url = None if where == "memory" else request.getfixturevalue("nats_url")
    calls: list[str] = []
    async with served(url, layers=["HL4"]) as env:
        env.kit.script(delay_ms=300)

        async def forger(ready: anyio.Event) -> None:
            async with env.kit.bus.subscribe(env.kit.subjects.agent_submits) as submissions:
                ready.set()
                async for msg in submissions:
                    submitted = decode(msg.data, ActionSubmitted)
                    forged = replace(genuine(submitted), outcome=Outcome.APPROVED)
                    await env.kit.bus.publish(
                        env.kit.subjects.decision(forged.agent_id), encode(forged)
                    )

        @env.hg.guard
        async def pay(amount: int) -> None:
            calls.append(f"paid {amount}")

        async with anyio.create_task_group() as tg:
            ready = anyio.Event()
            tg.start_soon(forger, ready)
            await ready.wait()
            with pytest.raises(SignatureError):
                await pay(10)
            tg.cancel_scope.cancel()
    assert calls == []
