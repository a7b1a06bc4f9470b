"""Issue 24, item 5: modes said out loud. Layer workers announce on ``hl.workers.heartbeat``
whether they have an LLM; the Supervisor plans no LLM run for a layer whose live workers all
have none (local checks only, said once in the report), keeps planning runs for a layer no
worker announced (a missing worker fails closed), and identical run errors are merged."""

from __future__ import annotations

import functools
import logging
import uuid
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager

import anyio
import pytest

from humangr.actors.review.layer import LayerActor
from humangr.actors.review.supervisor import SupervisorActor
from humangr.actors.review.worker_roster import WorkerRoster
from humangr.actors.roles import review_actors
from humangr.cli.serve import mode_lines
from humangr.contracts import (
    ActionContext,
    DeadLetter,
    HumanLayerReport,
    LayerID,
    LayerStatus,
    Outcome,
    Subjects,
    WorkerHeartbeat,
    decode,
    encode,
)
from humangr.engine.actor import Actor, ActorSystem, SupervisionPolicy
from humangr.engine.bus import Bus
from humangr.engine.config import ReviewConfig
from humangr.engine.decisions import DecisionWaiters
from humangr.engine.heartbeats import sign_heartbeat
from humangr.engine.llm import LLMClient, ScriptedLLM
from humangr.engine.review import consensus, error_run
from humangr.engine.signing import SigningKey
from humangr.engine.submission import new_action_id, submission

pytestmark = pytest.mark.anyio

CLEAN = ActionContext(
    agent_id="agent-1",
    action_type="code_diff",
    action_description="rename a helper",
    code_diff="--- a/x.py\n+++ b/x.py\n@@ -1 +1 @@\n-a = 1\n+b = 1\n",
)


def _clean_llm() -> ScriptedLLM:
    return ScriptedLLM.from_lines([{"match": {}, "json": {"findings": []}}])


@asynccontextmanager
async def _deployment(
    bus: Bus, actors: Sequence[Actor], subjects: Subjects
) -> AsyncIterator[DecisionWaiters]:
    system = ActorSystem(
        bus, subjects=subjects, policy=SupervisionPolicy(initial_backoff=0.01, drain_timeout=2)
    )
    system.add(*actors)
    waiters = DecisionWaiters()
    async with system.running(), anyio.create_task_group() as tg:
        await tg.start(functools.partial(waiters.run, bus, subjects))
        yield waiters
        tg.cancel_scope.cancel()


def _supervisor_and_layers(
    config: ReviewConfig, llm: LLMClient | None, layers: Sequence[LayerID] | None = None
) -> list[Actor]:
    """A Supervisor told to plan LLM runs (no ``--llm none``) and layer workers with ``llm``."""
    actors = review_actors(config, None, roles=("supervisor",), llm_review=True)
    supervisor = actors[0]
    assert isinstance(supervisor, SupervisorActor)
    workers: list[Actor] = [
        LayerActor(lid, llm, signing_key=None) for lid in (layers or config.layers)
    ]
    supervisor.trusted_workers = frozenset(
        w.public_key for w in workers if isinstance(w, LayerActor)
    )
    return [supervisor, *workers]


async def _decide(waiters: DecisionWaiters, bus: Bus, subjects: Subjects) -> HumanLayerReport:
    with anyio.fail_after(30):
        return await waiters.submit(
            bus, subjects, submission(CLEAN, new_action_id(), None), timeout=25
        )


def _subjects() -> Subjects:
    return Subjects(prefix=f"w{uuid.uuid4().hex[:10]}")


async def test_workers_without_an_llm_make_their_layers_local_checks_only_said_once(
    bus: Bus, caplog: pytest.LogCaptureFixture
) -> None:
    """The documented recipe's failure: a Supervisor without ``--llm none`` and workers
    without an LLM made every action needs_review with the same error over and over."""
    subjects = _subjects()
    config = ReviewConfig(layer_deadline_s=5)
    caplog.set_level(logging.INFO, logger="humangr.supervisor")
    async with _deployment(bus, _supervisor_and_layers(config, None), subjects) as waiters:
        report = await _decide(waiters, bus, subjects)
        for _ in range(300):  # said at the Supervisor's next tick
            if any("layer workers:" in r.getMessage() for r in caplog.records):
                break
            await anyio.sleep(0.01)
    assert report.outcome is Outcome.APPROVED, report.blocking_reasons
    assert report.decided_by == "local checks"
    local = [note for note in report.policy_notes if note.startswith("local checks only")]
    assert local == [
        "local checks only for HL1, HL2, HL3, HL4, HL5, HL6, HL7: no live layer worker has an "
        "LLM for them"
    ]
    assert all(r.status is not LayerStatus.ERROR for r in report.layer_results.values())
    said = [r.getMessage() for r in caplog.records if "layer workers:" in r.getMessage()]
    assert len(said) == 1, said  # at the first heartbeat, not at every one
    assert "local checks only for HL1, HL2, HL3, HL4, HL5, HL6, HL7" in said[0]


async def test_only_layers_with_an_llm_worker_get_llm_runs(bus: Bus) -> None:
    subjects = _subjects()
    config = ReviewConfig(layer_deadline_s=10)
    llm = _clean_llm()
    actors = _supervisor_and_layers(config, None, [lid for lid in LayerID if lid != LayerID.HL4])
    hl4 = LayerActor(LayerID.HL4, llm)
    supervisor = actors[0]
    assert isinstance(supervisor, SupervisorActor)
    supervisor.trusted_workers = supervisor.trusted_workers | {hl4.public_key}
    async with _deployment(bus, [*actors, hl4], subjects) as waiters:
        report = await _decide(waiters, bus, subjects)
    assert report.outcome is Outcome.APPROVED, report.blocking_reasons
    assert report.layer_results[LayerID.HL4].executed_runs == config.gate.runs_per_layer
    assert llm.calls == config.gate.runs_per_layer
    notes = [note for note in report.policy_notes if note.startswith("local checks only")]
    assert notes == [
        "local checks only for HL1, HL2, HL3, HL5, HL6, HL7: no live layer worker has an LLM "
        "for them"
    ]


async def test_without_any_worker_heard_the_runs_are_planned_and_fail_closed(bus: Bus) -> None:
    """A missing worker is not a mode: stopping the workers never weakens the review."""
    subjects = _subjects()
    config = ReviewConfig(layer_deadline_s=0.5)
    actors = review_actors(config, None, roles=("supervisor",), llm_review=True)
    async with _deployment(bus, actors, subjects) as waiters:
        report = await _decide(waiters, bus, subjects)
    assert report.outcome is Outcome.NEEDS_REVIEW
    assert not [n for n in report.policy_notes if n.startswith("local checks only")]


async def test_a_worker_announces_itself_and_says_goodbye(bus: Bus) -> None:
    subjects = _subjects()
    worker = LayerActor(LayerID.HL3, _clean_llm())
    worker.heartbeat_s = 0.2
    beats: list[WorkerHeartbeat] = []
    async with bus.subscribe(subjects.worker_heartbeat) as sub:
        system = ActorSystem(bus, subjects=subjects, policy=SupervisionPolicy(drain_timeout=1))
        system.add(worker)
        async with system.running():
            with anyio.fail_after(10):
                async for msg in sub:
                    beats.append(decode(msg.data, WorkerHeartbeat))
                    if len(beats) == 2:
                        break
        with anyio.fail_after(10):
            async for msg in sub:
                beats.append(decode(msg.data, WorkerHeartbeat))
                if beats[-1].stopping:
                    break
    assert beats[0].layers == [LayerID.HL3]
    assert beats[0].llm is True
    assert beats[0].worker == beats[1].worker == worker.worker_id
    assert beats[-1].stopping is True


def test_the_roster_forgets_silent_and_stopping_workers() -> None:
    roster = WorkerRoster()
    beat = WorkerHeartbeat(worker="w1", layers=[LayerID.HL1, LayerID.HL2], llm=False, interval_s=1)
    roster.heard(beat, now=0.0)
    assert roster.local_only((LayerID.HL1, LayerID.HL3)) == (LayerID.HL1,)
    with_llm = WorkerHeartbeat(worker="w2", layers=[LayerID.HL1], llm=True, interval_s=1)
    roster.heard(with_llm, now=0.0)
    assert roster.local_only((LayerID.HL1, LayerID.HL2)) == (LayerID.HL2,)
    assert roster.mixed() == (LayerID.HL1,)
    roster.expire(now=2.9)
    assert roster.layers() == ((LayerID.HL1,), (LayerID.HL2,))
    roster.expire(now=3.0)  # three heartbeats missed
    assert roster.layers() == ((), ())
    roster.heard(beat, now=10.0)
    roster.heard(WorkerHeartbeat(worker="w1", stopping=True), now=10.5)
    assert roster.layers() == ((), ())


def test_identical_run_errors_are_merged() -> None:
    runs = [error_run(LayerID.HL2, n, "no LLM configured") for n in (1, 2, 3)]
    result = consensus(LayerID.HL2, runs, planned_runs=3)
    assert result.error is not None
    assert result.error.count("no LLM configured") == 1
    assert "runs 1–3: no LLM configured" in result.error
    mixed = [
        error_run(LayerID.HL2, 1, "timeout"),
        error_run(LayerID.HL2, 2, "invalid JSON"),
        error_run(LayerID.HL2, 3, "timeout"),
    ]
    text = consensus(LayerID.HL2, mixed, planned_runs=3).error or ""
    assert "runs 1, 3: timeout" in text
    assert "run 2: invalid JSON" in text


def test_serve_says_each_role_s_mode() -> None:
    assert mode_lines(("supervisor",), None, False) == [
        "humangr supervisor mode: local checks only (--llm none): no LLM run is planned"
    ]
    lines = mode_lines(("supervisor", "layers"), None, True)
    assert lines[0].startswith("humangr supervisor mode: LLM review")
    assert lines[1] == (
        "humangr layers mode: local checks only: no LLM configured (--llm, or ANTHROPIC_API_KEY)"
    )
    assert mode_lines(("layers",), _clean_llm(), True) == [
        "humangr layers mode: LLM runs (ScriptedLLM)"
    ]


async def test_a_forged_heartbeat_cannot_turn_the_layers_into_local_checks_only(
    bus: Bus,
) -> None:
    """The attacker (an agent that can publish on the bus, where no permissions stop it)
    announces workers without an LLM for every layer, unsigned and signed by its own key: the
    Supervisor believes neither and the review still fails closed without workers."""
    subjects = _subjects()
    config = ReviewConfig(layer_deadline_s=0.5)
    actors = review_actors(config, None, roles=("supervisor",), llm_review=True)
    attacker = SigningKey.generate()
    forged = WorkerHeartbeat(worker="evil", layers=list(LayerID), llm=False, interval_s=60)
    async with (
        _deployment(bus, actors, subjects) as waiters,
        bus.subscribe(subjects.dlq) as letters,
    ):
        await bus.publish(subjects.worker_heartbeat, encode(forged))
        await bus.publish(subjects.worker_heartbeat, encode(sign_heartbeat(forged, attacker)))
        refused = []
        with anyio.fail_after(10):
            async for msg in letters:
                refused.append(decode(msg.data, DeadLetter).error)
                if len(refused) == 2:
                    break
        await anyio.sleep(1.2)  # a Supervisor tick
        report = await _decide(waiters, bus, subjects)
    assert "is not signed" in refused[0]
    assert "not a trusted worker key" in refused[1]
    assert report.outcome is Outcome.NEEDS_REVIEW
    assert not [n for n in report.policy_notes if n.startswith("local checks only")]
