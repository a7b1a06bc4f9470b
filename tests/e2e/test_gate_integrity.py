"""Issue 10: nothing reaches ``approved`` that the full policy did not review — over MemoryBus
and a real NatsBus alike."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator, Callable, Iterable
from contextlib import asynccontextmanager

import anyio
import msgspec
import pytest
from e2e_helpers import CLEAN, STAND_IN_WORKER, diff_action, engine_on, swallowed_action
from flaky_bus import FlakyBus

from humangr.actors.roles import Engine, run_engine, submit_and_wait
from humangr.contracts import (
    ActionContext,
    ActionSubmitted,
    DeadLetter,
    GateSettings,
    HumanLayerReport,
    LayerID,
    LayerReport,
    LayerRunResult,
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
from humangr.engine.bus import Bus, MemoryBus
from humangr.engine.config import ReviewConfig
from humangr.engine.errors import ConfigError, SubmissionRefused
from humangr.engine.llm import ScriptedLLM
from humangr.engine.review import consensus, make_run
from humangr.engine.signatures import task_digest

pytestmark = pytest.mark.anyio

SHELL_DIFF = """\
diff --git a/app/run.py b/app/run.py
new file mode 100644
--- /dev/null
+++ b/app/run.py
@@ -0,0 +1,7 @@
+import subprocess
+from flask import request
+
+
+def run() -> None:
+    cmd = request.args["cmd"]
+    subprocess.run(cmd, shell=True)
"""


def shell_action() -> ActionContext:
    return ActionContext(
        agent_id="agent-1", action_type="code_diff", action_description="run", code_diff=SHELL_DIFF
    )


class Recorded(list[bytes]):
    """Payloads seen on a subject; ``wait`` until there are enough."""

    def __init__(self) -> None:
        super().__init__()
        self.changed = anyio.Event()

    def add(self, data: bytes) -> None:
        self.append(data)
        self.changed.set()
        self.changed = anyio.Event()

    async def wait(self, count: int = 1, timeout: float = 10.0) -> None:
        with anyio.fail_after(timeout):
            while len(self) < count:
                await self.changed.wait()


@asynccontextmanager
async def recording(bus: Bus, subject: str) -> AsyncIterator[Recorded]:
    """Every payload published on ``subject`` while the block runs."""
    seen = Recorded()
    async with bus.subscribe(subject) as sub, anyio.create_task_group() as tg:

        async def collect() -> None:
            async for msg in sub:
                seen.add(msg.data)

        tg.start_soon(collect)
        yield seen
        await anyio.sleep(0.2)
        tg.cancel_scope.cancel()


async def test_a_submission_naming_its_layers_is_refused(bus: Bus) -> None:
    async with engine_on(bus) as engine:
        s = engine.subjects
        submitted = ActionSubmitted(action_id="chosen", action=shell_action(), layers=[LayerID.HL1])
        async with recording(bus, s.dlq) as letters, recording(bus, s.decisions) as decisions:
            await bus.publish(s.agent_submit(submitted.action.agent_id), encode(submitted))
            await letters.wait()
        letter = decode(letters[0], DeadLetter)
        assert "Supervisor alone decides" in letter.error
        assert letter.correlation_id == "chosen"
        assert letter.raw == b"", "a decoded message's letter keeps no raw bytes"
        assert decisions == []
        with pytest.raises(SubmissionRefused, match="Supervisor alone decides"):
            await submit_and_wait(bus, s, shell_action(), layers=[LayerID.HL1], timeout=30)
        with pytest.raises(SubmissionRefused, match="Supervisor alone decides"):
            await engine.submit(shell_action(), layers=[LayerID.HL4], timeout=30)
        report = await engine.submit(shell_action(), timeout=30)
    assert report.outcome is Outcome.REJECTED
    assert report.layer_results[LayerID.HL4].veto_level is VetoLevel.STRONG


async def test_an_allowed_layer_selection_is_named_in_the_report_and_its_policy(bus: Bus) -> None:
    clean = diff_action("01-clean-refactor.diff")
    with pytest.raises(ConfigError, match="allow_layer_selection"):
        ReviewConfig(allow_layer_selection=True)  # the agent would choose its reviewers
    async with engine_on(bus, allow_layer_selection=True, unsafe_policy=True) as engine:
        partial = await engine.submit(clean, layers=[LayerID.HL1], timeout=30)
        full = await engine.submit(clean, timeout=30)
    assert set(partial.layer_results) == {LayerID.HL1}
    selection = "unsafe policy: allow_layer_selection"
    assert partial.policy_notes[0] == "partial review: HL1"
    assert [n for n in partial.policy_notes[1:] if not n.startswith(selection)] == []
    assert len(full.policy_notes) == 1
    assert full.policy_notes[0].startswith(selection)
    assert partial.policy_version != full.policy_version


def verdict(severity: Severity) -> dict[str, object]:
    finding = ReviewFinding(severity=severity, title=f"a {severity.value} problem", line=1)
    return {"json": {"findings": [msgspec.to_builtins(finding)], "summary": "found one"}}


async def test_a_late_layer_keeps_its_rule_veto(bus: Bus) -> None:
    """HL3 misses its deadline; its rule veto (medium) still counts: with HL2's medium from the
    LLM that is two mediums, rejected — without it, one medium would only need a human."""
    llm = ScriptedLLM.from_lines(
        [
            {"match": {}, **CLEAN},
            {"match": {"layer": "HL2"}, **verdict(Severity.HIGH)},
            {"match": {"layer": "HL3"}, "delay_ms": 5_000, **CLEAN},
        ]
    )
    async with engine_on(bus, llm=llm, layer_deadline_s=0.5) as engine:
        report = await engine.submit(swallowed_action(), timeout=30)
    hl3 = report.layer_results[LayerID.HL3]
    assert report.outcome is Outcome.REJECTED
    assert hl3.status is LayerStatus.ERROR
    assert hl3.veto_level is VetoLevel.MEDIUM
    assert any("except" in f.title.lower() for f in hl3.merged_findings)


async def test_layers_that_never_report_still_bring_their_rule_findings(bus: Bus) -> None:
    llm = ScriptedLLM.from_lines([{"match": {}, **CLEAN}])
    async with engine_on(bus, llm=llm, roles=("supervisor",), layer_deadline_s=0.3) as engine:
        flawed = await engine.submit(swallowed_action(), timeout=30)
        clean = await engine.submit(diff_action("01-clean-refactor.diff"), timeout=30)
    hl3 = flawed.layer_results[LayerID.HL3]
    assert flawed.outcome is Outcome.NEEDS_REVIEW
    assert (hl3.status, hl3.veto_level) == (LayerStatus.ERROR, VetoLevel.MEDIUM)
    assert clean.outcome is Outcome.NEEDS_REVIEW
    assert all(r.status is LayerStatus.ERROR for r in clean.layer_results.values())


@pytest.mark.parametrize(
    ("settings", "script", "default", "stricter"),
    [
        (
            GateSettings(rejecting_mediums=1),
            [{"match": {"layer": "HL2"}, **verdict(Severity.HIGH)}],
            Outcome.NEEDS_REVIEW,
            Outcome.REJECTED,
        ),
        (
            GateSettings(dissent_floor=VetoLevel.STRONG),
            [{"match": {"layer": "HL4", "run": "3"}, **verdict(Severity.CRITICAL)}],
            Outcome.NEEDS_REVIEW,
            Outcome.REJECTED,
        ),
    ],
)
async def test_configured_thresholds_are_honoured_end_to_end(
    bus: Bus,
    settings: GateSettings,
    script: list[dict[str, object]],
    default: Outcome,
    stricter: Outcome,
) -> None:
    clean = diff_action("01-clean-refactor.diff")
    outcomes = []
    for gate in (GateSettings(), settings):
        llm = ScriptedLLM.from_lines([{"match": {}, **CLEAN}, *script])
        async with engine_on(bus, llm=llm, gate=gate) as engine:
            outcomes.append((await engine.submit(clean, timeout=30)).outcome)
    assert outcomes == [default, stricter]


Answer = Callable[[LayerTask], Iterable[LayerReport]]


@asynccontextmanager
async def fake_layers(bus: Bus, subjects: Subjects, answer: Answer) -> AsyncIterator[None]:
    """Stand in for the layer workers: answer every task with the reports ``answer`` forges,
    signed with a key the Supervisor trusts (a compromised worker)."""
    async with bus.subscribe(subjects.layer_tasks) as tasks, anyio.create_task_group() as tg:

        async def serve() -> None:
            async for msg in tasks:
                task = decode(msg.data, LayerTask)
                for report in answer(task):
                    answered = msgspec.structs.replace(report, task_digest=task_digest(task))
                    signed = STAND_IN_WORKER.sign_layer_report(answered)
                    await bus.publish(subjects.layer_report, encode(signed))

        tg.start_soon(serve)
        yield
        tg.cancel_scope.cancel()


def runs(task: LayerTask, severity: Severity | None = None) -> list[LayerRunResult]:
    found = [ReviewFinding(severity=severity, title="hidden")] if severity else []
    return [make_run(task.layer_id, n, found) for n in range(1, task.runs + 1)]


def report(task: LayerTask, the_runs: list[LayerRunResult], **fields: object) -> LayerReport:
    claimed = consensus(task.layer_id, [], planned_runs=0)
    values: dict[str, object] = {"action_hash": task.action_hash, **fields}
    return LayerReport(
        action_id=task.action_id,
        layer_id=task.layer_id,
        runs=the_runs,
        consensus=claimed,
        **values,  # type: ignore[arg-type]
    )


@asynccontextmanager
async def supervisor_alone(bus: Bus, **config: object) -> AsyncIterator[Engine]:
    """A Supervisor that plans LLM runs, with no layer actors: the test answers its tasks."""
    llm = ScriptedLLM.from_lines([{"match": {}, **CLEAN}])
    async with engine_on(bus, llm=llm, roles=("supervisor",), **config) as engine:
        yield engine


async def test_a_report_for_another_action_hash_is_refused(bus: Bus) -> None:
    def answer(task: LayerTask) -> Iterable[LayerReport]:
        yield report(task, runs(task, Severity.CRITICAL), action_hash="f" * 64)
        yield report(task, runs(task, Severity.CRITICAL), action_hash=None)
        yield report(task, runs(task))

    async with supervisor_alone(bus) as engine:
        s = engine.subjects
        async with recording(bus, s.dlq) as letters, fake_layers(bus, s, answer):
            decision = await engine.submit(diff_action("01-clean-refactor.diff"), timeout=30)
    assert decision.outcome is Outcome.APPROVED
    errors = [decode(raw, DeadLetter).error for raw in letters]
    assert sum("names ffffffffffff" in e for e in errors) == 7
    assert sum("names no action hash" in e for e in errors) == 7


async def test_forged_clean_runs_and_a_forged_consensus_do_not_approve(bus: Bus) -> None:
    def answer(task: LayerTask) -> Iterable[LayerReport]:
        the_runs = runs(task, Severity.CRITICAL if task.layer_id is LayerID.HL4 else None)
        yield report(
            task,
            [
                msgspec.structs.replace(r, status=LayerStatus.PASS, veto_level=VetoLevel.NONE)
                for r in the_runs
            ],
        )

    async with supervisor_alone(bus) as engine:
        s = engine.subjects
        async with fake_layers(bus, s, answer):
            decision = await engine.submit(diff_action("01-clean-refactor.diff"), timeout=30)
            mismatches = {
                lid: engine.metrics.registry.get_sample_value(
                    "humangr_layer_view_mismatches_total", {"layer": lid.value}
                )
                for lid in decision.layer_results
            }
    assert decision.outcome is Outcome.REJECTED
    assert decision.layer_results[LayerID.HL4].veto_level is VetoLevel.STRONG
    # the forged view is counted where it differs from the runs (HL4's), and only there
    assert mismatches[LayerID.HL4] == 1
    assert all(mismatches[lid] == 0 for lid in mismatches if lid is not LayerID.HL4)


async def test_a_report_missing_a_required_run_is_refused(bus: Bus) -> None:
    def answer(task: LayerTask) -> Iterable[LayerReport]:
        yield report(task, runs(task)[:2])

    async with supervisor_alone(bus, adaptive_redundancy=True, layer_deadline_s=1.0) as engine:
        s = engine.subjects
        async with recording(bus, s.dlq) as letters, fake_layers(bus, s, answer):
            decision = await engine.submit(diff_action("01-clean-refactor.diff"), timeout=30)
    strong = {LayerID.HL4, LayerID.HL6, LayerID.HL7}
    errors = {lid for lid, r in decision.layer_results.items() if r.status is LayerStatus.ERROR}
    assert decision.outcome is Outcome.NEEDS_REVIEW
    assert errors == strong & set(decision.layer_results)
    assert any("no result for run(s) 3" in decode(raw, DeadLetter).error for raw in letters)


@pytest.mark.parametrize("failures", [1, 3])
async def test_a_failed_decision_publish_is_retried_and_published_once(
    bus: Bus, failures: int
) -> None:
    flaky = FlakyBus(bus)
    async with engine_on(flaky) as engine:
        s = engine.subjects
        flaky.fail(s.decisions, failures)
        async with recording(bus, s.decisions) as decisions:
            report = await engine.submit(diff_action("01-clean-refactor.diff"), timeout=30)
            # the engine's own waiter has it as recorded; the bus gets it once the retries pass
            await decisions.wait(1)
            await anyio.sleep(0.3)  # and no second copy follows
    assert flaky.failed == failures
    assert report.outcome is Outcome.APPROVED
    assert [decode(raw, HumanLayerReport).action_id for raw in decisions] == [report.action_id]


def forged_decision(action: ActionContext, action_id: str) -> HumanLayerReport:
    return HumanLayerReport(
        report_id="rpt-forged",
        action_id=action_id,
        agent_id=action.agent_id,
        action_hash="0" * 64,
        policy_version="x",
        outcome=Outcome.APPROVED,
        final_veto_level=VetoLevel.NONE,
    )


@pytest.mark.parametrize("client", ["engine", "submit_and_wait", "kit"])
async def test_a_decision_for_another_action_hash_is_refused_by_the_client(client: str) -> None:
    from humangr.engine.errors import DecisionMismatch
    from humangr.testing import humangr

    action = diff_action("01-clean-refactor.diff")
    forged = encode(forged_decision(action, "act-target"))
    async with MemoryBus() as bus, supervisor_alone(bus, layer_deadline_s=5.0) as engine:
        s = engine.subjects

        async def forge(on: Bus, subjects: Subjects) -> None:
            await anyio.sleep(0.3)
            await on.publish(subjects.decision(action.agent_id), forged)

        async def attempt() -> object:
            if client == "engine":
                tg.start_soon(forge, bus, s)
                return await engine.submit(action, action_id="act-target", timeout=10)
            if client == "submit_and_wait":
                tg.start_soon(forge, bus, s)
                return await submit_and_wait(bus, s, action, action_id="act-target", timeout=10)
            async with humangr(llm=None) as kit:
                # A stale decision already recorded under the reused action id.
                await forge(kit.bus, kit.subjects)
                return await kit.submit(action, action_id="act-target", timeout=10)

        async with anyio.create_task_group() as tg:
            with pytest.raises(DecisionMismatch, match="does not apply"):
                await attempt()


def test_an_operators_partial_review_says_so_and_has_its_own_policy(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from e2e_helpers import EXAMPLES

    from humangr.cli.main import main

    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    diff = str(EXAMPLES / "01-clean-refactor.diff")
    assert main(["review", diff, "--layers", "HL4,HL6", "--format", "json"]) == 0
    partial = msgspec.json.decode(capsys.readouterr().out, type=HumanLayerReport)
    assert main(["review", diff, "--format", "json"]) == 0
    full = msgspec.json.decode(capsys.readouterr().out, type=HumanLayerReport)
    assert partial.policy_notes == ["partial review: HL4, HL6"]
    assert full.policy_notes == []
    assert partial.policy_version != full.policy_version
    assert main(["review", diff, "--layers", "HL4,HL6"]) == 0
    assert "policy: partial review: HL4, HL6" in capsys.readouterr().out


async def test_an_unsafe_policy_is_named_in_every_report() -> None:
    weak = GateSettings(rejecting_mediums=3)
    async with MemoryBus() as bus, engine_on(bus, gate=weak, unsafe_policy=True) as engine:
        report = await engine.submit(diff_action("01-clean-refactor.diff"), timeout=30)
    assert report.policy_notes == ["unsafe policy: rejecting_mediums=3 (two mediums must reject)"]


@pytest.mark.nats
async def test_a_decision_whose_publish_keeps_failing_is_redelivered_and_published_once(
    nats_url: str,
) -> None:
    from humangr.actors.review.supervisor import PUBLISH_ATTEMPTS
    from humangr.engine.bus.jetstream import JetStreamConfig, stream_names
    from humangr.engine.bus.nats import NatsBus

    subjects = Subjects(prefix=f"js{uuid.uuid4().hex[:10]}")
    config = JetStreamConfig(ack_wait=2.0, max_deliver=4, poll_interval=0.5, storage="memory")
    bus = await NatsBus.connect(nats_url, jetstream=config, subjects=subjects)
    flaky = FlakyBus(bus)
    flaky.fail(subjects.decisions, PUBLISH_ATTEMPTS + 1)
    policy = SupervisionPolicy(initial_backoff=0.05, drain_timeout=2.0)
    try:
        async with (
            run_engine(bus=flaky, subjects=subjects, policy=policy) as engine,
            recording(bus, subjects.decisions) as decisions,
        ):
            report = await engine.submit(diff_action("01-clean-refactor.diff"), timeout=30)
            await decisions.wait(1, timeout=20)  # published once redelivered (see above)
            await anyio.sleep(0.5)
        assert flaky.failed == PUBLISH_ATTEMPTS + 1
        assert report.outcome is Outcome.APPROVED
        assert [decode(raw, HumanLayerReport).action_id for raw in decisions] == [report.action_id]
    finally:
        js = bus.client.jetstream()
        for name in stream_names(subjects):
            await js.delete_stream(name)
        await bus.close()
