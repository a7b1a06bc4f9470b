"""``humangr grants`` and ``humangr revoke``: the standing approvals (grants) reviewers made
with ``resolve --approve --grant DURATION``, listed with their use counts and expiry, and ended
at once. They read the SQLite state of a single process (``--state PATH``)."""

from __future__ import annotations

import argparse
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import anyio

from humangr.contracts import Grant, encode
from humangr.contracts.types import is_token, utc_now
from humangr.engine.errors import ConfigError
from humangr.engine.state.grants import GrantBook

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


async def _grants(args: argparse.Namespace) -> int:
    async with _book(args.state) as book:
        grants = await book.all()
    if args.format == "json":
        print(encode(grants).decode())
    else:
        print(render_grants(grants, f"in {args.state}"))
    return 0


async def _revoke(args: argparse.Namespace) -> int:
    async with _book(args.state) as book:
        if not await book.revoke(args.id):
            raise ConfigError(
                f"no grant {args.id!r} in {args.state}: `humangr grants --state PATH` lists them"
            )
    print(f"grant {args.id} revoked: it no longer applies")
    return 0


def grants_command(args: argparse.Namespace) -> int:
    """List the grants; exit 0."""
    return anyio.run(_grants, args)


def revoke_command(args: argparse.Namespace) -> int:
    """End one grant at once; exit 0, or 3 with one line if there is no such grant."""
    if not is_token(args.id):
        raise ConfigError(f"{args.id[:80]!r} is not a grant id (`humangr grants` lists them)")
    return anyio.run(_revoke, args)


def add_parsers(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``grants`` and ``revoke``."""
    state_help = "the SQLite state of a single process (`humangr review --state PATH`)"
    grants = sub.add_parser("grants", help="list the standing approvals, their uses and expiry")
    grants.add_argument("--state", metavar="PATH", required=True, help=state_help)
    grants.add_argument("--format", choices=["text", "json"], default="text")
    grants.set_defaults(func=grants_command)
    revoke = sub.add_parser("revoke", help="end a standing approval at once")
    revoke.add_argument("id", help="the grant's id (`humangr grants` lists them)")
    revoke.add_argument("--state", metavar="PATH", required=True, help=state_help)
    revoke.set_defaults(func=revoke_command)
