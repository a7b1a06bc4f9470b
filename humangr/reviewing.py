"""The reviewer's side of the Supervisor: list reviews, read one, resolve it and wait for the
final decision, through a running engine on NATS (``--nats URL``) or through a Supervisor
started in process on the SQLite state of a single process (``--state PATH``); the channel to
either is in ``review_channel``."""

from __future__ import annotations

from typing import Literal

import anyio
import msgspec

from humangr import resolution_ack as ack
from humangr.contracts import (
    DeadLetter,
    HumanLayerReport,
    ReviewDetail,
    ReviewListing,
    ReviewQuery,
    ReviewResolution,
    decode,
    encode,
)
from humangr.contracts.types import is_token
from humangr.engine.bus import Msg
from humangr.engine.errors import (
    BusTimeoutError,
    ConfigError,
    ContractError,
    EngineError,
    SignatureError,
)
from humangr.review_channel import Channel, channel_trust, open_channel

__all__ = [
    "Channel",
    "channel_trust",
    "check_id",
    "detail_of",
    "list_reviews",
    "open_channel",
    "resolve",
]

Verdict = Literal["approve", "reject"]


def check_id(value: str) -> str:
    """``value`` if it can be an action or report id, else a ``ConfigError`` (nothing sent)."""
    if not is_token(value):
        shown = value if len(value) <= 70 else value[:67] + "..."
        raise ConfigError(
            f"{shown!r} is not an action or report id (1-64 letters, digits, _ and -, e.g. "
            "act-0123abcd); `humangr reviews` lists the pending ones"
        )
    return value


async def _ask(channel: Channel, query: ReviewQuery) -> ReviewListing:
    data = encode(query)
    decode(data, ReviewQuery)
    try:
        reply = await channel.bus.request(
            channel.subjects.review_query, data, timeout=channel.timeout
        )
    except BusTimeoutError as exc:
        raise channel.refused(str(exc)) from None
    listing = decode(reply.data, ReviewListing)
    if listing.error is not None:
        raise EngineError(listing.error)
    return listing


async def list_reviews(channel: Channel, *, limit: int = 200) -> ReviewListing:
    """The reviews waiting for a human, oldest deadline first."""
    return await _ask(channel, ReviewQuery(limit=limit))


async def detail_of(channel: Channel, id_: str) -> ReviewDetail:
    """One review in full, by action id or report id (``EngineError`` if there is none)."""
    listing = await _ask(channel, ReviewQuery(action_id=check_id(id_)))
    detail = listing.detail
    if detail is None:
        raise EngineError(f"the Supervisor sent no review for {id_!r}")
    if id_ not in (detail.report.action_id, detail.report.report_id):
        raise EngineError(
            f"the Supervisor answered with the review of {detail.report.action_id}, not "
            f"{id_!r}; not trusted"
        )
    final = channel.shown(detail.final) if detail.final is not None else None
    return msgspec.structs.replace(detail, report=channel.shown(detail.report), final=final)


def _open_review(detail: ReviewDetail, id_: str) -> HumanLayerReport:
    """The first decision of a review a human may still resolve, else why not."""
    report, final = detail.report, detail.final
    if final is not None:
        by = final.resolved_by or "?"
        why = f": {final.resolution_reason}" if final.resolution_reason else ""
        raise EngineError(
            f"the review of {report.action_id} is already resolved: {final.outcome.value} by "
            f"{by}{why}"
        )
    if not detail.pending:
        raise EngineError(
            f"action {report.action_id} was {report.outcome.value}: no review of it is pending"
            + ("" if id_ == report.action_id else f" (report {id_})")
        )
    return report


def _resolution(
    report: HumanLayerReport,
    verdict: Verdict,
    reviewer: str,
    reason: str,
    grant: tuple[float, Literal["exact", "tool"]] = (0.0, "exact"),
) -> bytes:
    draft = ReviewResolution(
        action_id=report.action_id,
        action_hash=report.action_hash,
        verdict=verdict,
        reviewer=reviewer,
        reason=reason,
        grant_s=grant[0],
        grant_scope=grant[1],
    )
    data = encode(draft)
    decode(data, ReviewResolution)
    return data


async def resolve(
    channel: Channel,
    id_: str,
    verdict: Verdict,
    reviewer: str,
    reason: str,
    *,
    wait: float,
    expected_hash: str | None = None,
    grant_s: float = 0.0,
    grant_scope: Literal["exact", "tool"] = "exact",
) -> HumanLayerReport:
    """Resolve the pending review of ``id_`` (bound to the hash under review, which must be
    ``expected_hash`` if given) and return the final decision; ``EngineError`` if the
    Supervisor refuses it or none comes in ``wait`` s. ``grant_s``: with an approve, a
    standing approval (grant) of ``grant_scope`` for that long."""
    report = _open_review(await detail_of(channel, id_), id_)
    if expected_hash is not None and report.action_hash != expected_hash:
        raise EngineError(
            f"the review of {report.action_id} is for action hash {report.action_hash[:12]}…, "
            f"not {expected_hash[:12]}… as the page you decided on showed; read it again"
        )
    action_id, subjects, bus = report.action_id, channel.subjects, channel.bus
    data = _resolution(report, verdict, reviewer, reason, (grant_s, grant_scope))
    subject = subjects.review_resolve(action_id)
    outcome: list[HumanLayerReport | EngineError] = []
    sends = 0
    async with (
        bus.subscribe(subjects.decision(report.agent_id)) as decisions,
        bus.subscribe(subjects.dlq) as letters,
    ):
        await bus.flush()
        with anyio.move_on_after(wait):
            async with anyio.create_task_group() as tg:

                async def settle(result: HumanLayerReport | EngineError) -> None:
                    outcome.append(result)
                    tg.cancel_scope.cancel()

                async def refusals() -> None:
                    async for msg in letters:
                        refused = _refusal(msg, subject, action_id)
                        if refused is not None and not ack.transient(refused):
                            await settle(refused)

                async def finals() -> None:
                    async for msg in decisions:
                        final = _final(msg, report, reviewer, reason)
                        if final is not None:
                            await settle(final)

                tg.start_soon(refusals)
                tg.start_soon(finals)
                while True:  # sent again while nothing acknowledges it (its Supervisor died)
                    await bus.publish(subject, data)
                    await bus.flush()
                    sends += 1
                    await anyio.sleep(ack.RESEND_S)
    first = outcome[0] if outcome else None
    if isinstance(first, HumanLayerReport):
        return first
    if first is not None and sends == 1:
        raise first
    try:
        detail: ReviewDetail | None = await detail_of(channel, action_id)
    except SignatureError:
        raise
    except EngineError:
        detail = None
    found = ack.after_silence(
        detail, report, reviewer, reason, sends=sends, wait=wait, where=channel.where
    )
    if isinstance(found, HumanLayerReport):
        return found  # an earlier send was applied; the refusal was of a later one
    if first is not None:
        raise first
    raise channel.refused(str(found)) if detail is None else found


def _refusal(msg: Msg, subject: str, action_id: str) -> EngineError | None:
    try:
        letter = decode(msg.data, DeadLetter)
    except ContractError:
        return None
    if letter.subject != subject or letter.correlation_id != action_id:
        return None
    return EngineError(f"the Supervisor refused the resolution of {action_id}: {letter.error}")


def _final(
    msg: Msg, report: HumanLayerReport, reviewer: str, reason: str
) -> HumanLayerReport | EngineError | None:
    """The final decision in ``msg`` if it is this resolution's, an error if another one
    settled the review first, else ``None`` (not about this review)."""
    try:
        final = decode(msg.data, HumanLayerReport)
    except ContractError:
        return None
    if final.action_id != report.action_id or not final.resolved_by:
        return None
    return ack.judge(final, report, reviewer, reason)
