"""The channel a reviewer command talks to the Supervisor through: a running engine on NATS
(``--nats URL``, with the keys its reports must be signed by) or a Supervisor started in
process on a SQLite state file (``--state PATH``)."""

from __future__ import annotations

import argparse
import logging
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import anyio
import anyio.to_thread

from humangr.contracts import HumanLayerReport, Subjects
from humangr.engine.bus import Bus
from humangr.engine.errors import ConfigError, EngineError
from humangr.engine.redact import redact_seed_urls
from humangr.engine.trust import LOCAL, UNVERIFIED, Trust, client_trust

__all__ = ["Channel", "channel_trust", "open_channel"]


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
