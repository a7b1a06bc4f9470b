"""``LayerActor``: one review layer (HL1..HL7) — the LLM runs of a ``LayerTask``, reported back
with the action's hash. The local checks are run once per action by the Supervisor and arrive
with the task; the Supervisor recomputes the layer's result from the reported runs."""

from __future__ import annotations

import logging
import time
import uuid
from collections.abc import Callable, Sequence
from typing import Any

import anyio

from humangr.contracts import (
    HEARTBEAT_INTERVAL_S,
    CancelAction,
    LayerID,
    LayerReport,
    LayerRunResult,
    LayerTask,
    Usage,
    WorkerHeartbeat,
)
from humangr.engine.actor import Actor, ActorContext, Route
from humangr.engine.bus import Msg
from humangr.engine.heartbeats import sign_heartbeat
from humangr.engine.layer_run import layer_request, llm_layer_run
from humangr.engine.llm import LLMClient
from humangr.engine.llm.metered import metered
from humangr.engine.review import adaptive_applies, consensus, error_run, late_result
from humangr.engine.signatures import task_digest
from humangr.engine.signing import SigningKey

from .layer_running import Running, SharedPrompt, runs_agree

__all__ = ["LayerActor"]

log = logging.getLogger("humangr.layer")

NO_LLM = (
    "this layer worker has no LLM configured but the Supervisor planned LLM runs; start the "
    "worker with --llm, or the Supervisor with --llm none for local checks only"
)


class LayerActor(Actor):
    """Serves ``<prefix>.layers.<LID>.task`` in the queue group ``layer-<LID>``.

    Each task runs ``task.runs`` LLM runs in parallel (none without an LLM: the layer is then
    its local checks alone); with ``task.adaptive`` a layer below strong power runs 1 and 2
    first and run 3 only when they disagree. The runs go back as a ``LayerReport`` bound to the
    task's action hash and to the task itself (``task_digest``). At the task's deadline the
    runs that finished are reported with ``deadline_passed``. A ``CancelAction`` for the action
    cancels its in-flight LLM calls and no report is sent. An unexpected failure inside a run
    is an ``error`` run, never a clean one.

    Every report is signed with ``signing_key`` (a fresh key per actor when none is given; its
    public key is ``public_key``): the Supervisor accepts reports of the keys it trusts only.

    It announces what it serves (``WorkerHeartbeat``: its layer, whether it has an LLM and
    which model) at start and every ``heartbeat_s``, and once more when it stops: the
    Supervisors plan LLM runs only for layers some worker can run them on.
    """

    max_concurrency = 64

    def __init__(
        self,
        layer_id: LayerID,
        llm: LLMClient | None,
        *,
        max_repairs: int = 2,
        instance: str = "",
        signing_key: SigningKey | None = None,
    ) -> None:
        self.layer_id = layer_id
        self.signing_key = signing_key or SigningKey.generate()
        self.public_key = self.signing_key.public_key
        self.llm = llm
        self._llm: LLMClient | None = None
        self.max_repairs = max_repairs
        self.name = f"layer-{layer_id}{'-' + instance if instance else ''}"
        self._running: dict[str, list[Running]] = {}
        self._cancelled: set[str] = set()
        self.cancelled_tasks = 0
        self.heartbeat_s = HEARTBEAT_INTERVAL_S
        self.worker_id = f"{self.name}-{uuid.uuid4().hex[:12]}"
        self._children: dict[tuple[int, tuple[str, ...]], Any] = {}
        """Metric children by metric and label values (``_child``)."""
        self._started = False
        self.watchers: list[Callable[[LayerTask], object]] = []
        """Told of each task handed over in process (``review_task``): the testing kit's
        ``layer_tasks`` sees them this way, as it sees the others on the bus."""

    @property
    def model(self) -> str:
        """The model of this worker's LLM (``""``: none, or not said)."""
        model = getattr(self.llm, "model", "") if self.llm is not None else ""
        return model if isinstance(model, str) else ""

    def mode(self) -> str:
        """What this worker does with a task, in words (logged at start)."""
        if self.llm is None:
            return "local checks only: no LLM configured, no LLM run (start it with --llm)"
        return f"LLM runs ({self.model or type(self.llm).__name__})"

    def heartbeat(self, *, stopping: bool = False) -> WorkerHeartbeat:
        """What this worker announces on ``worker_heartbeat``."""
        return WorkerHeartbeat(
            worker=self.worker_id[:128],
            layers=[self.layer_id],
            llm=self.llm is not None,
            model=self.model[:128],
            interval_s=self.heartbeat_s,
            stopping=stopping,
        )

    async def _announce(self, ctx: ActorContext, *, stopping: bool = False) -> None:
        try:
            beat = sign_heartbeat(self.heartbeat(stopping=stopping), self.signing_key)
            await ctx.publish(ctx.subjects.worker_heartbeat, beat)
        except Exception as exc:  # a lost heartbeat only delays what the Supervisor knows
            log.warning("%s: heartbeat not sent: %s", self.name, exc)

    async def setup(self, ctx: ActorContext) -> None:
        log.info("%s: %s", self.name, self.mode())
        await self._announce(ctx)

    async def background(self, ctx: ActorContext) -> None:
        """Announce this worker every ``heartbeat_s``."""
        while True:
            await anyio.sleep(self.heartbeat_s)
            await self._announce(ctx)

    async def teardown(self, ctx: ActorContext) -> None:
        self._started = False
        with anyio.move_on_after(1.0):
            await self._announce(ctx, stopping=True)

    def routes(self, ctx: ActorContext) -> Sequence[Route[Any]]:
        self._ctx = ctx
        self._llm = None if self.llm is None else metered(self.llm, ctx.metrics)
        self._children = {}
        self._started = True
        return [
            Route(
                ctx.subjects.layer_task(self.layer_id),
                LayerTask,
                self._on_task,
                queue=f"layer-{self.layer_id}",
            ),
            Route(ctx.subjects.action_cancels, CancelAction, self._on_cancel),
        ]

    async def _on_cancel(self, message: CancelAction, _: Msg) -> None:
        self.cancel(message.action_id)

    @property
    def ready(self) -> bool:
        """Whether the actor has started (its routes made): only then can it review a task
        handed to it in process (``review_task``)."""
        return self._started

    async def _on_task(self, task: LayerTask, _: Msg) -> None:
        report = await self._review(task)
        if report is not None:
            await self._ctx.publish(
                self._ctx.subjects.layer_report, self.signing_key.sign_layer_report(report)
            )

    async def review_task(self, task: LayerTask, digest: str | None = None) -> LayerReport | None:
        """The report of ``task``'s runs, unsigned, bound to the task (``digest``: its
        ``task_digest``, worked out here when not given). ``None`` when the task is another
        layer's or a ``CancelAction`` cancelled it. The task's deadline applies: the runs that
        finished by then are reported with ``deadline_passed``.

        The Supervisor of the same process hands its tasks here directly (no bus message, no
        signature: nothing leaves the process); ``_on_task`` serves those that come by bus
        and signs what it sends back."""
        for watcher in self.watchers:
            watcher(task)
        return await self._review(task, digest)

    async def _review(self, task: LayerTask, digest: str | None = None) -> LayerReport | None:
        if task.layer_id != self.layer_id:
            log.warning("%s got a task for %s; ignored", self.name, task.layer_id)
            return None
        if task.action_id in self._cancelled:
            self._cancelled.discard(task.action_id)
            return None
        started = time.perf_counter()
        entry = Running(anyio.CancelScope(deadline=anyio.current_time() + task.deadline_s))
        running = self._running.setdefault(task.action_id, [])
        running.append(entry)
        planned = task.runs
        try:
            with entry.scope:
                if planned and self._llm is None:
                    for number in range(1, planned + 1):
                        entry.results[number] = error_run(self.layer_id, number, NO_LLM)
                elif planned:
                    await self._runs(task, planned, entry.results)
        finally:
            running.remove(entry)
            if not running:
                self._running.pop(task.action_id, None)
        if entry.by_cancel:
            self.cancelled_tasks += 1
            log.debug("%s: review of %s cancelled", self.name, task.action_id)
            return None
        late = entry.scope.cancelled_caught
        runs = [entry.results[n] for n in sorted(entry.results)]
        return self._report(task, planned, runs, started, late, digest)

    def cancel(self, action_id: str) -> None:
        """Cancel this layer's work on ``action_id`` (as a ``CancelAction`` does): no report."""
        running = self._running.get(action_id)
        if running:
            for entry in running:
                entry.cancel()
        else:
            self._cancelled.add(action_id)
            if len(self._cancelled) > 10_000:
                self._cancelled.clear()

    def _child(self, metric: Any, *labels: str) -> Any:
        """``metric.labels(*labels)``, looked up once per label values (a few statuses and
        veto levels), not once per report."""
        key = (id(metric), labels)
        child = self._children.get(key)
        if child is None:
            child = self._children[key] = metric.labels(*labels)
        return child

    def _report(
        self,
        task: LayerTask,
        planned: int,
        runs: list[LayerRunResult],
        started: float,
        late: bool,
        digest: str | None = None,
    ) -> LayerReport:
        result = consensus(
            self.layer_id,
            runs,
            planned_runs=planned,
            rule_findings=task.rule_findings,
            settings=task.settings,
        )
        if late:
            elapsed = time.perf_counter() - started
            result = late_result(
                result, f"deadline of {task.deadline_s:g}s passed after {elapsed:.1f}s"
            )
        metrics, layer = self._ctx.metrics, self.layer_id.value
        for run in runs:
            self._child(metrics.layer_runs, layer, run.status.value).inc()
        if late:
            self._child(metrics.layer_runs, layer, "error").inc()
        self._child(metrics.vetoes, layer, result.veto_level.value).inc()
        self._child(metrics.layer_agreement, layer).observe(result.agreement_ratio)
        return LayerReport(
            action_id=task.action_id,
            layer_id=self.layer_id,
            runs=runs,
            consensus=result,
            usage=sum((run.usage for run in runs), Usage()),
            action_hash=task.action_hash,
            deadline_passed=late,
            task_digest=digest or task_digest(task),
        )

    async def _runs(
        self, task: LayerTask, planned: int, results: dict[int, LayerRunResult]
    ) -> None:
        shared = SharedPrompt()

        async def one(number: int) -> None:
            results[number] = await self._run(task, number, shared)

        async def batch(numbers: range) -> None:
            """Run in parallel; the first run in this task, the others in their own."""
            if len(numbers) == 1:
                await one(numbers[0])
                return
            async with anyio.create_task_group() as tg:
                for number in numbers[1:]:
                    tg.start_soon(one, number)
                await one(numbers[0])

        first = 2 if adaptive_applies(self.layer_id, planned, task.adaptive) else planned
        await batch(range(1, first + 1))
        if first < planned and not runs_agree([results[n] for n in sorted(results)]):
            await batch(range(first + 1, planned + 1))

    async def _run(self, task: LayerTask, number: int, shared: SharedPrompt) -> LayerRunResult:
        assert self._llm is not None
        started = time.perf_counter()
        try:
            if shared.request is None:  # the runs of a task share one rendering
                shared.request = layer_request(
                    self.layer_id,
                    task.action,
                    prior_findings=task.prior_findings,
                    rule_findings=task.rule_findings,
                    tags={"action_id": task.action_id},
                )
            return await llm_layer_run(
                self._llm,
                self.layer_id,
                task.action,
                number,
                prior_findings=task.prior_findings,
                rule_findings=task.rule_findings,
                tags={"action_id": task.action_id},
                max_repairs=self.max_repairs,
                metrics=self._ctx.metrics,
                request=shared.request,
            )
        except Exception as exc:
            log.exception("%s: run %d of %s failed", self.name, number, task.action_id)
            elapsed = (time.perf_counter() - started) * 1000
            return error_run(self.layer_id, number, exc, elapsed_ms=elapsed)
