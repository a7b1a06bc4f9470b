"""``LayerActor``: one review layer (HL1..HL7) — local checks plus LLM runs, then consensus."""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import anyio

from humangr.contracts import (
    CancelAction,
    ConsensusResult,
    LayerID,
    LayerReport,
    LayerRunResult,
    LayerStatus,
    LayerTask,
    Usage,
    VetoLevel,
)
from humangr.engine.actor import Actor, ActorContext, Route
from humangr.engine.bus import Msg
from humangr.engine.checks import SharedChecks
from humangr.engine.layer_run import llm_layer_run
from humangr.engine.llm import LLMClient
from humangr.engine.llm.metered import metered
from humangr.engine.review import consensus

__all__ = ["LayerActor"]

log = logging.getLogger("humangr.layer")

PROCESS_CHECKS = SharedChecks()
"""Local checks shared by the layer actors of this process: one pass per action."""


class LayerActor(Actor):
    """Serves ``<prefix>.layers.<LID>.task`` in the queue group ``layer-<LID>``.

    Each task runs the layer's local checks and, when an LLM is configured, ``task.runs`` LLM
    runs in parallel; the consensus goes back as a ``LayerReport``. A ``CancelAction`` for the
    action cancels its in-flight LLM calls and no report is sent.
    """

    max_concurrency = 64

    def __init__(
        self,
        layer_id: LayerID,
        llm: LLMClient | None,
        *,
        max_repairs: int = 2,
        adaptive_redundancy: bool = False,
        instance: str = "",
        checks: SharedChecks | None = None,
    ) -> None:
        self.layer_id = layer_id
        self.llm = llm
        self._llm: LLMClient | None = None
        self.max_repairs = max_repairs
        self.adaptive = adaptive_redundancy
        self.name = f"layer-{layer_id}{'-' + instance if instance else ''}"
        self._checks = checks or PROCESS_CHECKS
        self._running: dict[str, list[_Running]] = {}
        self._cancelled: set[str] = set()
        self.cancelled_tasks = 0

    def routes(self, ctx: ActorContext) -> Sequence[Route[Any]]:
        self._ctx = ctx
        self._llm = None if self.llm is None else metered(self.llm, ctx.metrics)
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
        running = self._running.get(message.action_id)
        if running:
            for entry in running:
                entry.cancel()
        else:
            self._cancelled.add(message.action_id)
            if len(self._cancelled) > 10_000:
                self._cancelled.clear()

    async def _on_task(self, task: LayerTask, _: Msg) -> None:
        if task.layer_id != self.layer_id:
            log.warning("%s got a task for %s; ignored", self.name, task.layer_id)
            return
        if task.action_id in self._cancelled:
            self._cancelled.discard(task.action_id)
            return
        started = time.perf_counter()
        entry = _Running(anyio.CancelScope(deadline=anyio.current_time() + task.deadline_s))
        running = self._running.setdefault(task.action_id, [])
        running.append(entry)
        report: LayerReport | None = None
        try:
            with entry.scope:
                report = await self._review(task)
        finally:
            running.remove(entry)
            if not running:
                self._running.pop(task.action_id, None)
        if entry.by_cancel:
            self.cancelled_tasks += 1
            log.debug("%s: review of %s cancelled", self.name, task.action_id)
            return
        if report is None:
            report = self._deadline_report(task, started)
        await self._ctx.publish(self._ctx.subjects.layer_report, report)

    async def _review(self, task: LayerTask) -> LayerReport:
        rules = await self._checks.findings(task.action_hash, task.action, self.layer_id)
        planned = task.runs if self.llm is not None else 0
        runs = await self._runs(task, planned) if planned else []
        result = consensus(self.layer_id, runs, planned_runs=planned, rule_findings=rules)
        self._record(runs)
        self._ctx.metrics.vetoes.labels(self.layer_id.value, result.veto_level.value).inc()
        self._ctx.metrics.layer_agreement.labels(self.layer_id.value).observe(
            result.agreement_ratio
        )
        usage = sum((run.usage for run in runs), Usage())
        return LayerReport(
            action_id=task.action_id,
            layer_id=self.layer_id,
            runs=runs,
            consensus=result,
            usage=usage,
        )

    async def _runs(self, task: LayerTask, planned: int) -> list[LayerRunResult]:
        results: dict[int, LayerRunResult] = {}

        async def one(number: int) -> None:
            results[number] = await self._run(task, number)

        async def batch(numbers: range) -> None:
            """Run in parallel; the first run in this task, the others in their own."""
            async with anyio.create_task_group() as tg:
                for number in numbers[1:]:
                    tg.start_soon(one, number)
                await one(numbers[0])

        first = min(planned, 2) if self.adaptive else planned
        await batch(range(1, first + 1))
        if first < planned and not _agree(list(results.values())):
            await batch(range(first + 1, planned + 1))
        return [results[n] for n in sorted(results)]

    async def _run(self, task: LayerTask, number: int) -> LayerRunResult:
        assert self._llm is not None
        return await llm_layer_run(
            self._llm,
            self.layer_id,
            task.action,
            number,
            prior_findings=task.prior_findings,
            tags={"action_id": task.action_id},
            max_repairs=self.max_repairs,
            metrics=self._ctx.metrics,
        )

    def _record(self, runs: Sequence[LayerRunResult]) -> None:
        for run in runs:
            self._ctx.metrics.layer_runs.labels(self.layer_id.value, run.status.value).inc()

    def _deadline_report(self, task: LayerTask, started: float) -> LayerReport:
        elapsed = time.perf_counter() - started
        result = ConsensusResult(
            status=LayerStatus.ERROR,
            veto_level=VetoLevel.NONE,
            agreement_ratio=0.0,
            planned_runs=task.runs if self.llm is not None else 0,
            error=f"deadline of {task.deadline_s:g}s passed after {elapsed:.1f}s",
        )
        self._ctx.metrics.layer_runs.labels(self.layer_id.value, "error").inc()
        return LayerReport(action_id=task.action_id, layer_id=self.layer_id, consensus=result)


@dataclass(slots=True)
class _Running:
    """A task in progress: its scope carries the layer's deadline; ``cancel`` is a
    ``CancelAction``, after which no report is sent."""

    scope: anyio.CancelScope
    by_cancel: bool = False

    def cancel(self) -> None:
        self.by_cancel = True
        self.scope.cancel()


def _agree(runs: Sequence[LayerRunResult]) -> bool:
    valid = [r for r in runs if r.error is None]
    return len(valid) == len(runs) >= 2 and len({(r.status, r.veto_level) for r in valid}) == 1
