"""Waiting for decisions: one subscription on ``decisions.>`` (and one on the dead letters,
``dlq`` or the agents' own ``dlq.agent.<agent_id>``) serves every waiting submitter. A decision
is accepted only for the hash of the action submitted."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field

import anyio
from anyio.abc import TaskStatus

from humangr.contracts import (
    ActionSubmitted,
    HumanLayerReport,
    Subjects,
    decode,
    encode,
)
from humangr.engine.bus import Bus, Subscription
from humangr.engine.decision_checks import _addressee, check_decision, refusal, settles
from humangr.engine.errors import (
    BusTimeoutError,
    ContractError,
    DecisionMismatch,
    EngineError,
    ReviewTimeout,
    SignatureError,
    SubmissionRefused,
)
from humangr.engine.local_decisions import LocalDecisions
from humangr.engine.receipts import (
    RECEIPT_TIMEOUT_S,
    RESEND,
    SubmitWindow,
    request_receipt,
    stored_by_bus,
)

__all__ = ["DecisionWaiters", "LocalDecisions", "check_decision", "refusal", "settles"]

log = logging.getLogger("humangr.decisions")


@dataclass(slots=True)
class _Waiter:
    action_hash: str
    final: bool
    event: anyio.Event = field(default_factory=anyio.Event)
    report: HumanLayerReport | None = None
    error: EngineError | None = None
    on_pending: Callable[[HumanLayerReport], None] | None = None
    """Told once of a ``needs_review`` a ``final`` waiter waits past (the human is owed it)."""

    def settle(
        self, *, report: HumanLayerReport | None = None, error: EngineError | None = None
    ) -> None:
        if not self.event.is_set():
            self.report, self.error = report, error
            self.event.set()


class DecisionWaiters:
    """Routes decisions to the submitters waiting for them, by action id.

    Register with ``expect`` *before* publishing the action, then ``wait``; a decision that
    arrives in between is kept for the waiter. A decision for another action hash, one not
    signed by a ``trusted`` key (when keys are given), and a dead letter refusing the
    submission end the wait with an error.
    """

    def __init__(self, trusted: Sequence[str] = (), *, in_process: bool = False) -> None:
        self._waiting: dict[str, _Waiter] = {}
        self.trusted: tuple[str, ...] = tuple(trusted)
        self.in_process = in_process
        """The engine runs in this process, on its own ``MemoryBus``: a publish puts the
        submission in the Supervisor's mailbox (or waits for room), so no receipt is asked."""
        self.window = SubmitWindow()
        """Bytes sent and not yet received by a Supervisor (core NATS): see ``receipts``."""
        self.resends = 0
        """Submissions sent again for want of a receipt."""
        self.here: Callable[[str, bytes, dict[str, str]], Awaitable[bool]] | None = None
        """With ``in_process``: hands a submission straight to this process's Supervisor
        (``ActorSystem.deliver_here``), ``False`` when it must be published instead."""
        self.receipt_timeout = RECEIPT_TIMEOUT_S
        """Longest wait for one receipt before the submission is sent again."""
        self.listener: Subscription | None = None
        """``run``'s subscription to the decisions while it listens."""

    def expect(
        self,
        action_id: str,
        action_hash: str,
        *,
        final: bool = False,
        on_pending: Callable[[HumanLayerReport], None] | None = None,
    ) -> None:
        self._waiting[action_id] = _Waiter(action_hash, final, on_pending=on_pending)

    def forget(self, action_id: str) -> None:
        """Drop the registration of ``action_id`` (its submission was never sent)."""
        self._waiting.pop(action_id, None)

    async def wait(self, action_id: str, *, timeout: float) -> HumanLayerReport | None:
        """The decision, or ``None`` after ``timeout``; the registration is removed either way.

        Raises ``DecisionMismatch`` for a decision on another action hash and
        ``SubmissionRefused`` when the engine refused the submission."""
        waiter = self._waiting[action_id]
        try:
            if waiter.event.is_set():  # decided in this task (handed over): no deadline needed
                await waiter.event.wait()  # still a checkpoint, so a loop of calls yields
            else:
                with anyio.move_on_after(timeout):
                    await waiter.event.wait()
            if waiter.error is not None:
                raise waiter.error
            return waiter.report
        finally:
            self._waiting.pop(action_id, None)

    async def submit(
        self,
        bus: Bus,
        subjects: Subjects,
        submitted: ActionSubmitted,
        *,
        timeout: float,
        final: bool = False,
        on_pending: Callable[[HumanLayerReport], None] | None = None,
    ) -> HumanLayerReport:
        """Publish ``submitted`` on its agent's submit subject and return its checked decision
        (``run`` must be listening). No decision within ``timeout`` raises ``ReviewTimeout``;
        a decision for another hash ``DecisionMismatch``, one no trusted key signed
        ``SignatureError``, a refusal ``SubmissionRefused``: never an approval. With ``final``,
        ``on_pending`` is called once with the ``needs_review`` decision waited past.

        The submission is stored before the wait begins: acknowledged by JetStream, or on core
        NATS received by a Supervisor (``receipts``: sent again until a receipt comes; none by
        the deadline raises ``ReviewTimeout`` saying that it was not stored)."""
        action_id = submitted.action_id
        deadline = anyio.current_time() + timeout
        subject = subjects.agent_submit(submitted.action.agent_id)
        self.expect(action_id, submitted.action_hash or "", final=final, on_pending=on_pending)
        try:
            data = encode(submitted)
            headers = {"Nats-Msg-Id": f"submit:{action_id}"}  # a stream keeps one copy
            if self.in_process:
                here = self.here
                if here is None or not await here(subject, data, headers):
                    await bus.publish(subject, data, headers=headers)
            elif stored_by_bus(bus, subject):
                await self._store(bus, subject, data, headers, action_id, deadline)
            else:
                await self._send(bus, subject, data, headers, action_id, deadline, timeout)
            data = b""  # stored: not kept for the wait (a flood's payloads add up)
        except BaseException:
            self.forget(action_id)  # never stored: ``wait`` would not remove it
            raise
        report = await self.wait(action_id, timeout=max(0.0, deadline - anyio.current_time()))
        if report is None:
            raise ReviewTimeout(action_id, timeout, final=final)
        return report

    async def _store(
        self,
        bus: Bus,
        subject: str,
        data: bytes,
        headers: dict[str, str],
        action_id: str,
        deadline: float,
    ) -> None:
        """Publish on a stream until it acknowledges (the same ``Nats-Msg-Id``: one copy is
        kept); an acknowledgement that never comes by the deadline is raised."""
        tries = 0
        while True:
            try:
                await bus.publish(subject, data, headers=headers)
                return
            except BusTimeoutError as exc:
                tries += 1
                left = deadline - anyio.current_time()
                if left <= 0:
                    raise
                self.resends += 1
                log.warning("submission %s not stored (%s); sending it again", action_id, exc)
                await anyio.sleep(min(left, RESEND.delay(tries - 1)))

    async def _send(
        self,
        bus: Bus,
        subject: str,
        data: bytes,
        headers: dict[str, str],
        action_id: str,
        deadline: float,
        timeout: float,
    ) -> None:
        """Send until a Supervisor confirms receipt (or the wait settles first); past the
        deadline without one, ``ReviewTimeout`` says that the action was not stored."""
        settled = self._waiting[action_id].event
        tries = 0
        async with self.window.hold(len(data)):
            while not settled.is_set():
                left = deadline - anyio.current_time()
                why = (
                    await request_receipt(
                        bus,
                        subject,
                        data,
                        settled,
                        min(self.receipt_timeout, max(left, 0.001)),
                        headers,
                    )
                    if left > 0
                    else "the deadline passed"
                )
                tries += 1
                if why is None:
                    return
                left = deadline - anyio.current_time()
                if left <= 0:
                    raise ReviewTimeout(
                        action_id,
                        timeout,
                        hint=f"no Supervisor confirmed receipt of it on {subject} ({tries} "
                        f"tries; last: {why}): it was not stored and will not be decided; "
                        "check that the Supervisor (`humangr serve`) runs on this NATS with "
                        "this subject prefix and keeps up, then submit again",
                    )
                self.resends += 1
                log.warning("submission %s not received (%s); sending it again", action_id, why)
                with anyio.move_on_after(min(left, RESEND.delay(tries - 1))):
                    await settled.wait()

    async def run(
        self,
        bus: Bus,
        subjects: Subjects,
        *,
        task_status: TaskStatus[None],
        pattern: str | None = None,
        letters: str | None = None,
    ) -> None:
        """Listen on ``pattern`` (default ``decisions.>``; one agent's decisions for an agent
        that may read only its own) and on ``letters`` (default ``dlq``; an agent's own
        ``agent_dlq``) until cancelled; ready once subscribed."""
        async with (
            bus.subscribe(pattern or subjects.decisions) as decisions,
            bus.subscribe(letters or subjects.dlq) as refusals,
            anyio.create_task_group() as tg,
        ):
            task_status.started()
            tg.start_soon(self._refusals, refusals, subjects)
            self.listener = decisions
            try:
                await self._listen(decisions)
            finally:
                self.listener = None

    async def _listen(self, decisions: Subscription) -> None:
        async for msg in decisions:
            addressee = _addressee(msg.data)
            if addressee is not None:
                waiter = self._waiting.get(addressee)
                if waiter is None or waiter.event.is_set():
                    continue  # nobody here waits for it (or the engine handed it over)
            try:
                report = decode(msg.data, HumanLayerReport)
            except ContractError as exc:
                log.warning("undecodable decision on %s: %s", msg.subject, exc)
                continue
            self._route(report, self.trusted)

    def deliver(self, report: HumanLayerReport) -> None:
        """Route a decision signed in this process, handed over as the very object the
        Supervisor signed (``LocalDecisions``): its action hash is checked as for one from the
        bus, its signature is not checked again, for no wire lies between. The copy published
        on the bus then finds no waiter; a forged one still fails its signature check."""
        self._route(report, ())

    def _route(self, report: HumanLayerReport, trusted: Sequence[str]) -> None:
        waiter = self._waiting.get(report.action_id)
        if waiter is None:
            return
        try:
            check_decision(report, report.action_id, waiter.action_hash, trusted)
        except (DecisionMismatch, SignatureError) as exc:
            log.error("%s", exc)
            waiter.settle(error=exc)
            return
        if settles(report, waiter.final):
            waiter.settle(report=report)
        elif waiter.on_pending is not None:
            told, waiter.on_pending = waiter.on_pending, None
            try:
                told(report)
            except Exception:  # a listener's bug never stops the routing of decisions
                log.exception("on_pending of %s failed", report.action_id)

    async def _refusals(self, letters: Subscription, subjects: Subjects) -> None:
        async for msg in letters:
            letter = refusal(msg, subjects)
            if letter is None:
                continue
            waiter = self._waiting.get(letter.correlation_id)
            if waiter is not None:
                waiter.settle(error=SubmissionRefused(letter.correlation_id, letter.error))
