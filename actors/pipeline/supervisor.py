"""``PipelineSupervisor``: runs the Monitor's work orders through the agents, the seven layers
and the project store, and reports every outcome to the Monitor as a ``Handoff``.

Beside the actor: ``handoffs`` (how a result ends its order, and ``Settlement``, which ends
it), ``recovery`` (the recorded orders taken up after a restart) and ``review`` (a Dev
output's review)."""

from __future__ import annotations

import logging
import time
import uuid
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import anyio
import msgspec

from humangr.actors.pipeline.audit import AuditLog
from humangr.actors.pipeline.ledger import Held, OrderRecord, WorkLedger
from humangr.actors.pipeline.storage import ProjectStore, resolve_root
from humangr.contracts import (
    AgentResult,
    AgentRunRecord,
    DeadLetter,
    HumanLayerReport,
    ResponseStatus,
    WorkOrder,
)
from humangr.engine.actor import Actor, ActorContext, Route
from humangr.engine.bus import Msg
from humangr.engine.errors import (
    BusClosedError,
    BusError,
    ContractError,
    MessageRefused,
    PathPolicyError,
    StateError,
    StateFileError,
)
from humangr.engine.path_policy import write_problem
from humangr.engine.pipeline import DEV_MODE
from humangr.engine.state import MemoryStateStore, StateStore

from .files import envelope_for, refused, write_if_live
from .handoffs import Settlement, result_ending, written_ending
from .monitor import MonitorActor
from .recovery import take_up
from .review import DevReviews

__all__ = ["WRITE_RETRIES", "PipelineSupervisor", "serve_actors"]

log = logging.getLogger("humangr.pipeline")
R = ResponseStatus
WRITE_RETRIES = 2
"""Times an agent is asked again after its artifacts could not be written."""


class PipelineSupervisor(Settlement, Actor):
    """``WorkOrder`` → ``MessageEnvelope`` (with excerpts of the relevant files) → agent.

    A valid ``AgentResult`` has its artifacts written through ``ProjectStore`` — except the
    Dev's: they are first submitted to the seven layers as one diff (``ActionSubmitted``) and
    written only once the decision is ``approved``. A result is never taken at its word: it
    must answer its request (project, agent, mode, task), and its reply is checked again with
    the enforcer's gates — the agent's write set included — whatever ``validator_pass`` says;
    one that fails ends ``BLOCKED`` with nothing written. Every outcome becomes a ``Handoff`` on
    ``handoffs.<project_id>``. A path the store refuses is sent back to the agent as
    ``inputs.write_error`` (up to ``WRITE_RETRIES`` times, then ``BLOCKED``). Agent calls and
    reviews that never answer end ``BLOCKED`` after their timeouts. ``AgentRunRecord``s from
    ``audit.*`` are appended to the project's audit log.

    Every order lives in ``state`` (``WorkLedger``) from the moment it arrives, so nothing is
    lost with this process: on (re)start the Supervisor asks the agent again for an order whose
    answer it never got, waits for (or submits again, under the same action id) the review of a
    Dev output, finishes a write it began, and drops the orders the project no longer waits for.
    An order the Monitor issues again is never run twice: in progress it is left alone, done
    its hand-off is sent again. Artifacts are written only while the project's persisted state
    still waits for that order (not after a cancel), and a write already on disk is not redone.
    """

    name = "pipeline-supervisor"
    max_concurrency = 64

    def __init__(
        self,
        root: Path | str,
        *,
        state: StateStore | None = None,
        max_diff_bytes: int = 1_000_000,
        decision_timeout: float = 600.0,
        sweep_interval: float = 0.5,
        report_timeout: float = 5.0,
        recover_interval: float = 2.0,
    ) -> None:
        self.root = resolve_root(root)
        self.store: StateStore = state if state is not None else MemoryStateStore()
        self.ledger = WorkLedger(self.store)
        self.max_diff_bytes = max_diff_bytes
        self.decision_timeout = decision_timeout
        self.sweep_interval = sweep_interval
        self.report_timeout = report_timeout
        self.recover_interval = recover_interval
        self.instance = ""
        self._stores: dict[str, ProjectStore] = {}
        self._requests: dict[str, tuple[str, float]] = {}
        """Requests this instance waits for: request id → (order id, deadline)."""

    def routes(self, ctx: ActorContext) -> Sequence[Route[Any]]:
        self._ctx = ctx
        self.reviews = DevReviews(self, ctx)
        s = ctx.subjects
        q = "pipeline-supervisor"
        return [
            Route(s.work_order, WorkOrder, self._on_order, queue=q),
            Route(s.agent_result, AgentResult, self._on_result, queue=q),
            Route(s.decisions, HumanLayerReport, self.reviews.on_decision),
            Route(s.dlq, DeadLetter, self.reviews.on_refusal, report_undecodable=False),
            Route(s.audits, AgentRunRecord, self._on_audit, queue=q),
        ]

    async def setup(self, ctx: ActorContext) -> None:
        self.instance = uuid.uuid4().hex[:12]
        self._requests.clear()
        self.reviews.clear()
        await self.ledger.open()

    def store_of(self, project_id: str) -> ProjectStore:
        store = self._stores.get(project_id)
        if store is None:
            try:
                store = self._stores[project_id] = ProjectStore(self.root, project_id)
            except PathPolicyError as exc:
                raise MessageRefused(str(exc)) from None
        return store

    async def _on_order(self, order: WorkOrder, _: Msg) -> None:
        self.store_of(order.project_id)
        held = await self.ledger.get(order.order_id)
        if held is None:
            held = await self.ledger.create(OrderRecord(order=order))
            if held is not None:
                await self.ledger.prune(order.project_id, keep=order.order_id)
                await self.send(held)
                return
            held = await self.ledger.get(order.order_id)
            if held is None:
                return
        if held.record.order != order:
            raise MessageRefused(
                f"work order {order.order_id} was issued before with other contents; an order "
                "id names one order only",
                correlation_id=order.project_id,
            )
        await self._again(held)

    async def _again(self, held: Held) -> None:
        """The Monitor issued a known order again: send its hand-off again if it is done (or
        its notice if it waits for a human); otherwise it is in progress."""
        record = held.record
        if record.phase == "done" and record.handoff is not None:
            log.info("order %s was done; its hand-off is sent again", held.order_id)
            await self.publish_handoff(record.handoff)
        elif record.review is not None and record.review.notice is not None:
            await self.publish_handoff(record.review.notice)
        else:
            log.info("order %s is already in progress (%s)", held.order_id, record.phase)

    async def send(
        self, held: Held, extra: dict[str, str] | None = None, *, again: bool = False
    ) -> None:
        """Send the order to its agent: a new request, or (``again``) the request in flight
        once more under its id, after a restart lost it."""
        record = held.record
        sends = record.sends if again else record.sends + 1
        inputs = record.extra if again else (extra or {})
        request_id = f"{record.order.order_id}-{sends}"
        store = self.store_of(record.order.project_id)
        try:
            envelope = await anyio.to_thread.run_sync(
                envelope_for, store, record.order, request_id, inputs
            )
        except PathPolicyError as exc:
            await self.settle(held, R.BLOCKED, reason=f"the project cannot be read: {exc}")
            return
        updated = msgspec.structs.replace(
            record,
            phase="calling",
            sends=sends,
            request_id=request_id,
            sent_at=time.time(),
            sender=self.instance,
            extra=dict(inputs),
            result=None,
        )
        if await self.ledger.update(held, updated) is None:
            log.info("order %s changed meanwhile; request %s not sent", held.order_id, request_id)
            return
        limit = record.order.limits.timeout_sec * 4 + 30
        self._requests[request_id] = (held.order_id, time.time() + limit)
        await self._ctx.publish(self._ctx.subjects.agent_request(record.order.agent), envelope)

    async def _on_result(self, result: AgentResult, _: Msg) -> None:
        order_id = result.request_id.rpartition("-")[0]
        held = await self.ledger.get(order_id) if order_id else None
        if (
            held is None
            or held.record.phase != "calling"
            or held.record.request_id != result.request_id
        ):
            log.warning("result %s matches no request in flight; ignored", result.request_id)
            return
        self._requests.pop(result.request_id, None)
        order = held.record.order
        ending = result_ending(order, result, held.record.extra)
        if ending is not None:
            await self.settle(held, ending.status, **ending.fields)
            return
        store = self.store_of(order.project_id)
        problems = await anyio.to_thread.run_sync(refused, store, result.envelope.artifacts)
        if problems:
            await self.retry_or_block(held, problems)
        elif order.mode == DEV_MODE:
            await self.reviews.submit(held, result)
        else:
            writing = msgspec.structs.replace(held.record, phase="writing", result=result)
            updated = await self.ledger.update(held, writing)
            if updated is not None:
                await self.finish_write(updated)

    async def finish_write(self, held: Held) -> None:
        """Write the artifacts of an order in the ``writing`` phase and hand it off — the one
        place agent artifacts reach disk: every path in the order's write set (else
        ``BLOCKED``, nothing written), then one all-or-nothing batch (a refusal is retried),
        only while the project still waits for the order."""
        record = held.record
        order, result = record.order, record.result
        if result is None:
            await self.settle(held, R.BLOCKED, reason="nothing to write (no result recorded)")
            return
        artifacts = result.envelope.artifacts
        outside = [p for a in artifacts if (p := write_problem(order.agent, a.path))]
        if outside:
            reason = f"artifacts refused: {'; '.join(outside)[:2_000]}"
            await self.settle(held, R.BLOCKED, reason=reason)
            return
        store = self.store_of(order.project_id)
        try:
            written = await anyio.to_thread.run_sync(write_if_live, store, order, artifacts)
        except PathPolicyError as exc:
            await self.retry_or_block(held, [str(exc)])
            return
        except StateFileError as exc:
            await self.settle(held, R.BLOCKED, reason=f"nothing written: {exc}")
            return
        if written is None:
            await self.abandon(held)
            return
        ending = written_ending(order, result, written)
        await self.settle(held, ending.status, **ending.fields)

    async def retry_or_block(self, held: Held, problems: list[str]) -> None:
        error = "; ".join(problems)[:2_000]
        if held.record.sends > WRITE_RETRIES:
            await self.settle(held, R.BLOCKED, reason=f"artifacts refused: {error}")
            return
        log.warning(
            "order %s: artifacts refused (%s); asking the agent again", held.order_id, error
        )
        await self.send(
            held,
            {
                "write_error": f"Your artifacts were not written: {error}. "
                "Return them again under allowed paths."
            },
        )

    async def _on_audit(self, record: AgentRunRecord, _: Msg) -> None:
        audit = AuditLog(self.store_of(record.project_id))
        try:
            await anyio.to_thread.run_sync(audit.append, record)
        except (ContractError, PathPolicyError) as exc:
            raise MessageRefused(str(exc)) from None

    async def background(self, ctx: ActorContext) -> None:
        """Take up the recorded orders, then end agent calls and reviews that never answered
        as ``BLOCKED`` (fail closed)."""
        recovered = False
        next_recovery = 0.0
        while True:
            try:
                if time.time() >= next_recovery and (not recovered or self.reviews.unconfirmed):
                    if not recovered:
                        await take_up(self)
                        recovered = True
                    await self.reviews.confirm()
                    next_recovery = time.time() + self.recover_interval
                await self._sweep()
            except BusClosedError:
                raise
            except (BusError, StateError) as exc:
                log.warning("pipeline supervisor background work: %s; trying again", exc)
                next_recovery = time.time() + self.recover_interval
            await anyio.sleep(self.sweep_interval)

    async def _sweep(self) -> None:
        now = time.time()
        for request_id, (order_id, deadline) in list(self._requests.items()):
            if now <= deadline:
                continue
            del self._requests[request_id]
            held = await self.ledger.get(order_id)
            if (
                held is not None
                and held.record.request_id == request_id
                and held.record.phase == "calling"
            ):
                await self.settle(
                    held, R.BLOCKED, reason=f"no answer from {held.record.order.agent}"
                )
        await self.reviews.sweep(now)


def serve_actors(
    *, llm: object = None, root: Path | str, state: StateStore | None = None
) -> list[Actor]:
    """The ``monitor`` role of ``humangr serve``: the pipeline Supervisor (its orders and
    reviews in ``state``) and the Monitor (its projects in their ``TASK_STATE.json``); run one
    of each per deployment. The Supervisor comes first, so it listens before the Monitor
    issues the pending orders again."""
    return [PipelineSupervisor(root, state=state), MonitorActor(root)]
