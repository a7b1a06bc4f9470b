"""The ``humangr`` command line.

Exit codes: ``0`` approved, ``1`` needs_review, ``2`` rejected, ``3`` error (usage errors
included); every command's errors end in ``commands.failure.run_guarded``.
"""

from __future__ import annotations

import argparse
import importlib
import json
import logging
import sys
from collections.abc import Callable, Sequence
from typing import NoReturn

from humangr.cli.failure import UsageError, run_guarded
from humangr.engine.errors import ConfigError
from humangr.engine.redact import install_log_redaction

__all__ = ["build_parser", "main"]

Command = Callable[[argparse.Namespace], int]

COMMANDS: dict[str, tuple[str, str]] = {
    "review": ("review", "review diffs or actions in process and print decisions"),
    "layers": ("review", "list the seven layers, their focus and veto power"),
    "reviews": ("reviews", "list the reviews waiting for a human"),
    "show": ("reviews", "one review: its report, and the diff with each finding"),
    "resolve": ("reviews", "approve or reject a pending review and print the final decision"),
    "grants": ("grants", "list the standing approvals, their uses and expiry"),
    "revoke": ("grants", "end a standing approval at once"),
    "inbox": (
        "inbox",
        "serve the review inbox: a web page where reviewers read flagged actions and decide",
    ),
    "serve": ("serve", "run the actors against NATS"),
    "submit": ("nats", "publish actions for review"),
    "watch": ("nats", "stream decisions"),
    "report": ("nats", "print a stored report by report or action id"),
    "key": ("keys", "print the public key decisions are signed with"),
    "verify": ("keys", "verify a decision's signature offline"),
    "bench": ("bench", "measure engine overhead with an instant LLM"),
    "policy": ("policy", "check a policy file, or test it on a folder of cases"),
    "replay": ("replay", "re-decide stored decisions under a new policy; print what would change"),
    "mcp": (
        "mcp",
        "serve the review as MCP tools (validate, test_action, get_report, list_layers)",
    ),
    "mcp-gateway": ("gateway", "serve MCP servers' tools with every call reviewed first"),
    "hook": ("hook", "Claude Code's PreToolUse hook: review each tool call before it runs"),
    "pipeline": ("pipeline_commands", "run the agent pipeline (CTO → … → QA)"),
    "checks-eval": (
        "checks_eval",
        "score the local checks on a labelled folder of code and of agents' tool calls",
    ),
    "checks-train": (
        "checks_train",
        "fit the resemblance check's model on a labelled folder of tool calls",
    ),
}
"""Every command, in help order: the module of ``engine.commands`` whose ``add_parsers(sub)``
adds it, and its one-line help. Only the module of the command being run is imported, so a
command starts without loading what the others need (the LLM SDK, the MCP SDK, bandit, …)."""


class Parser(argparse.ArgumentParser):
    """An ``ArgumentParser`` whose usage errors are ``UsageError`` (exit 3, not argparse's 2)."""

    def error(self, message: str) -> NoReturn:
        raise UsageError(self.prog, f"{message} (see {self.prog} --help)")


def _schema(args: argparse.Namespace) -> int:
    from humangr.contracts import MESSAGES, schema_of

    names = [args.name] if args.name else list(MESSAGES)
    try:
        schemas = {name: schema_of(name) for name in names}
    except KeyError as exc:
        raise ConfigError(str(exc.args[0])) from None
    out = schemas[names[0]] if args.name else schemas
    print(json.dumps(out, indent=2, sort_keys=True))
    return 0


def _chosen(argv: Sequence[str]) -> str | None:
    """The command named on the command line (the first word that is not an option)."""
    return next((word for word in argv if not word.startswith("-")), None)


def build_parser(
    argv: Sequence[str] | None = None, *, full: bool = False
) -> argparse.ArgumentParser:
    """The parser (sub-parsers share ``Parser``). Only the module of the command in ``argv`` is
    imported and adds its real parsers; the others appear with their help only — unless
    ``full``, which loads every command (for documentation and tests)."""
    parser = Parser(
        prog="humangr", description="Review AI agents' actions before they take effect."
    )
    parser.add_argument("-v", "--verbose", action="store_true", help="log at DEBUG level")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    schema = sub.add_parser("schema", help="print the JSON Schema of one or every message")
    schema.add_argument("name", nargs="?", help="message name, e.g. ActionSubmitted")
    schema.set_defaults(func=_schema)

    chosen = _chosen(sys.argv[1:] if argv is None else argv)
    loaded: set[str] = set()
    for name, (module_name, help_text) in COMMANDS.items():
        if module_name in loaded:
            continue
        if full or COMMANDS.get(chosen or "", ("",))[0] == module_name:
            module = importlib.import_module(f"humangr.cli.{module_name}")
            module.add_parsers(sub)
            loaded.add(module_name)
        else:
            sub.add_parser(name, help=help_text)
    return parser


def _prog(args: argparse.Namespace) -> str:
    words = ["humangr", args.command, getattr(args, "pipeline_command", None)]
    return " ".join(word for word in words if word)


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command; its exit code (``3`` after a one-line message if it failed)."""
    install_log_redaction()
    parsed: list[argparse.Namespace] = []

    def parse() -> int:
        parsed.append(build_parser(argv).parse_args(argv))
        return 0

    code = run_guarded("humangr", parse)
    if not parsed:
        return code
    args = parsed[0]
    logging.basicConfig(
        level=logging.DEBUG if args.verbose else logging.WARNING,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    func: Command = args.func
    return run_guarded(_prog(args), lambda: func(args))


if __name__ == "__main__":
    sys.exit(main())
