"""``humangr grants`` and ``humangr revoke``: the standing approvals (grants) reviewers made
with ``resolve --approve --grant DURATION``, listed with their use counts and expiry, and ended
at once. They read the SQLite state of a single process (``--state PATH``), or ask a served
engine's Supervisor (``--nats URL``: ``hl.grants.query`` and ``hl.grants.revoke``, which the
shipped server configuration lets reviewers alone publish on)."""

from __future__ import annotations

import argparse
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import anyio

from humangr.cli.common import engine_where
from humangr.cli.reviews import reviewer_name
from humangr.contracts import Grant, encode
from humangr.contracts.types import utc_now
from humangr.engine.errors import ConfigError
from humangr.engine.state.grants import GrantBook
from humangr.granting import check_grant_id, list_grants, revoke_grant
from humangr.reviewing import Channel, open_channel

__all__ = ["add_parsers", "render_grants"]


@asynccontextmanager
async def _book(state: str) -> AsyncIterator[GrantBook]:
    from humangr.engine.state import SqliteStateStore

    path = Path(state)
    if not await anyio.Path(path).is_file():
        raise ConfigError(
            f"{path}: no such state file; give the --state PATH of the `humangr review` whose "
            "grants you want"
        )
    store = SqliteStateStore(path, create=False)
    try:
        yield await GrantBook(store).open()
    finally:
        await store.close()


def render_grants(grants: list[Grant], where: str) -> str:
    """The grants as a table, one line each: id, agent, tool, scope, uses, expiry, reviewer."""
    if not grants:
        return f"no grants {where}"
    now = utc_now()
    lines = [f"{len(grants)} grant(s) {where}:"]
    for g in grants:
        left = (g.expires_at - now).total_seconds()
        state = f"expires in {_span(left)}" if left > 0 else "expired"
        lines.append(
            f"  {g.id}  agent={g.agent_id} tool={g.tool} scope={g.scope} uses={g.uses} "
            f"{state} ({g.expires_at.isoformat(timespec='seconds')}) by {g.reviewer}: "
            f"{g.reason[:120]}"
        )
    return "\n".join(lines)


def _span(seconds: float) -> str:
    for unit, size in (("d", 86_400), ("h", 3_600), ("m", 60)):
        if seconds >= size:
            return f"{seconds / size:.1f}{unit}"
    return f"{seconds:.0f}s"


@asynccontextmanager
async def _served(args: argparse.Namespace) -> AsyncIterator[Channel]:
    """The Supervisor of the engine at ``--nats`` (no report is shown, so no key is needed)."""
    where = argparse.Namespace(
        nats=args.nats,
        state=None,
        prefix=args.prefix,
        timeout=args.timeout,
        public_key=[],
        insecure_unsigned=True,
    )
    async with open_channel(where) as channel:
        yield channel


async def _grants(args: argparse.Namespace) -> int:
    if args.nats is not None:
        async with _served(args) as channel:
            grants = await list_grants(channel)
        where = channel.where
    else:
        async with _book(args.state) as book:
            grants = await book.all()
        where = f"in {args.state}"
    if args.format == "json":
        print(encode(grants).decode())
    else:
        print(render_grants(grants, where))
    return 0


async def _revoke(args: argparse.Namespace) -> int:
    if args.nats is not None:
        async with _served(args) as channel:
            await revoke_grant(channel, args.id, reviewer_name(args.reviewer))
    else:
        async with _book(args.state) as book:
            if not await book.revoke(args.id):
                raise ConfigError(
                    f"no grant {args.id!r} in {args.state}: `humangr grants --state PATH` lists "
                    "them"
                )
    print(f"grant {args.id} revoked: it no longer applies")
    return 0


def grants_command(args: argparse.Namespace) -> int:
    """List the grants; exit 0."""
    return anyio.run(_grants, args)


def revoke_command(args: argparse.Namespace) -> int:
    """End one grant at once; exit 0, or 3 with one line if there is no such grant."""
    check_grant_id(args.id)
    return anyio.run(_revoke, args)


def _where(parser: argparse.ArgumentParser) -> None:
    engine_where(
        parser,
        state_help="the SQLite state of a single process (`humangr review --state PATH`)",
        nats_help="NATS URL of a served engine (its Supervisor answers; the reviewer user, "
        "HUMANGR_NATS_USER): a cluster's URLs comma-separated",
        timeout_help="with --nats: seconds to wait for each answer of the Supervisor (default 10)",
    )


def add_parsers(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``grants`` and ``revoke``."""
    grants = sub.add_parser("grants", help="list the standing approvals, their uses and expiry")
    _where(grants)
    grants.add_argument("--format", choices=["text", "json"], default="text")
    grants.set_defaults(func=grants_command)
    revoke = sub.add_parser("revoke", help="end a standing approval at once")
    revoke.add_argument("id", help="the grant's id (`humangr grants` lists them)")
    _where(revoke)
    revoke.add_argument("--reviewer", help="with --nats: who ends it (default: your user name)")
    revoke.set_defaults(func=revoke_command)
