"""AgentActor on both buses: request → BreakerChanged (on change), AgentRunRecord, AgentResult."""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import Any, TypeVar

import anyio
import pytest
from enforcer_helpers import envelope, fake_assets, good

from humangr.actors.pipeline.agent import AgentActor, agent_actors, serve_actors
from humangr.contracts import (
    AgentName,
    AgentResult,
    AgentRunRecord,
    BreakerChanged,
    DeadLetter,
    ResponseStatus,
    Subjects,
    decode,
    encode,
)
from humangr.engine.actor import ActorSystem, SupervisionPolicy
from humangr.engine.bus import Bus, MemoryBus
from humangr.engine.enforcer import BreakerStore
from humangr.engine.errors import ConfigError
from humangr.engine.llm import ScriptedLLM
from humangr.engine.state import MemoryStateStore, SqliteStateStore, StateStore

pytestmark = pytest.mark.anyio
T = TypeVar("T")
FAST = SupervisionPolicy(initial_backoff=0.01, max_backoff=0.05, drain_timeout=2.0)


async def receive(sub: Any, type_: type[T]) -> T:
    with anyio.fail_after(5):
        async for msg in sub:
            return decode(msg.data, type_)
    raise AssertionError("subscription ended")


def system_for(bus: Bus, llm: ScriptedLLM, breakers: BreakerStore) -> tuple[ActorSystem, Subjects]:
    subjects = Subjects(prefix=f"t{uuid.uuid4().hex[:10]}")
    system = ActorSystem(bus, subjects=subjects, policy=FAST)
    system.add(*agent_actors(llm, breakers=breakers, assets=fake_assets))
    return system, subjects


async def test_a_request_gives_a_result_and_an_audit_record(bus: Bus) -> None:
    llm = ScriptedLLM.from_lines(
        [
            {
                "match": {"agent": "qa", "mode": "validate_task"},
                "json": good("qa", "validate_task"),
            },
        ]
    )
    system, subjects = system_for(bus, llm, BreakerStore())
    sent = envelope("qa", "validate_task")
    async with (
        bus.subscribe(subjects.agent_result) as results,
        bus.subscribe(subjects.audit(sent.project_id)) as audit,
        system.running(),
    ):
        await bus.publish(subjects.agent_request("qa"), encode(sent))
        result = await receive(results, AgentResult)
        record = await receive(audit, AgentRunRecord)
    assert result.validator_pass
    assert result.envelope.status is ResponseStatus.QA_PASS
    assert (result.request_id, result.agent, result.task_id) == (
        sent.request_id,
        AgentName.QA,
        sent.task_id,
    )
    assert record.request_id == sent.request_id
    assert record.artifact_paths == ["docs/qa/QA_REPORT_TSK-001.md"]
    assert llm.calls == 1
    assert (
        system.metrics.registry.get_sample_value("humangr_llm_calls_total", {"outcome": "ok"}) == 1
    )


async def test_a_failure_that_opens_the_breaker_publishes_breaker_changed(
    bus: Bus, tmp_path: Path
) -> None:
    llm = ScriptedLLM.from_lines([{"match": {"agent": "dev"}, "error": "overloaded"}])
    store = SqliteStateStore(tmp_path / "state.db")
    breakers = BreakerStore(store, threshold=1, cool_down=3_600)
    system, subjects = system_for(bus, llm, breakers)
    sent = envelope("dev", "implement_task")
    async with (
        bus.subscribe(subjects.agent_result) as results,
        bus.subscribe(subjects.audit(sent.project_id)) as audit,
        bus.subscribe(subjects.breaker) as breaker,
        system.running(),
    ):
        await bus.publish(subjects.agent_request("dev"), encode(sent))
        changed = await receive(breaker, BreakerChanged)
        record = await receive(audit, AgentRunRecord)
        result = await receive(results, AgentResult)
        await bus.publish(subjects.agent_request("dev"), encode(sent))
        refused = await receive(results, AgentResult)
    assert (changed.project_id, changed.agent, changed.mode, changed.state) == (
        "demo",
        AgentName.DEV,
        "implement_task",
        "open",
    )
    assert not result.validator_pass
    assert result.envelope.status is ResponseStatus.BLOCKED
    assert not record.validator_pass
    assert refused.breaker_open
    assert llm.calls == 1
    assert (await BreakerStore(store).get(("demo", "dev", "implement_task"))).state == "open"
    await store.close()


async def test_an_envelope_for_another_agent_is_dead_lettered(bus: Bus) -> None:
    llm = ScriptedLLM.from_lines([{"match": {}, "json": good("dev", "implement_task")}])
    system, subjects = system_for(bus, llm, BreakerStore())
    async with bus.subscribe(subjects.dlq) as dlq, system.running():
        await bus.publish(subjects.agent_request("qa"), encode(envelope("dev", "implement_task")))
        letter = await receive(dlq, DeadLetter)
    assert "sent to the qa actor" in letter.error
    assert llm.calls == 0


def test_the_monitor_is_not_an_agent_actor() -> None:
    llm = ScriptedLLM.from_lines([{"match": {}, "text": "{}"}])
    with pytest.raises(ConfigError, match="not an LLM agent"):
        AgentActor(AgentName.MONITOR, llm, breakers=BreakerStore())


def test_serve_actors_gives_one_actor_per_llm_agent(tmp_path: Path) -> None:
    llm = ScriptedLLM.from_lines([{"match": {}, "text": "{}"}])
    actors = serve_actors(llm=llm, root=tmp_path)
    assert sorted(actor.name for actor in actors) == [
        "agent-cto",
        "agent-dev",
        "agent-engineer",
        "agent-pm",
        "agent-qa",
    ]
    agents = [actor for actor in actors if isinstance(actor, AgentActor)]
    assert len(agents) == 5
    assert {id(agent.breakers) for agent in agents} == {id(agents[0].breakers)}
    assert isinstance(agents[0].breakers.store, MemoryStateStore)
    shared = MemoryStateStore()
    assert serve_actors(llm=llm, root=tmp_path, state=shared)[0].breakers.store is shared  # type: ignore[attr-defined]
    with pytest.raises(ConfigError, match="needs an LLM"):
        serve_actors(llm=None, root=tmp_path)


async def test_agent_workers_sharing_a_store_open_the_breaker_after_three_failures(
    state_store: StateStore,
) -> None:
    """Three agents processes (three actor systems) on one bus and one store: the requests go
    round the queue group, one failure each, and the third opens the breaker for all."""
    bus = MemoryBus()
    subjects = Subjects(prefix=f"t{uuid.uuid4().hex[:10]}")
    llms = [
        ScriptedLLM.from_lines([{"match": {"agent": "dev"}, "error": "overloaded"}])
        for _ in range(3)
    ]
    systems = []
    for llm in llms:
        system = ActorSystem(bus, subjects=subjects, policy=FAST)
        breakers = BreakerStore(state_store, cool_down=3_600)
        system.add(
            *agent_actors(llm, breakers=breakers, agents=[AgentName.DEV], assets=fake_assets)
        )
        systems.append(system)
    sent = envelope("dev", "implement_task")
    async with (
        bus.subscribe(subjects.agent_result) as results,
        bus.subscribe(subjects.breaker) as changes,
        systems[0].running(),
        systems[1].running(),
        systems[2].running(),
    ):
        failed = []
        for _ in range(3):
            await bus.publish(subjects.agent_request("dev"), encode(sent))
            failed.append(await receive(results, AgentResult))
        opened = await receive(changes, BreakerChanged)
        refused = []
        for _ in range(3):
            await bus.publish(subjects.agent_request("dev"), encode(sent))
            refused.append(await receive(results, AgentResult))
    await bus.close()
    assert [llm.calls for llm in llms] == [1, 1, 1], "each worker failed once"
    assert not any(r.breaker_open for r in failed)
    assert (opened.state, opened.failures) == ("open", 3)
    assert all(r.breaker_open for r in refused), "every worker sees the shared open breaker"
