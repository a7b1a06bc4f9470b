"""Talking to a running engine over any bus: submit an action and wait for its decision, ask
for a stored report. Light on purpose — a client command (``humangr submit``, ``watch``,
``reviews``) imports this, not the engine."""

from __future__ import annotations

import functools
import logging
import secrets
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
from humangr.engine.decisions import DecisionWaiters
from humangr.engine.errors import EngineError, sole_exception
from humangr.engine.review import action_hash

__all__ = ["fetch_report", "new_action_id", "submission", "submit_and_wait"]

log = logging.getLogger("humangr.client")


def new_action_id() -> str:
    """A fresh action id (a valid subject token)."""
    return f"act-{secrets.token_hex(10)}"


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
    """Publish an ``ActionSubmitted`` and wait for its decision on ``decisions.<agent_id>``:
    one submission through ``DecisionWaiters.submit``, listening only to this agent's
    decisions and its own dead letters (``agent_dlq``).

    The decision must name the hash of ``action`` (else ``DecisionMismatch``) and, when
    ``trusted_keys`` are given, be signed by one of them (else ``SignatureError``); a dead
    letter refusing the submission raises ``SubmissionRefused`` at once; no decision within
    ``timeout`` raises ``ReviewTimeout``."""
    submitted = submission(action, action_id or new_action_id(), layers)
    waiters = DecisionWaiters(trusted=trusted_keys)
    agent = action.agent_id
    try:
        async with anyio.create_task_group() as tg:
            await tg.start(
                functools.partial(
                    waiters.run,
                    bus,
                    subjects,
                    pattern=subjects.decision(agent),
                    letters=subjects.agent_dlq(agent),
                )
            )
            try:
                return await waiters.submit(bus, subjects, submitted, timeout=timeout, final=final)
            finally:
                tg.cancel_scope.cancel()
    except BaseExceptionGroup as group:
        sole = sole_exception(group)
        if sole is None:
            raise
        raise sole from None
    # unreachable (the task group ends only by the return or an exception): fail closed
    raise EngineError(f"the wait for {submitted.action_id} ended without a decision")


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
