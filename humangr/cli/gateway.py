"""``humangr mcp-gateway``: the agent's MCP servers behind a review of every tool call.

::

    humangr mcp-gateway [--policy FILE] [--state PATH | --nats URL] -- COMMAND ARGS…
    humangr mcp-gateway --upstream fs="npx @modelcontextprotocol/server-filesystem ." \\
                        --upstream git="uvx mcp-server-git"
    humangr mcp-gateway --upstream-url http://127.0.0.1:8000/mcp
"""

from __future__ import annotations

import argparse
import logging
import os
import shlex
from typing import Any

import anyio

from humangr.cli.common import make_llm
from humangr.cli.policy import add_policy_option
from humangr.contracts import DEFAULT_PREFIX
from humangr.engine.errors import ConfigError
from humangr.extras import require_extra

__all__ = ["add_parsers", "gateway_command"]


def _specs(args: argparse.Namespace) -> list[Any]:
    from humangr.mcp.upstream import UpstreamSpec, parse_upstream

    command = list(args.upstream_command or [])
    if command and command[0] == "--":
        command = command[1:]
    given = sum(bool(x) for x in (command, args.upstream_url, args.upstream))
    if given != 1:
        raise ConfigError(
            "give the upstream MCP server one way: -- COMMAND ARGS…, --upstream-url URL, or "
            "--upstream NAME=COMMAND (repeatable, tools prefixed NAME__)"
        )
    if command:
        return [UpstreamSpec(None, command=tuple(command))]
    if args.upstream_url:
        if not args.upstream_url.startswith(("http://", "https://")):
            raise ConfigError(f"--upstream-url {args.upstream_url[:80]!r} is not an http(s) URL")
        return [UpstreamSpec(None, url=args.upstream_url)]
    specs = [parse_upstream(text) for text in args.upstream]
    names = [spec.name for spec in specs]
    if len(set(names)) != len(names):
        raise ConfigError("--upstream: each NAME must be different")
    return specs


def _connection(args: argparse.Namespace) -> tuple[str | None, dict[str, Any], Any]:
    """The URL and options of ``humangr.connect``, and where a human resolves reviews."""
    from humangr.engine.redact import redact_seed_urls
    from humangr.mcp.gateway_review import HumanRoute

    options: dict[str, Any] = {"agent_id": args.agent_id, "timeout": args.timeout}
    if args.nats:
        misplaced = [o for o in ("policy", "state", "llm") if getattr(args, o)]
        if misplaced:
            raise ConfigError(
                f"--{', --'.join(misplaced)} configure the engine in this process; with --nats "
                "the served engine has its own (humangr serve --policy FILE)"
            )
        options["prefix"] = args.prefix
        if args.public_key:
            options["public_key"] = list(args.public_key)
        if args.insecure_unsigned:
            options["insecure_unsigned"] = True
        where = f"--nats {shlex.quote(redact_seed_urls(args.nats))}"
        if args.prefix != DEFAULT_PREFIX:
            where += f" --prefix {shlex.quote(args.prefix)}"
        return args.nats, options, HumanRoute(where)
    if args.public_key or args.insecure_unsigned:
        raise ConfigError("--public-key and --insecure-unsigned are for --nats")
    if args.policy:
        options["policy"] = args.policy
    llm = make_llm(args.llm)
    if llm is not None:
        options["llm"] = llm
    if args.state:
        options["state"] = args.state
        return None, options, HumanRoute(f"--state {shlex.quote(os.path.abspath(args.state))}")
    return None, options, None


async def _gateway(args: argparse.Namespace) -> int:
    from humangr.mcp.gateway import run_gateway
    from humangr.mcp.gateway_review import GatewaySettings

    specs = _specs(args)
    url, options, human = _connection(args)
    for name in ("timeout", "call_timeout"):
        value = getattr(args, name)
        if value is not None and value <= 0:
            raise ConfigError(f"--{name.replace('_', '-')} must be a positive number of seconds")
    if not 1 <= args.max_concurrent <= 256:
        raise ConfigError("--max-concurrent must be within 1..256")
    if not 1_024 <= args.max_argument_bytes <= 1_000_000:
        raise ConfigError("--max-argument-bytes must be within 1024..1000000")
    settings = GatewaySettings(
        agent_id=args.agent_id,
        timeout=args.timeout,
        call_timeout=args.call_timeout or args.timeout,
        max_argument_bytes=args.max_argument_bytes,
        workspace=args.workspace,
        block_injected_results=args.block_injected_results,
        human=human,
        max_concurrent=args.max_concurrent,
        max_pending=args.max_concurrent * 8,
    )
    await run_gateway(
        specs,
        settings,
        url=url,
        options=options,
        audit=args.audit,
        start_timeout=60.0,
    )
    return 0


def gateway_command(args: argparse.Namespace) -> int:
    """Serve the gateway on stdio until the MCP client leaves."""
    require_extra("mcp")
    logging.captureWarnings(True)
    return anyio.run(_gateway, args)


def add_parsers(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    gw = sub.add_parser(
        "mcp-gateway",
        help="serve MCP servers' tools with every call reviewed first",
        description="An MCP server (stdio) in front of the agent's MCP servers: their tools are "
        "served unchanged, every call is reviewed first and forwarded only when approved; a "
        "stopped call is a tool error saying why. Logs go to stderr.",
        epilog="example: claude mcp add fs -- humangr mcp-gateway -- npx "
        "@modelcontextprotocol/server-filesystem .",
    )
    gw.add_argument(
        "--upstream",
        action="append",
        default=[],
        metavar="NAME=COMMAND",
        help="an upstream started with COMMAND (split like a shell; or NAME=http(s)://… for a "
        "streamable-HTTP one), its tools served as NAME__tool; repeatable",
    )
    gw.add_argument("--upstream-url", metavar="URL", help="a streamable-HTTP upstream")
    gw.add_argument("--nats", help="review on the engine behind this NATS URL (humangr serve)")
    gw.add_argument("--prefix", default=DEFAULT_PREFIX, help="subject prefix with --nats")
    gw.add_argument(
        "--public-key",
        action="append",
        default=[],
        metavar="PUBLIC",
        help="with --nats: the key decisions must be signed by (`humangr key`; repeatable; "
        "default $HUMANGR_PUBLIC_KEY)",
    )
    gw.add_argument(
        "--insecure-unsigned",
        action="store_true",
        help="with --nats: accept decisions without checking their signature",
    )
    add_policy_option(gw)
    gw.add_argument(
        "--state",
        metavar="PATH",
        help="keep the in-process engine's reviews in this SQLite file, so a human resolves "
        "needs_review with `humangr resolve ID --state PATH` while the call waits",
    )
    gw.add_argument("--llm", help="none | anthropic | scripted:FILE (the in-process engine)")
    gw.add_argument("--agent-id", default="mcp-gateway", help="the agent the calls are from")
    gw.add_argument("--workspace", metavar="DIR", help="the folder the tools may work in")
    gw.add_argument(
        "--timeout",
        type=float,
        default=300.0,
        help="seconds a call waits for its decision, a human's included (default 300)",
    )
    gw.add_argument(
        "--call-timeout",
        type=float,
        help="seconds an upstream has to answer a forwarded call (default: --timeout)",
    )
    gw.add_argument(
        "--block-injected-results",
        action="store_true",
        help="withhold a tool result holding prompt-injection text (default: log it, return it)",
    )
    gw.add_argument("--audit", metavar="FILE", help="append one JSON line per call to FILE")
    gw.add_argument("--max-argument-bytes", type=int, default=256 * 1024)
    gw.add_argument("--max-concurrent", type=int, default=8, help="forwarded calls at once")
    gw.add_argument(
        "upstream_command",
        nargs=argparse.REMAINDER,
        metavar="-- COMMAND ARGS",
        help="the command that starts the upstream MCP server (stdio)",
    )
    gw.set_defaults(func=gateway_command)
