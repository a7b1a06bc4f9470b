"""Checks of a decision received: does it answer the action submitted (its hash, a trusted
signature), does it end the wait, does a dead letter refuse a submission, and which action a
decision on the bus answers, read before the rest."""

from __future__ import annotations

from collections.abc import Sequence

import msgspec

from humangr.contracts import DeadLetter, HumanLayerReport, Outcome, Subjects, decode
from humangr.engine.bus import Msg
from humangr.engine.errors import ContractError, DecisionMismatch

__all__ = ["check_decision", "refusal", "settles"]


def settles(report: HumanLayerReport, final: bool) -> bool:
    """Whether ``report`` ends the wait: any decision, or with ``final`` one no human owes."""
    return not final or report.outcome is not Outcome.NEEDS_REVIEW or bool(report.resolved_by)


def check_decision(
    report: HumanLayerReport, action_id: str, action_hash: str, trusted: Sequence[str] = ()
) -> None:
    """Raise ``DecisionMismatch`` unless ``report`` decides the action that was submitted, and
    with ``trusted`` public keys ``SignatureError`` unless one of them signed it unchanged."""
    if report.action_id != action_id or report.action_hash != action_hash:
        raise DecisionMismatch(action_id, action_hash, report.action_hash)
    if trusted:
        from humangr.engine.signing import verify_decision

        verify_decision(report, trusted)


def refusal(msg: Msg, subjects: Subjects) -> DeadLetter | None:
    """The dead letter in ``msg`` if it refuses a submission (``actions.submit[.<agent>]``),
    else None."""
    try:
        letter = decode(msg.data, DeadLetter)
    except ContractError:
        return None
    if not subjects.is_submit(letter.subject) or not letter.correlation_id:
        return None
    return letter


class _Addressee(msgspec.Struct):
    """The one field of a decision read before the rest: which action it answers."""

    action_id: str


_ADDRESSEES = msgspec.json.Decoder(_Addressee)


def _addressee(data: bytes) -> str | None:
    """The action a decision on the bus answers, read without decoding it whole (most are
    for no waiter of this process); ``None`` if it cannot be read so (it is then decoded, and
    refused with a warning)."""
    try:
        return _ADDRESSEES.decode(data).action_id
    except (msgspec.DecodeError, UnicodeError, RecursionError):
        return None
