"""The Enforcer end to end with a ScriptedLLM: repairs, BLOCKED results, breakers, metrics."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anyio
import pytest
from enforcer_helpers import TASK, envelope, fake_assets, good

from humangr.contracts import Limits, ResponseStatus
from humangr.engine.enforcer import BreakerStore, Enforcer
from humangr.engine.errors import ConfigError
from humangr.engine.llm import ScriptedLLM
from humangr.engine.metrics import Metrics
from humangr.engine.state import MemoryStateStore, SqliteStateStore

pytestmark = pytest.mark.anyio


class Clock:
    def __init__(self) -> None:
        self.now = 1_700_000_000.0

    def __call__(self) -> float:
        return self.now


def scripted(*lines: dict[str, Any]) -> ScriptedLLM:
    return ScriptedLLM.from_lines(lines)


def enforcer(llm: ScriptedLLM, **kw: Any) -> Enforcer:
    kw.setdefault("metrics", Metrics())
    return Enforcer(llm, assets=fake_assets, **kw)


def rejections(metrics: Metrics, agent: str, gate: str) -> float:
    value = metrics.registry.get_sample_value(
        "humangr_envelope_rejections_total", {"agent": agent, "gate": gate}
    )
    return value or 0.0


DEV = {"agent": "dev", "mode": "implement_task"}
QA = {"agent": "qa", "mode": "validate_task"}


async def test_a_valid_reply_passes_with_its_audit_record() -> None:
    llm = scripted({"match": DEV, "json": good("dev", "implement_task")})
    sent = envelope("dev", "implement_task")
    outcome = await enforcer(llm).run(sent)
    result, record = outcome.result, outcome.record
    assert result.validator_pass
    assert (result.attempts, result.repairs, result.breaker_open) == (1, 0, False)
    assert result.envelope.status is ResponseStatus.OK
    assert result.envelope.meta.model == "scripted"
    assert result.envelope.meta.idempotency_key == f"demo:dev:implement_task:{TASK}:1"
    assert (result.request_id, result.task_id) == (sent.request_id, TASK)
    assert record.validator_pass
    assert record.status is ResponseStatus.OK
    assert record.artifact_paths == ["apps/api/todos.py", f"docs/dev/dev_implementation_{TASK}.md"]
    assert len(record.request_hash) == 64
    assert record.usage.calls == 1
    assert outcome.breaker_events == ()


async def test_invalid_json_is_repaired() -> None:
    llm = scripted(
        {"match": DEV, "text": '{"status": "OK", "summary": '},
        {"match": DEV, "json": good("dev", "implement_task")},
    )
    metrics = Metrics()
    result = (await enforcer(llm, metrics=metrics).run(envelope("dev", "implement_task"))).result
    assert result.validator_pass
    assert (result.attempts, result.repairs) == (2, 1)
    repair = llm.requests[1]
    assert repair.tags["repair"] == "1"
    assert "Return only the JSON object" in repair.messages[-1].content
    assert metrics.registry.get_sample_value("humangr_repairs_total", {"agent": "dev"}) == 1


async def test_still_invalid_after_two_repairs_is_blocked_with_the_errors() -> None:
    bad = good("dev", "implement_task")
    bad["artifacts"] = bad["artifacts"][1:]
    llm = scripted({"match": DEV, "json": bad})
    outcome = await enforcer(llm).run(envelope("dev", "implement_task"))
    result = outcome.result
    assert not result.validator_pass
    assert result.envelope.status is ResponseStatus.BLOCKED
    assert (result.attempts, result.repairs) == (3, 2)
    assert any("[dev_apps]" in error for error in result.validation_errors)
    assert result.envelope.artifacts == []
    assert result.envelope.next_actions.owner == "monitor"
    assert outcome.record.status is ResponseStatus.BLOCKED
    assert not outcome.record.validator_pass
    assert outcome.record.artifact_paths == []
    second = llm.requests[2].messages[-1].content
    assert "[dev_apps]" in second
    assert "Your previous reply" in second
    assert "docs/dev/dev_implementation_TSK-001.md" in second
    assert llm.calls == 3


async def test_ok_without_evidence_is_refused() -> None:
    bad = good("engineer", "generate_engineering_docs")
    bad["evidence"] = []
    metrics = Metrics()
    llm = scripted({"match": {"agent": "engineer"}, "json": bad})
    result = (
        await enforcer(llm, metrics=metrics).run(envelope("engineer", "generate_engineering_docs"))
    ).result
    assert not result.validator_pass
    assert result.envelope.status is ResponseStatus.BLOCKED
    assert any("[evidence]" in error for error in result.validation_errors)
    assert rejections(metrics, "engineer", "evidence") == 3


@pytest.mark.parametrize(
    "path",
    ["/etc/passwd", "apps/../../etc/passwd", "~/x.py", "apps\\x.py", "apps/x\x00.py"],
    ids=["absolute", "dotdot", "tilde", "backslash", "nul"],
)
async def test_refused_paths_are_reported_in_validation_errors(path: str) -> None:
    bad = good("dev", "implement_task")
    bad["artifacts"].append({"path": path, "content": "x = 1\n"})
    metrics = Metrics()
    result = (
        await enforcer(scripted({"match": DEV, "json": bad}), metrics=metrics).run(
            envelope("dev", "implement_task")
        )
    ).result
    assert not result.validator_pass
    assert result.envelope.artifacts == []
    refused = [e for e in result.validation_errors if e.startswith("[path_policy]")]
    assert len(refused) == 1
    assert repr(path) in refused[0]
    assert rejections(metrics, "dev", "path_policy") == 3


async def test_qa_ok_not_approved_is_not_a_pass() -> None:
    bad = good("qa", "validate_task")
    bad.update(status="OK", summary="not approved")
    result = (
        await enforcer(scripted({"match": QA, "json": bad})).run(envelope("qa", "validate_task"))
    ).result
    assert not result.validator_pass
    assert result.envelope.status is ResponseStatus.BLOCKED
    assert any("[status]" in error for error in result.validation_errors)


async def test_qa_fail_is_a_valid_verdict() -> None:
    reply = good("qa", "validate_task")
    reply.update(status="QA_FAIL", summary="FR-01 fails on an empty title.")
    result = (
        await enforcer(scripted({"match": QA, "json": reply})).run(envelope("qa", "validate_task"))
    ).result
    assert result.validator_pass
    assert result.envelope.status is ResponseStatus.QA_FAIL


async def test_text_outside_the_json_is_refused_and_repaired() -> None:
    text = "Here is my reply: " + json.dumps(good("qa", "validate_task"))
    llm = scripted({"match": QA, "text": text}, {"match": QA, "json": good("qa", "validate_task")})
    metrics = Metrics()
    result = (await enforcer(llm, metrics=metrics).run(envelope("qa", "validate_task"))).result
    assert result.validator_pass
    assert result.repairs == 1
    assert rejections(metrics, "qa", "json") == 1


async def test_text_outside_the_json_every_time_is_blocked() -> None:
    text = json.dumps(good("qa", "validate_task")) + "\nHope this helps!"
    result = (
        await enforcer(scripted({"match": QA, "text": text})).run(envelope("qa", "validate_task"))
    ).result
    assert not result.validator_pass
    assert any("exactly one JSON object" in e for e in result.validation_errors)


async def test_a_transport_error_is_blocked_without_repairs() -> None:
    llm = scripted({"match": DEV, "error": "connection reset"})
    result = (await enforcer(llm).run(envelope("dev", "implement_task"))).result
    assert not result.validator_pass
    assert result.envelope.status is ResponseStatus.BLOCKED
    assert (result.attempts, result.repairs) == (1, 0)
    assert "connection reset" in result.validation_errors[0]
    assert llm.calls == 1


async def test_an_attempt_past_limits_timeout_is_blocked() -> None:
    llm = scripted({"match": DEV, "json": good("dev", "implement_task"), "delay_ms": 5_000})
    sent = envelope("dev", "implement_task", limits=Limits(timeout_sec=0.05))
    result = (await enforcer(llm).run(sent)).result
    assert not result.validator_pass
    assert "no reply within 0.05s" in result.validation_errors[0]
    assert llm.cancelled == 1


async def test_a_request_no_reply_could_satisfy_is_blocked_without_a_call() -> None:
    llm = scripted({"match": {}, "json": good("dev", "implement_task")})
    outcome = await enforcer(llm).run(envelope("dev", "implement_task", task_id=None))
    assert not outcome.result.validator_pass
    assert outcome.result.envelope.status is ResponseStatus.BLOCKED
    assert "task_id" in outcome.result.validation_errors[0]
    assert llm.calls == 0


async def test_missing_prompt_assets_are_blocked_without_a_call() -> None:
    def missing(agent: str, variant: str) -> Any:
        raise ConfigError(f"no prompts for {agent}/{variant}")

    llm = scripted({"match": {}, "json": good("dev", "implement_task")})
    result = (await Enforcer(llm, assets=missing).run(envelope("dev", "implement_task"))).result
    assert not result.validator_pass
    assert "no prompts for dev/generic" in result.validation_errors[0]
    assert llm.calls == 0


async def test_three_failures_open_the_breaker_and_calls_stop() -> None:
    clock, metrics = Clock(), Metrics()
    llm = scripted({"match": DEV, "error": "overloaded"})
    run = enforcer(llm, metrics=metrics, breakers=BreakerStore(clock=clock, cool_down=30)).run
    sent = envelope("dev", "implement_task")
    first = [await run(sent) for _ in range(3)]
    assert [o.breaker_events for o in first[:2]] == [(), ()]
    (opened,) = first[2].breaker_events
    assert (opened.state, opened.failures, opened.agent.value, opened.mode) == (
        "open",
        3,
        "dev",
        "implement_task",
    )
    assert (
        metrics.registry.get_sample_value(
            "humangr_breaker_state", {"agent": "dev", "mode": "implement_task"}
        )
        == 2
    )
    refused = await run(sent)
    assert refused.result.breaker_open
    assert refused.result.envelope.status is ResponseStatus.BLOCKED
    assert "circuit breaker open" in refused.result.validation_errors[0]
    assert refused.record.status is ResponseStatus.BLOCKED
    assert llm.calls == 3
    other = await run(envelope("dev", "implement_task", project_id="other"))
    assert not other.result.breaker_open
    assert llm.calls == 4


async def test_half_open_after_the_cool_down_and_a_success_closes() -> None:
    clock, metrics = Clock(), Metrics()
    llm = scripted(
        *[{"match": DEV, "error": "overloaded"}] * 3,
        {"match": DEV, "json": good("dev", "implement_task")},
    )
    run = enforcer(llm, metrics=metrics, breakers=BreakerStore(clock=clock, cool_down=30)).run
    sent = envelope("dev", "implement_task")
    for _ in range(3):
        await run(sent)
    clock.now += 29
    assert (await run(sent)).result.breaker_open
    clock.now += 1
    outcome = await run(sent)
    assert outcome.result.validator_pass
    assert [e.state for e in outcome.breaker_events] == ["half_open", "closed"]
    assert (
        metrics.registry.get_sample_value(
            "humangr_breaker_state", {"agent": "dev", "mode": "implement_task"}
        )
        == 0
    )


async def test_a_failed_trial_reopens_the_breaker() -> None:
    clock = Clock()
    llm = scripted({"match": DEV, "error": "overloaded"})
    run = enforcer(llm, breakers=BreakerStore(clock=clock, cool_down=30)).run
    sent = envelope("dev", "implement_task")
    for _ in range(3):
        await run(sent)
    clock.now += 30
    trial = await run(sent)
    assert not trial.result.breaker_open
    assert [e.state for e in trial.breaker_events] == ["half_open", "open"]
    assert (await run(sent)).result.breaker_open
    assert llm.calls == 4


async def test_invalid_replies_count_as_breaker_failures() -> None:
    bad = good("dev", "implement_task")
    bad["evidence"] = []
    run = enforcer(scripted({"match": DEV, "json": bad}), breakers=BreakerStore()).run
    outcomes = [await run(envelope("dev", "implement_task")) for _ in range(3)]
    assert [e.state for e in outcomes[2].breaker_events] == ["open"]


async def test_an_open_breaker_survives_a_restart(tmp_path: Path) -> None:
    path, clock = tmp_path / "state.db", Clock()
    llm = scripted({"match": DEV, "error": "overloaded"})
    store = SqliteStateStore(path)
    first = enforcer(llm, breakers=BreakerStore(store, clock=clock, cool_down=30))
    for _ in range(3):
        await first.run(envelope("dev", "implement_task"))
    await store.close()
    llm2 = scripted({"match": DEV, "json": good("dev", "implement_task")})
    store = SqliteStateStore(path)
    second = enforcer(llm2, breakers=BreakerStore(store, clock=clock, cool_down=30))
    assert (await second.run(envelope("dev", "implement_task"))).result.breaker_open
    assert llm2.calls == 0
    clock.now += 30
    assert (await second.run(envelope("dev", "implement_task"))).result.validator_pass
    assert (await BreakerStore(store).get(("demo", "dev", "implement_task"))).state == "closed"
    await store.close()


async def test_workers_sharing_a_store_open_the_breaker_after_three_failures_in_total() -> None:
    clock, store = Clock(), MemoryStateStore()
    llms = [scripted({"match": DEV, "error": "overloaded"}) for _ in range(3)]
    workers = [
        enforcer(llm, breakers=BreakerStore(store, clock=clock, cool_down=30)) for llm in llms
    ]
    sent = envelope("dev", "implement_task")
    outcomes = [await worker.run(sent) for worker in workers]
    assert [e.state for o in outcomes for e in o.breaker_events] == ["open"]
    for worker in workers:
        assert (await worker.run(sent)).result.breaker_open
    assert [llm.calls for llm in llms] == [1, 1, 1]


async def test_an_unreadable_breaker_store_refuses_the_call(tmp_path: Path) -> None:
    broken = tmp_path / "state.db"
    broken.write_bytes(b"this is not a SQLite file" * 100)
    llm = scripted({"match": DEV, "json": good("dev", "implement_task")})
    store = SqliteStateStore(broken)
    outcome = await enforcer(llm, breakers=BreakerStore(store)).run(
        envelope("dev", "implement_task")
    )
    await store.close()
    assert not outcome.result.validator_pass
    assert outcome.result.envelope.status is ResponseStatus.BLOCKED
    assert "circuit breaker state unavailable" in outcome.result.validation_errors[0]
    assert str(broken) in outcome.result.validation_errors[0]
    assert llm.calls == 0


async def test_a_cancelled_trial_is_released() -> None:
    clock = Clock()
    llm = scripted(
        *[{"match": DEV, "error": "overloaded"}] * 3,
        {"match": DEV, "json": good("dev", "implement_task"), "delay_ms": 10_000},
        {"match": DEV, "json": good("dev", "implement_task")},
    )
    breakers = BreakerStore(clock=clock, cool_down=30)
    run = enforcer(llm, breakers=breakers).run
    sent = envelope("dev", "implement_task")
    for _ in range(3):
        await run(sent)
    clock.now += 30
    with anyio.move_on_after(0.05):
        await run(sent)
    breaker = await breakers.get(("demo", "dev", "implement_task"))
    assert (breaker.state, breaker.trial) == ("half_open", False)
    outcome = await run(sent)
    assert outcome.result.validator_pass
    assert [e.state for e in outcome.breaker_events] == ["closed"]
