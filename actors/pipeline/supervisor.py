"""``PipelineSupervisor``: runs the Monitor's work orders through the agents, the seven layers
and the project store, and reports every outcome to the Monitor as a ``Handoff``."""

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
    AgentName,
    AgentResult,
    AgentRunRecord,
    ArtifactRef,
    DeadLetter,
    Handoff,
    HumanLayerReport,
    ResponseStatus,
    WorkOrder,
)
from humangr.engine.actor import Actor, ActorContext, Route
from humangr.engine.bus import Msg
from humangr.engine.enforcer.gates import check_reply
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
from humangr.engine.pipeline.context import (
    build_envelope,
    failure_reason,
    handoff_report,
    handoff_target,
)
from humangr.engine.state import MemoryStateStore, StateStore

from .files import envelope_for, mismatch, order_is_live, refused, write_if_live
from .monitor import MonitorActor
from .review import DevReviews

__all__ = ["WRITE_RETRIES", "PipelineSupervisor", "serve_actors"]

log = logging.getLogger("humangr.pipeline")
R = ResponseStatus
WRITE_RETRIES = 2
"""Times an agent is asked again after its artifacts could not be written."""
_STOPPED = (R.BLOCKED, R.FAIL, R.NEEDS_INFO)


class PipelineSupervisor(Actor):
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
        envelope = result.envelope
        wrong = mismatch(order, result)
        if wrong:
            log.error("result %s refused: %s", result.request_id, wrong)
            await self.settle(held, R.BLOCKED, reason=f"result refused: {wrong}")
            return
        if not result.validator_pass or envelope.status in _STOPPED:
            await self.settle(
                held,
                envelope.status,
                to=handoff_target(result),
                reason=failure_reason(result),
                summary=envelope.summary,
            )
            return
        sent = build_envelope(
            order, request_id=result.request_id, files={}, relevant=[], extra=held.record.extra
        )
        violations = check_reply(sent, envelope)
        if violations:
            listed = "; ".join(str(v) for v in violations[:20])
            log.error("result %s claims validator_pass but fails: %s", result.request_id, listed)
            await self.settle(
                held,
                R.BLOCKED,
                reason=f"result refused: it claims to pass the gates but fails {listed}; "
                "nothing was written",
            )
            return
        store = self.store_of(order.project_id)
        problems = await anyio.to_thread.run_sync(refused, store, envelope.artifacts)
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
        if order.mode == DEV_MODE:
            await self.settle(
                held,
                R.OK,
                to=AgentName.QA,
                decision_outcome="approved",
                code_refs=written,
                summary=result.envelope.summary,
                artifacts=[ArtifactRef(path=p) for p in written],
            )
            return
        await self.settle(
            held,
            result.envelope.status,
            to=handoff_target(result),
            summary=result.envelope.summary,
            report=handoff_report(order, result),
            artifacts=[
                ArtifactRef(path=p, summary=a.purpose)
                for p, a in zip(written, artifacts, strict=True)
            ],
        )

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

    def handoff(
        self,
        order: WorkOrder,
        status: ResponseStatus,
        *,
        to: AgentName = AgentName.MONITOR,
        **fields: Any,
    ) -> Handoff:
        for name in ("reason", "summary"):
            if name in fields:
                fields[name] = fields[name][:20_000]
        return Handoff(
            project_id=order.project_id,
            order_id=order.order_id,
            task_id=order.task_id,
            from_=order.agent,
            to=to,
            status=status,
            **fields,
        )

    async def settle(self, held: Held, status: ResponseStatus, **fields: Any) -> None:
        """End the order with its hand-off: recorded (to be sent again if the Monitor asks),
        then published."""
        handoff = self.handoff(held.record.order, status, **fields)
        done = msgspec.structs.replace(
            held.record, phase="done", handoff=handoff, result=None, review=None, extra={}
        )
        if await self.ledger.update(held, done) is None:
            log.info("order %s was settled by another handler; hand-off dropped", held.order_id)
            return
        if held.record.review is not None:
            await self.ledger.unlink(held.record.review.action_id)
        await self.publish_handoff(handoff)

    async def publish_handoff(self, handoff: Handoff) -> None:
        await self._ctx.publish(self._ctx.subjects.handoff(handoff.project_id), handoff)

    async def abandon(self, held: Held) -> None:
        """The project no longer waits for this order (cancelled, ended, or moved on): drop
        it without writing or handing off anything."""
        if await self.ledger.delete(held):
            log.warning(
                "project %s no longer waits for order %s; dropped with nothing written",
                held.record.order.project_id,
                held.order_id,
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
                        await self._recover()
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

    async def _recover(self) -> None:
        found, damaged = await self.ledger.scan()
        for error in damaged:
            log.error("not taken up: %s", error)
        for held in found:
            record = held.record
            if record.phase == "done":
                continue
            try:
                store = self.store_of(record.order.project_id)
                live = await anyio.to_thread.run_sync(order_is_live, store, record.order)
            except (StateFileError, MessageRefused) as exc:
                log.error("order %s not taken up: %s", held.order_id, exc)
                continue
            if not live:
                await self.abandon(held)
            elif record.phase == "calling":
                log.warning(
                    "order %s: asking %s again after a restart", held.order_id, record.order.agent
                )
                await self.send(held, again=True)
            elif record.phase == "writing":
                await self.finish_write(held)
            else:
                self.reviews.recovered(held)

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
