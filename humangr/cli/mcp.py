"""``humangr mcp``: the MCP front door for coding assistants (stdio or streamable HTTP)."""

from __future__ import annotations

import argparse
import logging

import anyio

from humangr.cli.common import llm_description, make_llm
from humangr.cli.policy import add_policy_option, with_policy
from humangr.contracts import DEFAULT_PREFIX
from humangr.engine.config import ReviewConfig
from humangr.engine.errors import ConfigError

__all__ = ["add_parsers", "mcp_command"]


async def _mcp(args: argparse.Namespace) -> int:
    from humangr.mcp import HumanLayerMCP, listen, open_backend, serve_http, serve_stdio
    from humangr.mcp.backend import mcp_trust

    trust = None
    if args.nats is not None:
        trust = mcp_trust(args.public_key, insecure=args.insecure_unsigned)
    elif args.public_key or args.insecure_unsigned:
        raise ConfigError(
            "humangr mcp: --public-key and --insecure-unsigned are for --nats; the engine in "
            "process trusts its own key"
        )
    if args.nats is not None and args.policy:
        raise ConfigError(
            "humangr mcp: --policy configures the engine in process; with --nats the policy is "
            "the served engine's (humangr serve --policy FILE)"
        )
    config = ReviewConfig(
        layers=ReviewConfig.parse_layers(args.layers) if args.layers else ReviewConfig().layers,
        layer_deadline_s=args.deadline,
        partial=bool(args.layers),
    )
    config = with_policy(config, args.policy)
    llm = make_llm(args.llm)
    sock = listen(args.host, args.port) if args.transport == "http" else None
    try:
        async with open_backend(
            config, llm, nats_url=args.nats, prefix=args.prefix, timeout=args.timeout, trust=trust
        ) as backend:
            app = HumanLayerMCP(backend, llm, llm_description(llm))
            if sock is not None:
                await serve_http(app, sock)
            else:
                await serve_stdio(app)
    finally:
        if sock is not None:
            sock.close()
    return 0


def mcp_command(args: argparse.Namespace) -> int:
    """Serve MCP until the client leaves (stdio) or SIGINT/SIGTERM (http)."""
    logging.captureWarnings(True)
    return anyio.run(_mcp, args)


def add_parsers(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    mcp = sub.add_parser(
        "mcp",
        help="serve the review as MCP tools (validate, test_action, get_report, list_layers)",
        description="An MCP server for coding assistants. Logs go to stderr; with the stdio "
        "transport, stdout carries the protocol.",
    )
    mcp.add_argument("--transport", choices=["stdio", "http"], default="stdio")
    mcp.add_argument(
        "--nats",
        help="submit to the engine behind this NATS URL (a cluster: its URLs, comma-separated) "
        "instead of running it in process",
    )
    mcp.add_argument(
        "--prefix", default=DEFAULT_PREFIX, help="subject prefix with --nats (default %(default)s)"
    )
    mcp.add_argument(
        "--public-key",
        action="append",
        default=[],
        metavar="PUBLIC",
        help="with --nats: accept only decisions signed by this public key (`humangr key` "
        "prints it where the engine runs; repeatable; default: $HUMANGR_PUBLIC_KEY, "
        "comma-separated); without one `mcp --nats` refuses to start",
    )
    mcp.add_argument(
        "--insecure-unsigned",
        action="store_true",
        help="with --nats: accept decisions without checking any signature; every report then "
        'says "unsigned: not verified"',
    )
    mcp.add_argument(
        "--llm",
        help="none | anthropic | scripted:FILE (default: anthropic "
        "when ANTHROPIC_API_KEY is set, else none)",
    )
    mcp.add_argument("--layers", help="comma-separated layers, e.g. HL4,HL6 (default: all)")
    mcp.add_argument("--deadline", type=float, default=120.0, help="seconds per layer")
    add_policy_option(mcp)
    mcp.add_argument(
        "--timeout", type=float, default=300.0, help="seconds to wait for a decision with --nats"
    )
    mcp.add_argument("--host", default="127.0.0.1", help="HTTP address (default 127.0.0.1)")
    mcp.add_argument("--port", type=int, default=8765, help="HTTP port (default 8765)")
    mcp.set_defaults(func=mcp_command)
