"""The reviewer's side of the Supervisor: list reviews, read one, resolve it and wait for the
final decision, through a running engine on NATS (``--nats URL``) or through a Supervisor
started in process on the SQLite state of a single process (``--state PATH``)."""

from __future__ import annotations

import argparse
import logging
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

import anyio
import anyio.to_thread
import msgspec

from humangr import resolution_ack as ack
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
from humangr.contracts.types import is_token
from humangr.engine.bus import Bus, Msg
from humangr.engine.errors import (
    BusTimeoutError,
    ConfigError,
    ContractError,
    EngineError,
    SignatureError,
)
from humangr.engine.redact import redact_seed_urls
from humangr.engine.trust import LOCAL, UNVERIFIED, Trust, client_trust

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


@dataclass(frozen=True, slots=True)
class Channel:
    """Where the queries go: a bus with a Supervisor on it, how to name it to the user, and
    the permissions violations the NATS server reported meanwhile."""

    bus: Bus
    subjects: Subjects
    where: str
    timeout: float
    violations: list[str] = field(default_factory=list)
    trust: Trust = UNVERIFIED
    """The keys the Supervisor's reports must be signed by; none: shown "unsigned: not
    verified" (``open_channel`` requires a key on NATS unless ``--insecure-unsigned``)."""

    def shown(self, report: HumanLayerReport) -> HumanLayerReport:
        """``report`` verified against the trusted keys (``SignatureError`` if no trusted
        key signed it), or marked "unsigned: not verified" without keys."""
        if self.trust.keys:
            from humangr.engine.signing import verify_decision

            verify_decision(report, self.trust.keys)
        return self.trust.shown(report)

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
    if not is_token(value):
        shown = value if len(value) <= 70 else value[:67] + "..."
        raise ConfigError(
            f"{shown!r} is not an action or report id (1-64 letters, digits, _ and -, e.g. "
            "act-0123abcd); `humangr reviews` lists the pending ones"
        )
    return value


def channel_trust(args: argparse.Namespace) -> Trust:
    """The keys of ``--public-key`` (else ``$HUMANGR_PUBLIC_KEY``) a reviewer command on NATS
    trusts; none only with ``--insecure-unsigned``, else a ``ConfigError`` before connecting."""
    return client_trust(
        getattr(args, "public_key", None) or (),
        insecure=bool(getattr(args, "insecure_unsigned", False)),
        who="",
        key_option="--public-key",
        insecure_option="--insecure-unsigned",
    )


def _given_keys(args: argparse.Namespace) -> tuple[str, ...]:
    """``--public-key`` as given (checked), for a local state file."""
    given = tuple(getattr(args, "public_key", None) or ())
    if not given:
        return ()
    return client_trust(
        given, insecure=False, who="", key_option="--public-key", insecure_option=""
    ).keys


@asynccontextmanager
async def open_channel(args: argparse.Namespace) -> AsyncIterator[Channel]:
    """The channel of ``--nats URL`` or ``--state PATH`` (an in-process Supervisor)."""
    subjects = Subjects(args.prefix)
    if args.state is None:
        from humangr.cli.common import connect_nats

        found: list[str] = []
        with _watch_violations(found):
            trust = channel_trust(args)
            bus = await connect_nats(args.nats, prefix=args.prefix)
            try:
                where = f"via {redact_seed_urls(args.nats)}"
                yield Channel(bus, subjects, where, args.timeout, found, trust)
            finally:
                await bus.close()
        return
    from humangr.actors.roles import run_engine
    from humangr.engine.signing import load_signing_key
    from humangr.engine.state import SqliteStateStore

    path = Path(args.state)
    if not await anyio.Path(path).is_file():
        raise ConfigError(
            f"{path}: no such state file; give the --state PATH of the `humangr review` whose "
            "reviews you want (or --nats URL for an engine served on NATS)"
        )
    # This machine's key, as `humangr serve` and `humangr.connect(state=...)` sign with: an
    # agent waiting on this file trusts a final decision signed by it, and by no other key.
    key, _ = await anyio.to_thread.run_sync(load_signing_key)
    store = SqliteStateStore(path, create=False)  # a file that is not a state is an error
    try:
        with _quiet_dead_letters(getattr(args, "verbose", False)):
            async with run_engine(
                state=store, roles=("supervisor",), subjects=subjects, signing_key=key
            ) as eng:
                # The file's reports were signed by whichever engine wrote them: verified
                # with --public-key if given, else read as they are (no bus to forge on).
                local = Trust(given) if (given := _given_keys(args)) else LOCAL
                yield Channel(eng.bus, subjects, f"in {path}", args.timeout, trust=local)
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
