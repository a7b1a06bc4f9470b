"""``humangr inbox``: the review inbox, a web page where reviewers read flagged actions and
decide — against an engine on NATS (``--nats URL``) or the SQLite state of a single process
(``--state PATH``); and ``serve --inbox-port``, the same page beside the actors."""

from __future__ import annotations

import argparse
import logging
import os
import signal
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from functools import partial

import anyio

from humangr.contracts import Subjects
from humangr.engine.bus import Bus
from humangr.engine.errors import ConfigError
from humangr.engine.metrics import Metrics
from humangr.engine.redact import redact_seed_urls
from humangr.engine.trust import PUBLIC_KEY_ENV, client_trust

from .common import seconds
from .reviews import where_options

__all__ = ["add_parsers", "add_serve_options", "inbox_beside", "inbox_command"]

log = logging.getLogger("humangr.inbox")
TOKENS_HELP = (
    "the reviewers' tokens: one `TOKEN NAME` per line, # comments; the file must not be "
    "readable by other users (chmod 600); default: $HUMANGR_INBOX_TOKENS (entries separated "
    "by new lines or ;)"
)


def _hours(text: str) -> float:
    value = seconds(text)
    if value > 720:
        raise argparse.ArgumentTypeError(f"{text!r}: a sign-in lasts at most 720 hours")
    return value


def _url(host: str, port: int, tls: bool) -> str:
    shown = f"[{host}]" if ":" in host else host
    return f"{'https' if tls else 'http'}://{shown}:{port}/"


def _warn_if_exposed(host: str, tls: bool) -> None:
    from humangr.inbox import is_loopback

    if not tls and not is_loopback(host):
        print(
            f"humangr inbox: warning: serving plain HTTP on {host}: tokens and session cookies "
            "cross the network unencrypted; give --tls-cert and --tls-key or put it behind a "
            "TLS proxy",
            file=sys.stderr,
            flush=True,
        )


async def _inbox(args: argparse.Namespace) -> int:
    from humangr.inbox import InboxSettings, Tls, load_reviewers, serve_inbox
    from humangr.metrics_server import serve_metrics
    from humangr.reviewing import channel_trust, open_channel

    if args.nats is not None:
        channel_trust(args)  # no key, no inbox: checked before anything starts
    reviewers = load_reviewers(args.tokens)
    if (args.tls_cert is None) != (args.tls_key is None):
        raise ConfigError("give --tls-cert and --tls-key together (or neither, for plain HTTP)")
    tls = Tls(args.tls_cert, args.tls_key) if args.tls_cert and args.tls_key else None
    _warn_if_exposed(args.host, tls is not None)
    settings = InboxSettings(
        timeout=args.timeout, session_s=args.session_hours * 3600, poll_s=args.poll
    )
    metrics = Metrics()
    with anyio.open_signal_receiver(signal.SIGINT, signal.SIGTERM) as signals:
        async with open_channel(args) as channel, anyio.create_task_group() as tg:
            if args.metrics_port is not None:
                port = await tg.start(
                    serve_metrics, metrics.registry, args.metrics_host, args.metrics_port
                )
                print(f"humangr metrics on http://{args.metrics_host}:{port}/metrics", flush=True)
            serve = partial(
                serve_inbox,
                channel,
                reviewers,
                metrics,
                host=args.host,
                port=args.port,
                settings=settings,
                tls=tls,
            )
            port = await tg.start(serve)
            print(
                f"humangr inbox on {_url(args.host, port, tls is not None)} for "
                f"{len(reviewers.names)} reviewer(s), {channel.where}",
                flush=True,
            )
            async for signum in signals:
                log.info("signal %s: stopping the inbox", signum)
                break
            tg.cancel_scope.cancel()
    return 0


def inbox_command(args: argparse.Namespace) -> int:
    """Serve the inbox until SIGINT or SIGTERM."""
    return anyio.run(_inbox, args)


@asynccontextmanager
async def inbox_beside(
    args: argparse.Namespace, bus: Bus, metrics: Metrics, own_key: str | None = None
) -> AsyncIterator[None]:
    """``serve --inbox-port``: the inbox on ``bus`` while the block runs (nothing without the
    option). ``own_key``: the public key of the Supervisor served beside it, trusted with
    ``$HUMANGR_PUBLIC_KEY``'s."""
    if args.inbox_port is None:
        yield
        return
    from humangr.inbox import load_reviewers, serve_inbox
    from humangr.reviewing import Channel

    reviewers = load_reviewers(args.inbox_tokens)
    _warn_if_exposed(args.inbox_host, False)
    # This process's Supervisor key and $HUMANGR_PUBLIC_KEY's; with neither (no Supervisor
    # served here) what the page shows is marked "unsigned: not verified".
    env_keys = os.environ.get(PUBLIC_KEY_ENV, "")
    own = ",".join(k for k in (own_key, env_keys) if k) or None
    trust = client_trust(
        own,
        insecure=own is None,
        who="humangr serve --inbox-port",
        key_option="$HUMANGR_PUBLIC_KEY",
        insecure_option="no key",
    )
    where = f"via {redact_seed_urls(args.nats)}"
    channel = Channel(bus, Subjects(args.prefix), where, 10.0, trust=trust)
    async with anyio.create_task_group() as tg:
        serve = partial(
            serve_inbox, channel, reviewers, metrics, host=args.inbox_host, port=args.inbox_port
        )
        port = await tg.start(serve)
        print(f"humangr inbox on {_url(args.inbox_host, port, False)}", flush=True)
        try:
            yield
        finally:
            tg.cancel_scope.cancel()


def add_serve_options(serve: argparse.ArgumentParser) -> None:
    """``serve``'s options for the inbox beside the actors."""
    serve.add_argument(
        "--inbox-port",
        type=int,
        metavar="PORT",
        help="also serve the review inbox on this port (0: a free port, printed at start); "
        "it resolves as serve's NATS user",
    )
    serve.add_argument(
        "--inbox-host", default="127.0.0.1", help="address of the inbox (default 127.0.0.1)"
    )
    serve.add_argument("--inbox-tokens", metavar="FILE", help=TOKENS_HELP)


def add_parsers(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    inbox = sub.add_parser(
        "inbox",
        help="serve the review inbox: a web page where reviewers read flagged actions and decide",
    )
    where_options(inbox)
    inbox.add_argument(
        "--host", default="127.0.0.1", help="address to serve on (default 127.0.0.1)"
    )
    inbox.add_argument("--port", type=int, default=8080, help="port (default 8080; 0: a free one)")
    inbox.add_argument("--tokens", metavar="FILE", help=TOKENS_HELP)
    inbox.add_argument(
        "--timeout",
        type=seconds,
        default=10.0,
        help="seconds to wait for each answer of the Supervisor and for a final decision "
        "(default 10)",
    )
    inbox.add_argument(
        "--session-hours",
        type=_hours,
        default=8.0,
        help="how long a sign-in lasts (default 8; restarting the inbox signs everyone out)",
    )
    inbox.add_argument(
        "--poll",
        type=seconds,
        default=5.0,
        help="seconds between two comparisons of the pending list for the live updates "
        "(default 5; new reviews on NATS appear at once)",
    )
    inbox.add_argument("--tls-cert", metavar="FILE", help="serve HTTPS with this certificate chain")
    inbox.add_argument("--tls-key", metavar="FILE", help="the private key of --tls-cert")
    inbox.add_argument(
        "--metrics-port", type=int, help="serve Prometheus /metrics on this port (0: a free one)"
    )
    inbox.add_argument(
        "--metrics-host", default="127.0.0.1", help="address of /metrics (default 127.0.0.1)"
    )
    inbox.set_defaults(func=inbox_command)
