"""Talking to a running engine over any bus: submit an action and wait for its decision, ask
for a stored report. Light on purpose — a client command (``humangr submit``, ``watch``,
``reviews``) imports this, not the engine."""

from __future__ import annotations

import logging
import uuid
from collections.abc import Sequence

import anyio

from humangr.contracts import (
    ActionContext,
    ActionSubmitted,
    HumanLayerReport,
    LayerID,
    ReportQuery,
    ReportReply,
    Subjects,
    decode,
    encode,
)
from humangr.engine.bus import Bus
from humangr.engine.decisions import check_decision, refusal, settles
from humangr.engine.errors import (
    BusTimeoutError,
    DecisionMismatch,
    EngineError,
    SignatureError,
    SubmissionRefused,
)
from humangr.engine.review import action_hash

__all__ = ["fetch_report", "new_action_id", "submission", "submit_and_wait"]

log = logging.getLogger("humangr.client")


def new_action_id() -> str:
    """A fresh action id (a valid subject token)."""
    return f"act-{uuid.uuid4().hex[:20]}"


async def submit_and_wait(
    bus: Bus,
    subjects: Subjects,
    action: ActionContext,
    *,
    action_id: str | None = None,
    layers: Sequence[LayerID] | None = None,
    timeout: float = 300.0,
    final: bool = False,
    trusted_keys: Sequence[str] = (),
) -> HumanLayerReport:
    """Publish an ``ActionSubmitted`` and wait for its decision on ``decisions.<agent_id>``.

    The decision must name the hash of ``action`` (else ``DecisionMismatch``) and, when
    ``trusted_keys`` are given, be signed by one of them (else ``SignatureError``); a dead
    letter refusing the submission (on the agent's own ``agent_dlq``) raises
    ``SubmissionRefused`` at once."""
    submitted = submission(action, action_id or new_action_id(), layers)
    digest = submitted.action_hash or ""
    async with (
        bus.subscribe(subjects.decision(action.agent_id)) as decisions,
        bus.subscribe(subjects.agent_dlq(action.agent_id)) as letters,
    ):
        await bus.publish(subjects.agent_submit(action.agent_id), encode(submitted))
        refused: list[str] = []
        failed: list[EngineError] = []
        with anyio.move_on_after(timeout):
            async with anyio.create_task_group() as tg:

                async def watch_refusals() -> None:
                    async for msg in letters:
                        letter = refusal(msg, subjects)
                        if letter is not None and letter.correlation_id == submitted.action_id:
                            refused.append(letter.error)
                            tg.cancel_scope.cancel()

                tg.start_soon(watch_refusals)
                async for msg in decisions:
                    try:
                        report = decode(msg.data, HumanLayerReport)
                        if report.action_id != submitted.action_id:
                            continue
                        check_decision(report, submitted.action_id, digest, trusted_keys)
                    except EngineError as exc:
                        if isinstance(exc, DecisionMismatch | SignatureError):
                            failed.append(exc)
                            break
                        log.warning("undecodable decision on %s: %s", msg.subject, exc)
                        continue
                    if settles(report, final):
                        tg.cancel_scope.cancel()
                        return report
                tg.cancel_scope.cancel()
        if failed:
            raise failed[0]
        if refused:
            raise SubmissionRefused(submitted.action_id, refused[0])
    raise BusTimeoutError(subjects.decision(action.agent_id), timeout)


def submission(
    action: ActionContext, action_id: str, layers: Sequence[LayerID] | None
) -> ActionSubmitted:
    """The ``ActionSubmitted`` of ``action`` under ``action_id``, with its hash."""
    return ActionSubmitted(
        action_id=action_id,
        action=action,
        action_hash=action_hash(action),
        layers=list(layers) if layers is not None else None,
    )


async def fetch_report(
    bus: Bus,
    subjects: Subjects,
    id_: str,
    *,
    timeout: float = 5.0,
    agent_id: str | None = None,
) -> HumanLayerReport:
    """Ask the Supervisor for a stored report by report id or action id. With ``agent_id``
    (an agent asking, on its own ``agent_report_get`` subject) only that agent's reports are
    answered; without it (reviewers, operators) any report is."""
    subject = subjects.report_get if agent_id is None else subjects.agent_report_get(agent_id)
    reply = await bus.request(subject, encode(ReportQuery(id=id_)), timeout=timeout)
    answer = decode(reply.data, ReportReply)
    if answer.report is None:
        raise EngineError(answer.error or f"no report {id_!r}")
    return answer.report
