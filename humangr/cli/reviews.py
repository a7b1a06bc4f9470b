"""``humangr reviews``, ``show`` and ``resolve``: the human loop of ``needs_review`` from the
terminal, against an engine on NATS (``--nats URL``) or the SQLite state of a single process
(``--state PATH``)."""

from __future__ import annotations

import argparse
import getpass
import math
from collections.abc import Awaitable, Callable

import anyio

from humangr.cli.common import engine_where
from humangr.contracts import MAX_GRANT_S, encode
from humangr.engine.errors import ConfigError
from humangr.render.text import EXIT_CODES, render, render_detail, render_listing
from humangr.reviewing import Verdict, check_id, detail_of, list_reviews, open_channel, resolve

__all__ = [
    "MIN_REASON",
    "add_parsers",
    "check_reason",
    "grant_duration",
    "key_options",
    "reviewer_name",
    "where_options",
]

MIN_REASON = 20
"""Characters a reason needs besides spaces: a reviewer says why, not "ok"."""
MAX_REASON = 2_000
MAX_REVIEWER = 128


def check_reason(reason: str) -> str:
    """``reason`` if it says enough (``MIN_REASON`` non-space characters, at most
    ``MAX_REASON`` characters), else a ``ConfigError``."""
    said = len("".join(reason.split()))
    if said < MIN_REASON:
        raise ConfigError(
            f"--reason needs at least {MIN_REASON} characters besides spaces (it has {said}): "
            "say why you approve or reject, for the audit trail"
        )
    if len(reason) > MAX_REASON:
        raise ConfigError(f"--reason has {len(reason):,} characters; the limit is {MAX_REASON:,}")
    return reason


def reviewer_name(given: str | None) -> str:
    """``--reviewer`` as given, else the user name; a ``ConfigError`` if neither names
    someone."""
    if given is None:
        try:
            given = getpass.getuser()
        except (OSError, KeyError, ImportError) as exc:
            raise ConfigError(
                f"cannot tell who you are ({exc or type(exc).__name__}); give --reviewer NAME"
            ) from None
    name = given.strip()
    if not name or len(name) > MAX_REVIEWER or not name.isprintable():
        raise ConfigError(
            f"--reviewer {given[:MAX_REVIEWER]!r} does not name a reviewer: give 1-"
            f"{MAX_REVIEWER} printable characters"
        )
    return name


async def _reviews(args: argparse.Namespace) -> int:
    if not 1 <= args.limit <= 1_000:
        raise ConfigError(f"--limit {args.limit} is out of range; give 1-1000")
    async with open_channel(args) as channel:
        listing = await list_reviews(channel, limit=args.limit)
    if args.format == "json":
        print(encode(listing).decode())
    else:
        print(render_listing(listing, channel.where))
    return 0


async def _show(args: argparse.Namespace) -> int:
    async with open_channel(args) as channel:
        detail = await detail_of(channel, args.id)
    if args.format == "json":
        print(encode(detail).decode())
    else:
        print(render_detail(detail, channel.where))
    return 0


async def _resolve(args: argparse.Namespace, verdict: Verdict, reviewer: str) -> int:
    grant_s = grant_duration(args.grant) if args.grant is not None else 0.0
    async with open_channel(args) as channel:
        final = await resolve(
            channel,
            args.id,
            verdict,
            reviewer,
            args.reason,
            wait=args.timeout,
            grant_s=grant_s,
            grant_scope="tool" if args.scope == "tool" else "exact",
        )
        final = channel.shown(final)  # verified against the trusted keys, or marked unsigned
    print(render(args.format, final.action_id, final, channel.where))
    return EXIT_CODES[final.outcome]


def _run(func: Callable[[argparse.Namespace], Awaitable[int]]) -> Callable[..., int]:
    def run(args: argparse.Namespace) -> int:
        return anyio.run(func, args)

    return run


def show_command(args: argparse.Namespace) -> int:
    """Check the id (nothing is sent if it cannot be one), then show the review."""
    check_id(args.id)
    return anyio.run(_show, args)


def resolve_command(args: argparse.Namespace) -> int:
    """Check the id, the reason and the reviewer (nothing is sent if one is wrong), then
    resolve; exit 0 approved, 2 rejected, 3 refused or error."""
    check_id(args.id)
    check_reason(args.reason)
    reviewer = reviewer_name(args.reviewer)
    verdict: Verdict = "approve" if args.approve else "reject"
    if args.grant is not None:
        grant_duration(args.grant)
        if verdict != "approve":
            raise ConfigError("--grant comes with --approve only: a rejection grants nothing")
    elif args.scope is not None:
        raise ConfigError("--scope says what a --grant allows: give --grant DURATION too")
    return anyio.run(_resolve, args, verdict, reviewer)


_UNITS = {"s": 1.0, "m": 60.0, "h": 3600.0, "d": 86400.0}


def grant_duration(text: str) -> float:
    """A ``--grant`` duration (``90s``, ``30m``, ``8h``, ``7d``) in seconds: above zero and at
    most 30 days, else a ``ConfigError``."""
    number, unit = text.strip()[:-1], text.strip()[-1:].lower()
    try:
        value = float(number) * _UNITS[unit] if number and number[0].isdigit() else math.nan
    except (KeyError, ValueError):
        value = math.nan
    if not math.isfinite(value) or value <= 0:
        raise ConfigError(
            f"--grant {text[:40]!r} is not a duration: give a number above 0 and a unit, "
            "e.g. 90s, 30m, 8h or 7d"
        )
    if value > MAX_GRANT_S:
        raise ConfigError(f"--grant {text[:40]!r} is too long: a grant lasts at most 30d")
    return value


def key_options(parser: argparse.ArgumentParser) -> None:
    """``--public-key`` and ``--insecure-unsigned`` of a reviewer command on NATS."""
    parser.add_argument(
        "--public-key",
        action="append",
        default=[],
        metavar="PUBLIC",
        help="with --nats: trust only reports signed by this public key (`humangr key` prints "
        "it where the engine runs; repeatable; default: $HUMANGR_PUBLIC_KEY, comma-separated); "
        "without one the command refuses to start",
    )
    parser.add_argument(
        "--insecure-unsigned",
        action="store_true",
        help="with --nats: show reports without checking any signature; each then says "
        '"unsigned: not verified"',
    )


def where_options(parser: argparse.ArgumentParser, *, timeout: bool = False) -> None:
    """``--nats URL`` or ``--state PATH`` (one of them), ``--prefix`` and the key options:
    where a reviewer's command finds the reviews; with ``timeout`` also ``--timeout``."""
    engine_where(
        parser,
        nats_help="NATS URL of the engine, e.g. nats://127.0.0.1:4222 (a cluster: its URLs, "
        "comma-separated)",
        state_help="the SQLite state of a single process (`humangr review --state PATH`), "
        "read by a Supervisor started here; never the file of an engine that serves NATS",
        timeout_help="seconds to wait for each answer of the Supervisor (default 10)"
        if timeout
        else None,
    )
    key_options(parser)


def _where(parser: argparse.ArgumentParser) -> None:
    where_options(parser, timeout=True)


def add_parsers(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    reviews = sub.add_parser("reviews", help="list the reviews waiting for a human")
    _where(reviews)
    reviews.add_argument("--format", choices=["text", "json"], default="text")
    reviews.add_argument("--limit", type=int, default=200, help="at most this many (1-1000)")
    reviews.set_defaults(func=_run(_reviews))

    show = sub.add_parser("show", help="one review: its report, and the diff with each finding")
    show.add_argument("id", help="action id (or report id) of the review")
    _where(show)
    show.add_argument("--format", choices=["text", "json"], default="text")
    show.set_defaults(func=show_command)

    resolve = sub.add_parser(
        "resolve", help="approve or reject a pending review and print the final decision"
    )
    resolve.add_argument("id", help="action id (or report id) of the pending review")
    verdict = resolve.add_mutually_exclusive_group(required=True)
    verdict.add_argument("--approve", action="store_true", help="let the action take effect")
    verdict.add_argument("--reject", action="store_true", help="refuse the action")
    resolve.add_argument(
        "--reason",
        required=True,
        help=f"why, for the audit trail (at least {MIN_REASON} characters besides spaces)",
    )
    resolve.add_argument("--reviewer", help="who decides (default: your user name)")
    resolve.add_argument(
        "--grant",
        metavar="DURATION",
        help="with --approve: keep approving this agent's call for that long (90s, 30m, 8h, "
        "7d; at most 30d): a standing approval, listed by `humangr grants`",
    )
    resolve.add_argument(
        "--scope",
        choices=["exact", "tool"],
        help="what the grant allows: the exact call reviewed (default), or any call of its "
        "tool the policy would send to the layers (never what an ask or deny rule catches)",
    )
    _where(resolve)
    resolve.add_argument("--format", choices=["text", "json"], default="text")
    resolve.set_defaults(func=resolve_command)
