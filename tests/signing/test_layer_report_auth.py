"""Layer reports are authenticated: the Supervisor accepts reports signed by the worker keys it
trusts only, and dead-letters the rest — so an agent that can publish on the bus cannot answer
the layers' tasks with forged clean reports and get its action approved."""

from __future__ import annotations

import sys
import uuid
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path

import anyio
import msgspec
import pytest

sys.path.insert(0, str(Path(__file__).parent.parent / "e2e"))
from e2e_helpers import CLEAN, diff_action, swallowed_action

from humangr.actors.roles import Engine, run_engine
from humangr.contracts import (
    ActionContext,
    DeadLetter,
    LayerID,
    LayerReport,
    LayerStatus,
    LayerTask,
    Outcome,
    ReviewFinding,
    Severity,
    Subjects,
    VetoLevel,
    decode,
    encode,
)
from humangr.engine.actor import SupervisionPolicy
from humangr.engine.bus import Bus
from humangr.engine.config import ReviewConfig
from humangr.engine.errors import SignatureError
from humangr.engine.llm import ScriptedLLM
from humangr.engine.review import action_hash, consensus, make_run
from humangr.engine.signatures import task_digest, verify_layer_report
from humangr.engine.signing import SigningKey

pytestmark = pytest.mark.anyio

TRUSTED = SigningKey.generate()
CRITICAL = ActionContext(
    agent_id="agent-1",
    action_type="shell_command",
    action_description="run the nightly maintenance script on the production database host",
    environment={"target": "production"},
)


def clean_report(task: LayerTask) -> LayerReport:
    """What a forger sends: every planned run clean, and a clean consensus."""
    runs = [make_run(task.layer_id, n, []) for n in range(1, task.runs + 1)]
    return LayerReport(
        action_id=task.action_id,
        layer_id=task.layer_id,
        runs=runs,
        consensus=consensus(task.layer_id, runs, planned_runs=task.runs),
        action_hash=task.action_hash,
        task_digest=task_digest(task),
    )


def tampered(task: LayerTask) -> LayerReport:
    """A report a trusted worker signed with a critical finding, made clean in transit."""
    critical = [ReviewFinding(severity=Severity.CRITICAL, title="drops production data")]
    runs = [make_run(task.layer_id, n, critical) for n in range(1, task.runs + 1)]
    genuine = TRUSTED.sign_layer_report(msgspec.structs.replace(clean_report(task), runs=runs))
    return msgspec.structs.replace(genuine, runs=clean_report(task).runs)


FORGERIES: dict[str, tuple[Callable[[LayerTask], LayerReport], str]] = {
    "unsigned": (clean_report, "is not signed"),
    "untrusted key": (
        lambda task: SigningKey.generate().sign_layer_report(clean_report(task)),
        "not a trusted worker key",
    ),
    "impostor": (
        lambda task: msgspec.structs.replace(
            SigningKey.generate().sign_layer_report(clean_report(task)), signer=TRUSTED.public_key
        ),
        "does not match",
    ),
    "changed after signing": (tampered, "does not match"),
}


@asynccontextmanager
async def supervisor_alone(bus: Bus, **config: object) -> AsyncIterator[Engine]:
    """A Supervisor that plans LLM runs and trusts ``TRUSTED``, with no layer actors."""
    llm = ScriptedLLM.from_lines([{"match": {}, **CLEAN}])
    async with (
        run_engine(
            bus=bus,
            llm=llm,
            config=ReviewConfig(layer_deadline_s=1.0, **config),  # type: ignore[arg-type]
            subjects=Subjects(prefix=f"auth{uuid.uuid4().hex[:10]}"),
            policy=SupervisionPolicy(initial_backoff=0.01, drain_timeout=2.0),
            roles=("supervisor",),
            trusted_workers=(TRUSTED.public_key,),
        ) as engine
    ):
        yield engine


@asynccontextmanager
async def answering(
    bus: Bus, subjects: Subjects, answer: Callable[[LayerTask], LayerReport], tasks: list[str]
) -> AsyncIterator[list[DeadLetter]]:
    """Answer every layer task with ``answer``'s report; yield the dead letters seen."""
    letters: list[DeadLetter] = []
    async with (
        bus.subscribe(subjects.layer_tasks) as incoming,
        bus.subscribe(subjects.dlq) as dlq,
        anyio.create_task_group() as tg,
    ):

        async def serve() -> None:
            async for msg in incoming:
                task = decode(msg.data, LayerTask)
                tasks.append(task.layer_id.value)
                await bus.publish(subjects.layer_report, encode(answer(task)))

        async def record() -> None:
            async for msg in dlq:
                letters.append(decode(msg.data, DeadLetter))

        tg.start_soon(serve)
        tg.start_soon(record)
        yield letters
        await anyio.sleep(0.2)
        tg.cancel_scope.cancel()


@pytest.mark.parametrize("how", list(FORGERIES))
async def test_seven_forged_clean_reports_never_approve(bus: Bus, how: str) -> None:
    forge, reason = FORGERIES[how]
    tasks: list[str] = []
    async with (
        supervisor_alone(bus) as engine,
        answering(bus, engine.subjects, forge, tasks) as letters,
    ):
        decision = await engine.submit(CRITICAL, timeout=30)
    assert sorted(tasks) == sorted(lid.value for lid in LayerID)
    assert decision.outcome is not Outcome.APPROVED
    assert decision.outcome is Outcome.NEEDS_REVIEW
    assert all(r.status is LayerStatus.ERROR for r in decision.layer_results.values())
    refused = [d for d in letters if d.subject == engine.subjects.layer_report]
    assert len(refused) == 7, [d.error for d in letters]
    assert all(d.correlation_id == decision.action_id for d in refused)
    assert all(reason in d.error for d in refused), [d.error for d in refused]


async def test_a_trusted_worker_s_clean_reports_do_approve(bus: Bus) -> None:
    """The control: the same clean reports signed by the trusted key are accepted (so the
    refusals above are the signatures' doing)."""
    tasks: list[str] = []
    async with supervisor_alone(bus) as engine:
        sign = TRUSTED.sign_layer_report
        async with answering(bus, engine.subjects, lambda t: sign(clean_report(t)), tasks) as dlq:
            decision = await engine.submit(CRITICAL, timeout=30)
    assert decision.outcome is Outcome.APPROVED
    assert len(tasks) == 7
    assert [d for d in dlq if d.subject == engine.subjects.layer_report] == []


async def test_a_trusted_worker_s_report_of_a_task_someone_else_sent_is_refused(
    bus: Bus,
) -> None:
    """A forger cannot sign, but can publish a task of its own for the same action (the rule
    findings left out, the HL7 context rewritten…): the genuine worker's report of that task
    names another task digest and is refused."""

    def other_task(task: LayerTask) -> LayerReport:
        forged_task = msgspec.structs.replace(task, rule_findings=[], runs=1)
        report = msgspec.structs.replace(clean_report(task), task_digest=task_digest(forged_task))
        return TRUSTED.sign_layer_report(report)

    tasks: list[str] = []
    async with (
        supervisor_alone(bus) as engine,
        answering(bus, engine.subjects, other_task, tasks) as letters,
    ):
        decision = await engine.submit(CRITICAL, timeout=30)
    assert decision.outcome is Outcome.NEEDS_REVIEW
    refused = [d for d in letters if d.subject == engine.subjects.layer_report]
    assert len(refused) == 7
    assert all("answers another task" in d.error for d in refused), [d.error for d in refused]


async def test_the_supervisor_s_rule_findings_apply_whatever_a_trusted_report_says(
    bus: Bus,
) -> None:
    """A trusted (or compromised) worker reports HL3 clean; the Supervisor's own local check
    (a bare except, medium) still counts for HL3."""
    tasks: list[str] = []
    async with supervisor_alone(bus) as engine:
        sign = TRUSTED.sign_layer_report
        async with answering(bus, engine.subjects, lambda t: sign(clean_report(t)), tasks):
            decision = await engine.submit(swallowed_action(), timeout=30)
    hl3 = decision.layer_results[LayerID.HL3]
    assert hl3.veto_level is VetoLevel.MEDIUM
    assert any("except" in f.title.lower() for f in hl3.merged_findings)
    assert decision.outcome is not Outcome.APPROVED


async def test_the_embedded_engine_reviews_in_process_and_refuses_reports_by_bus(
    bus: Bus,
) -> None:
    """The embedded engine hands its layer tasks to its own layer actors in process: no task
    crosses the bus, the genuine reports approve a clean diff, and a report arriving by bus
    for the action under review is refused — signed by a stranger, or even by the engine's
    own worker key (the layer answers in process, so a bus report is no part of the review)."""
    llm = ScriptedLLM.from_lines([{"match": {}, "delay_ms": 300, **CLEAN}])
    subjects = Subjects(prefix=f"own{uuid.uuid4().hex[:10]}")
    own_key = SigningKey.generate()
    action = diff_action("01-clean-refactor.diff")
    task = LayerTask(
        action_id="in-process-1",
        layer_id=LayerID.HL2,
        action=action,
        action_hash=action_hash(action),
        runs=3,
    )
    letters: list[DeadLetter] = []
    seen_tasks: list[bytes] = []
    async with (
        run_engine(bus=bus, llm=llm, subjects=subjects, worker_key=own_key) as engine,
        bus.subscribe(subjects.layer_tasks) as tasks,
        bus.subscribe(subjects.dlq) as dlq,
        anyio.create_task_group() as tg,
    ):

        async def watch() -> None:
            async for msg in tasks:
                seen_tasks.append(msg.data)

        tg.start_soon(watch)

        async def forge() -> None:
            await anyio.sleep(0.1)  # the review is under way (each LLM run takes 300 ms)
            for key in (SigningKey.generate(), own_key):
                await bus.publish(
                    subjects.layer_report, encode(key.sign_layer_report(clean_report(task)))
                )

        tg.start_soon(forge)
        decision = await engine.submit(action, action_id=task.action_id, timeout=30)
        with anyio.move_on_after(1.0):
            async for msg in dlq:
                letters.append(decode(msg.data, DeadLetter))
                if len(letters) == 2:
                    break
        tg.cancel_scope.cancel()
    assert decision.outcome is Outcome.APPROVED
    assert seen_tasks == []
    refused = [d.error for d in letters if d.subject == subjects.layer_report]
    assert len(refused) == 2, refused
    assert any("not a trusted worker key" in e for e in refused), refused
    assert any("in the Supervisor's own process" in e for e in refused), refused


async def test_engines_sharing_a_bus_and_a_worker_key_accept_each_other_s_layers(
    bus: Bus,
) -> None:
    """Two engines on one prefix share the layers' queue groups: with one worker key (and one
    signing key, as every Supervisor of a deployment) each accepts the other's layer reports."""
    llm = ScriptedLLM.from_lines([{"match": {}, **CLEAN}])
    subjects = Subjects(prefix=f"two{uuid.uuid4().hex[:10]}")
    workers, signer = SigningKey.generate(), SigningKey.generate()
    letters: list[DeadLetter] = []
    async with (
        run_engine(
            bus=bus, llm=llm, subjects=subjects, worker_key=workers, signing_key=signer
        ) as first,
        run_engine(bus=bus, llm=llm, subjects=subjects, worker_key=workers, signing_key=signer),
        bus.subscribe(subjects.dlq) as dlq,
    ):
        clean = diff_action("01-clean-refactor.diff")
        outcomes = {(await first.submit(clean, timeout=30)).outcome for _ in range(4)}
        with anyio.move_on_after(0.3):
            async for msg in dlq:
                letters.append(decode(msg.data, DeadLetter))
    assert outcomes == {Outcome.APPROVED}
    assert not [d for d in letters if d.subject == subjects.layer_report]


def test_a_layer_report_signature_survives_the_wire_and_covers_every_field() -> None:
    task = LayerTask(
        action_id="act-1",
        layer_id=LayerID.HL2,
        action=CRITICAL,
        action_hash="a" * 64,
        runs=3,
    )
    signed = TRUSTED.sign_layer_report(clean_report(task))
    verify_layer_report(decode(encode(signed), LayerReport), [TRUSTED.public_key])
    for change in (
        {"action_hash": "b" * 64},
        {"action_id": "act-2"},
        {"layer_id": LayerID.HL3},
        {"deadline_passed": True},
        {"runs": signed.runs[:2]},
    ):
        with pytest.raises(SignatureError, match="does not match"):
            verify_layer_report(msgspec.structs.replace(signed, **change), [TRUSTED.public_key])
    decision_key_signature = msgspec.structs.replace(
        signed, signer=SigningKey.generate().public_key
    )
    with pytest.raises(SignatureError, match="not a trusted worker key"):
        verify_layer_report(decision_key_signature, [TRUSTED.public_key])


def test_extreme_values_in_a_forged_report_are_refused_not_a_crash() -> None:
    task = LayerTask(
        action_id="act-1", layer_id=LayerID.HL1, action=CRITICAL, action_hash="a" * 64, runs=1
    )
    huge = clean_report(task)
    runs = [msgspec.structs.replace(r, execution_time_ms=1e300) for r in huge.runs]
    huge = msgspec.structs.replace(huge, runs=runs)
    with pytest.raises(SignatureError, match="not signed"):
        verify_layer_report(huge, [TRUSTED.public_key])
    signed = decode(encode(TRUSTED.sign_layer_report(huge)), LayerReport)
    verify_layer_report(signed, [TRUSTED.public_key])
    oversized = msgspec.structs.replace(signed, signer="N" * 64, signature="A" * 128)
    with pytest.raises(SignatureError, match="not a trusted worker key"):
        verify_layer_report(oversized, [TRUSTED.public_key])
