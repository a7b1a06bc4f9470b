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

from humangr.engine.commands.failure import UsageError, run_guarded
from humangr.engine.errors import ConfigError
from humangr.engine.redact import install_log_redaction

__all__ = ["build_parser", "main"]

Command = Callable[[argparse.Namespace], int]

COMMAND_MODULES = [
    "review",
    "reviews",
    "inbox",
    "nats",
    "bench",
    "mcp",
    "pipeline",
    "checks_eval",
]
"""Modules of ``engine.commands`` whose ``add_parsers(sub)`` adds sub-commands, in help order."""


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


def build_parser() -> argparse.ArgumentParser:
    """The parser of every command (sub-parsers share ``Parser``)."""
    parser = Parser(
        prog="humangr", description="Review AI agents' actions before they take effect."
    )
    parser.add_argument("-v", "--verbose", action="store_true", help="log at DEBUG level")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    schema = sub.add_parser("schema", help="print the JSON Schema of one or every message")
    schema.add_argument("name", nargs="?", help="message name, e.g. ActionSubmitted")
    schema.set_defaults(func=_schema)

    for name in COMMAND_MODULES:
        module = importlib.import_module(f"humangr.engine.commands.{name}")
        module.add_parsers(sub)
    return parser


def _prog(args: argparse.Namespace) -> str:
    words = ["humangr", args.command, getattr(args, "pipeline_command", None)]
    return " ".join(word for word in words if word)


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command; its exit code (``3`` after a one-line message if it failed)."""
    install_log_redaction()
    parsed: list[argparse.Namespace] = []

    def parse() -> int:
        parsed.append(build_parser().parse_args(argv))
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
