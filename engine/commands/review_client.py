"""The reviewer's side of the Supervisor: list reviews, read one, resolve it and wait for the
final decision, through a running engine on NATS (``--nats URL``) or through a Supervisor
started in process on the SQLite state of a single process (``--state PATH``)."""

from __future__ import annotations

import argparse
import logging
import re
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

import anyio

from humangr.contracts import (
    DeadLetter,
    HumanLayerReport,
    ReviewDetail,
    ReviewListing,
    ReviewQuery,
    ReviewResolution,
    Subjects,
    decode,
    encode,
)
from humangr.engine.bus import Bus, Msg
from humangr.engine.errors import (
    BusTimeoutError,
    ConfigError,
    ContractError,
    DecisionMismatch,
    EngineError,
)
from humangr.engine.redact import redact_url

__all__ = ["Channel", "check_id", "detail_of", "list_reviews", "open_channel", "resolve"]

Verdict = Literal["approve", "reject"]
_TOKEN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$")


@dataclass(frozen=True, slots=True)
class Channel:
    """Where the queries go: a bus with a Supervisor on it, how to name it to the user, and
    the permissions violations the NATS server reported meanwhile."""

    bus: Bus
    subjects: Subjects
    where: str
    timeout: float
    violations: list[str] = field(default_factory=list)

    def refused(self, what: str) -> EngineError:
        """Why ``what`` failed: the server's permissions violation if it reported one."""
        if not self.violations:
            return EngineError(what)
        return EngineError(
            f"the NATS server refused this user: {'; '.join(dict.fromkeys(self.violations))}; "
            "the reviewer commands need the reviewer user (HUMANGR_NATS_USER, see "
            "deploy/nats-server.conf)"
        )


class _Violations(logging.Filter):
    """Keeps the permissions violations the bus logs, for the command's one error line."""

    def __init__(self, found: list[str]) -> None:
        super().__init__()
        self.found = found

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        at = message.lower().find("permissions violation")
        if at < 0:
            return True
        self.found.append(message[at:])
        return False


@contextmanager
def _watch_violations(found: list[str]) -> Iterator[None]:
    bus_log = logging.getLogger("humangr.bus")
    keeper = _Violations(found)
    bus_log.addFilter(keeper)
    try:
        yield
    finally:
        bus_log.removeFilter(keeper)


def check_id(value: str) -> str:
    """``value`` if it can be an action or report id, else a ``ConfigError`` (nothing sent)."""
    if not _TOKEN.match(value):
        shown = value if len(value) <= 70 else value[:67] + "..."
        raise ConfigError(
            f"{shown!r} is not an action or report id (1-64 letters, digits, _ and -, e.g. "
            "act-0123abcd); `humangr reviews` lists the pending ones"
        )
    return value


@asynccontextmanager
async def open_channel(args: argparse.Namespace) -> AsyncIterator[Channel]:
    """The channel of ``--nats URL`` or ``--state PATH`` (an in-process Supervisor)."""
    subjects = Subjects(args.prefix)
    if args.state is None:
        from humangr.engine.commands.common import connect_nats

        found: list[str] = []
        with _watch_violations(found):
            bus = await connect_nats(args.nats, prefix=args.prefix)
            try:
                yield Channel(bus, subjects, f"via {redact_url(args.nats)}", args.timeout, found)
            finally:
                await bus.close()
        return
    from humangr.engine.runtime import run_engine
    from humangr.engine.state import SqliteStateStore

    path = Path(args.state)
    if not await anyio.Path(path).is_file():
        raise ConfigError(
            f"{path}: no such state file; give the --state PATH of the `humangr review` whose "
            "reviews you want (or --nats URL for an engine served on NATS)"
        )
    store = SqliteStateStore(path)
    try:
        with _quiet_dead_letters(getattr(args, "verbose", False)):
            async with run_engine(state=store, roles=("supervisor",), subjects=subjects) as eng:
                yield Channel(eng.bus, subjects, f"in {path}", args.timeout)
    finally:
        await store.close()


@contextmanager
def _quiet_dead_letters(verbose: bool) -> Iterator[None]:
    """The in-process Supervisor's warnings about refusing this command's own messages: the
    command reports the refusal itself, in its one line (``-v`` shows them)."""
    actor_log = logging.getLogger("humangr.actor")
    level = actor_log.level
    if not verbose:
        actor_log.setLevel(logging.ERROR)
    try:
        yield
    finally:
        actor_log.setLevel(level)


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
    return detail


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


def _resolution(report: HumanLayerReport, verdict: Verdict, reviewer: str, reason: str) -> bytes:
    draft = ReviewResolution(
        action_id=report.action_id,
        action_hash=report.action_hash,
        verdict=verdict,
        reviewer=reviewer,
        reason=reason,
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
) -> HumanLayerReport:
    """Resolve the pending review of ``id_`` (bound to the hash under review, which must be
    ``expected_hash`` if given) and return the final decision; ``EngineError`` if the
    Supervisor refuses it or none comes in ``wait`` s."""
    report = _open_review(await detail_of(channel, id_), id_)
    if expected_hash is not None and report.action_hash != expected_hash:
        raise EngineError(
            f"the review of {report.action_id} is for action hash {report.action_hash[:12]}…, "
            f"not {expected_hash[:12]}… as the page you decided on showed; read it again"
        )
    action_id, subjects, bus = report.action_id, channel.subjects, channel.bus
    data = _resolution(report, verdict, reviewer, reason)
    subject = subjects.review_resolve(action_id)
    outcome: list[HumanLayerReport | EngineError] = []
    async with (
        bus.subscribe(subjects.decision(report.agent_id)) as decisions,
        bus.subscribe(subjects.dlq) as letters,
    ):
        await bus.flush()
        await bus.publish(subject, data)
        await bus.flush()
        with anyio.move_on_after(wait):
            async with anyio.create_task_group() as tg:

                async def settle(result: HumanLayerReport | EngineError) -> None:
                    outcome.append(result)
                    tg.cancel_scope.cancel()

                async def refusals() -> None:
                    async for msg in letters:
                        refused = _refusal(msg, subject, action_id)
                        if refused is not None:
                            await settle(refused)

                tg.start_soon(refusals)
                async for msg in decisions:
                    final = _final(msg, report, reviewer, reason)
                    if final is not None:
                        await settle(final)
    if not outcome:
        raise channel.refused(
            f"the resolution of {action_id} was sent {channel.where} but no final decision came "
            f"within {wait:g}s; `humangr show {action_id}` tells whether it was applied"
        )
    result = outcome[0]
    if isinstance(result, EngineError):
        raise result
    return result


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
    if final.action_hash != report.action_hash:
        return DecisionMismatch(report.action_id, report.action_hash, final.action_hash)
    if final.resolved_by != reviewer or final.resolution_reason != reason:
        return EngineError(
            f"the review of {report.action_id} was resolved first by {final.resolved_by}: "
            f"{final.outcome.value} ({final.resolution_reason or 'no reason'})"
        )
    return final
