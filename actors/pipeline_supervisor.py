"""``PipelineSupervisor``: runs the Monitor's work orders through the agents, the seven layers
and the project store, and reports every outcome to the Monitor as a ``Handoff``."""

from __future__ import annotations

import logging
import time
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio

from humangr.contracts import (
    ActionContext,
    ActionSubmitted,
    AgentName,
    AgentResult,
    AgentRunRecord,
    Artifact,
    ArtifactRef,
    Handoff,
    HumanLayerReport,
    MessageEnvelope,
    Outcome,
    ResponseStatus,
    WorkOrder,
)
from humangr.engine.actor import Actor, ActorContext, Route
from humangr.engine.audit import AuditLog
from humangr.engine.bus import Msg
from humangr.engine.enforcer.gates import check_reply
from humangr.engine.errors import ContractError, MessageRefused, PathPolicyError
from humangr.engine.path_policy import write_problem
from humangr.engine.pipeline import DEV_MODE
from humangr.engine.pipeline.context import (
    RESERVED_PREFIX,
    build_envelope,
    failure_reason,
    handoff_report,
    handoff_target,
    relevant_paths,
    review_diff,
    review_findings,
)
from humangr.engine.review import action_hash
from humangr.engine.storage import ProjectStore, resolve_root

__all__ = ["PipelineSupervisor"]

log = logging.getLogger("humangr.pipeline")
R = ResponseStatus
WRITE_RETRIES = 2
"""Times an agent is asked again after its artifacts could not be written."""
_STOPPED = (R.BLOCKED, R.FAIL, R.NEEDS_INFO)


@dataclass(slots=True)
class _Request:
    order: WorkOrder
    sends: int = 0
    sent_at: float = 0.0
    envelope: MessageEnvelope | None = None


@dataclass(slots=True)
class _Review:
    request: _Request
    result: AgentResult
    hash: str
    started: float
    waiting_human: bool = False


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
    """

    name = "pipeline-supervisor"
    max_concurrency = 64

    def __init__(
        self,
        root: Path | str,
        *,
        max_diff_bytes: int = 1_000_000,
        decision_timeout: float = 600.0,
        sweep_interval: float = 0.5,
    ) -> None:
        self.root = resolve_root(root)
        self.max_diff_bytes = max_diff_bytes
        self.decision_timeout = decision_timeout
        self.sweep_interval = sweep_interval
        self._stores: dict[str, ProjectStore] = {}
        self._active: set[str] = set()
        self._requests: dict[str, _Request] = {}
        self._reviews: dict[str, _Review] = {}

    def routes(self, ctx: ActorContext) -> Sequence[Route[Any]]:
        self._ctx = ctx
        s = ctx.subjects
        q = "pipeline-supervisor"
        return [
            Route(s.work_order, WorkOrder, self._on_order, queue=q),
            Route(s.agent_result, AgentResult, self._on_result, queue=q),
            Route(s.decisions, HumanLayerReport, self._on_decision),
            Route(s.audits, AgentRunRecord, self._on_audit, queue=q),
        ]

    def _store(self, project_id: str) -> ProjectStore:
        store = self._stores.get(project_id)
        if store is None:
            try:
                store = self._stores[project_id] = ProjectStore(self.root, project_id)
            except PathPolicyError as exc:
                raise MessageRefused(str(exc)) from None
        return store

    async def _on_order(self, order: WorkOrder, _: Msg) -> None:
        if order.order_id in self._active:
            log.info("order %s is already in progress; duplicate ignored", order.order_id)
            return
        self._store(order.project_id)
        self._active.add(order.order_id)
        await self._send(_Request(order))

    async def _send(self, request: _Request, extra: dict[str, str] | None = None) -> None:
        request.sends += 1
        request.sent_at = time.monotonic()
        store = self._store(request.order.project_id)
        try:
            envelope = await anyio.to_thread.run_sync(self._envelope, store, request, extra)
        except PathPolicyError as exc:
            self._active.discard(request.order.order_id)
            raise MessageRefused(f"project {request.order.project_id}: {exc}") from None
        request.envelope = envelope
        self._requests[envelope.request_id] = request
        await self._ctx.publish(self._ctx.subjects.agent_request(request.order.agent), envelope)

    @staticmethod
    def _envelope(
        store: ProjectStore, request: _Request, extra: dict[str, str] | None
    ) -> MessageEnvelope:
        files: dict[str, str] = {}
        for path in store.list():
            if path.startswith(RESERVED_PREFIX):
                continue
            try:
                files[path] = store.read(path)
            except (OSError, UnicodeDecodeError, PathPolicyError) as exc:
                log.warning("%s: %s not given to the agent: %s", store.project_id, path, exc)
        order = request.order
        return build_envelope(
            order,
            request_id=f"{order.order_id}-{request.sends}",
            files=files,
            relevant=relevant_paths(order, list(files)),
            extra=extra,
        )

    async def _on_result(self, result: AgentResult, _: Msg) -> None:
        request = self._requests.pop(result.request_id, None)
        if request is None:
            log.warning("result %s matches no request in flight; ignored", result.request_id)
            return
        envelope = result.envelope
        mismatch = _mismatch(request.order, result)
        if mismatch:
            log.error("result %s refused: %s", result.request_id, mismatch)
            await self._handoff(request, R.BLOCKED, reason=f"result refused: {mismatch}")
            return
        if not result.validator_pass or envelope.status in _STOPPED:
            await self._handoff(
                request,
                envelope.status,
                to=handoff_target(result),
                reason=failure_reason(result),
                summary=envelope.summary,
            )
            return
        sent = request.envelope
        violations = ["no request was sent"] if sent is None else check_reply(sent, envelope)
        if violations:
            listed = "; ".join(str(v) for v in violations[:20])
            log.error("result %s claims validator_pass but fails: %s", result.request_id, listed)
            await self._handoff(
                request,
                R.BLOCKED,
                reason=f"result refused: it claims to pass the gates but fails {listed}; "
                "nothing was written",
            )
            return
        store = self._store(request.order.project_id)
        problems = await anyio.to_thread.run_sync(_refused, store, envelope.artifacts)
        if problems:
            await self._retry_or_block(request, problems)
        elif request.order.mode == DEV_MODE:
            await self._submit_review(request, result)
        else:
            await self._write_and_handoff(request, result)

    async def _write(self, request: _Request, artifacts: Sequence[Artifact]) -> list[str] | None:
        """The one place agent artifacts reach disk: every path in the order's write set (else
        ``BLOCKED``, nothing written), then one all-or-nothing batch (a refusal is retried)."""
        order = request.order
        outside = [p for a in artifacts if (p := write_problem(order.agent, a.path))]
        if outside:
            await self._handoff(
                request, R.BLOCKED, reason=f"artifacts refused: {'; '.join(outside)[:2_000]}"
            )
            return None
        store = self._store(order.project_id)
        try:
            return await anyio.to_thread.run_sync(store.write_many, artifacts)
        except PathPolicyError as exc:
            await self._retry_or_block(request, [str(exc)])
            return None

    async def _write_and_handoff(self, request: _Request, result: AgentResult) -> None:
        envelope = result.envelope
        written = await self._write(request, envelope.artifacts)
        if written is None:
            return
        await self._handoff(
            request,
            envelope.status,
            to=handoff_target(result),
            summary=envelope.summary,
            report=handoff_report(request.order, result),
            artifacts=[
                ArtifactRef(path=p, summary=a.purpose)
                for p, a in zip(written, envelope.artifacts, strict=True)
            ],
        )

    async def _retry_or_block(self, request: _Request, problems: list[str]) -> None:
        error = "; ".join(problems)[:2_000]
        if request.sends > WRITE_RETRIES:
            await self._handoff(request, R.BLOCKED, reason=f"artifacts refused: {error}")
            return
        log.warning(
            "order %s: artifacts refused (%s); asking the agent again",
            request.order.order_id,
            error,
        )
        await self._send(
            request,
            {
                "write_error": f"Your artifacts were not written: {error}. "
                "Return them again under allowed paths."
            },
        )

    async def _submit_review(self, request: _Request, result: AgentResult) -> None:
        """Submit the Dev's artifacts to the seven layers; nothing is written before the
        decision."""
        order = request.order
        artifacts = result.envelope.artifacts
        store = self._store(order.project_id)
        current = await anyio.to_thread.run_sync(_current, store, [a.path for a in artifacts])
        diff = review_diff([(a.path, a.content) for a in artifacts], current)
        if len(diff.encode()) > self.max_diff_bytes:
            await self._handoff(
                request,
                R.OK,
                to=AgentName.DEV,
                decision_outcome="rejected",
                reason=f"the change is {len(diff.encode())} bytes; the review "
                f"accepts at most {self.max_diff_bytes}: split it",
            )
            return
        action = ActionContext(
            agent_id=f"dev-{order.project_id}"[:64],
            action_type="code_diff",
            action_description=(
                f"Dev implementation of {order.task_id} (attempt "
                f"{order.attempt}) in project {order.project_id}: "
                f"{result.envelope.summary}"
            )[:20_000],
            code_diff=diff,
            affected_files=[a.path for a in artifacts],
            environment={
                "project_id": order.project_id,
                "task_id": order.task_id or "",
                "order_id": order.order_id,
                "attempt": str(order.attempt),
            },
        )
        action_id = f"dev-{uuid.uuid4().hex[:24]}"
        digest = action_hash(action)
        self._reviews[action_id] = _Review(request, result, digest, time.monotonic())
        await self._ctx.publish(
            self._ctx.subjects.action_submit,
            ActionSubmitted(action_id=action_id, action=action, action_hash=digest),
        )

    async def _on_decision(self, report: HumanLayerReport, _: Msg) -> None:
        review = self._reviews.get(report.action_id)
        if review is None:
            return
        if report.action_hash != review.hash:
            log.error("decision for %s names another action hash; ignored", report.action_id)
            return
        reasons = "; ".join(report.blocking_reasons)[:20_000]
        if report.outcome is Outcome.NEEDS_REVIEW and not report.resolved_by:
            review.waiting_human = True
            await self._handoff(
                review.request, R.OK, decision_outcome="needs_review", reason=reasons, final=False
            )
            return
        del self._reviews[report.action_id]
        if report.outcome is Outcome.APPROVED:
            await self._write_and_handoff_dev(review)
            return
        await self._handoff(
            review.request,
            R.OK,
            to=AgentName.DEV,
            decision_outcome="rejected",
            reason=reasons,
            findings=review_findings(report),
            summary=review.result.envelope.summary,
        )

    async def _write_and_handoff_dev(self, review: _Review) -> None:
        envelope = review.result.envelope
        written = await self._write(review.request, envelope.artifacts)
        if written is None:
            return
        await self._handoff(
            review.request,
            R.OK,
            to=AgentName.QA,
            decision_outcome="approved",
            code_refs=written,
            summary=envelope.summary,
            artifacts=[ArtifactRef(path=p) for p in written],
        )

    async def _handoff(
        self,
        request: _Request,
        status: ResponseStatus,
        *,
        to: AgentName = AgentName.MONITOR,
        final: bool = True,
        **fields: Any,
    ) -> None:
        order = request.order
        for name in ("reason", "summary"):
            if name in fields:
                fields[name] = fields[name][:20_000]
        handoff = Handoff(
            project_id=order.project_id,
            order_id=order.order_id,
            task_id=order.task_id,
            from_=order.agent,
            to=to,
            status=status,
            **fields,
        )
        if final:
            self._active.discard(order.order_id)
        await self._ctx.publish(self._ctx.subjects.handoff(order.project_id), handoff)

    async def _on_audit(self, record: AgentRunRecord, _: Msg) -> None:
        audit = AuditLog(self._store(record.project_id))
        try:
            await anyio.to_thread.run_sync(audit.append, record)
        except (ContractError, PathPolicyError) as exc:
            raise MessageRefused(str(exc)) from None

    async def background(self, ctx: ActorContext) -> None:
        """End agent calls and reviews that never answered as ``BLOCKED`` (fail closed)."""
        while True:
            await anyio.sleep(self.sweep_interval)
            now = time.monotonic()
            for request_id, request in list(self._requests.items()):
                limits = request.order.limits
                if now - request.sent_at > limits.timeout_sec * 4 + 30:
                    del self._requests[request_id]
                    await self._handoff(
                        request, R.BLOCKED, reason=f"no answer from {request.order.agent}"
                    )
            for action_id, review in list(self._reviews.items()):
                if not review.waiting_human and now - review.started > self.decision_timeout:
                    del self._reviews[action_id]
                    await self._handoff(
                        review.request,
                        R.BLOCKED,
                        reason=(
                            f"no review decision for {action_id} within {self.decision_timeout:g}s"
                        ),
                    )


def _mismatch(order: WorkOrder, result: AgentResult) -> str:
    """Why ``result`` is not an answer to ``order`` (empty when it is)."""
    asked = (order.project_id, order.agent, order.mode, order.task_id)
    answered = (result.project_id, result.agent, result.mode, result.task_id)
    if asked == answered:
        return ""
    return f"it answers {answered} but the request was {asked}"


def _refused(store: ProjectStore, artifacts: Sequence[Artifact]) -> list[str]:
    problems = []
    for artifact in artifacts:
        if artifact.path.startswith(RESERVED_PREFIX):
            problems.append(f"{artifact.path!r}: {RESERVED_PREFIX} is written by the Monitor only")
            continue
        try:
            store.resolve(artifact.path)
        except PathPolicyError as exc:
            problems.append(str(exc))
    return problems


def _current(store: ProjectStore, paths: Sequence[str]) -> dict[str, str]:
    current = {}
    for path in paths:
        if store.exists(path):
            try:
                current[path] = store.read(path)
            except UnicodeDecodeError:
                current[path] = "(binary file)"
    return current
