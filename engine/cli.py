"""The ``humangr`` command line."""

from __future__ import annotations

import argparse
import importlib
import json
import logging
import sys
from collections.abc import Callable, Sequence

__all__ = ["main"]

Command = Callable[[argparse.Namespace], int]

COMMAND_MODULES = ["review", "nats", "bench", "mcp", "pipeline", "checks_eval"]
"""Modules of ``engine.commands`` whose ``add_parsers(sub)`` adds sub-commands, in help order."""


def _schema(args: argparse.Namespace) -> int:
    from humangr.contracts import MESSAGES, schema_of

    names = [args.name] if args.name else list(MESSAGES)
    try:
        schemas = {name: schema_of(name) for name in names}
    except KeyError as exc:
        print(f"humangr schema: {exc.args[0]}", file=sys.stderr)
        return 2
    out = schemas[names[0]] if args.name else schemas
    print(json.dumps(out, indent=2, sort_keys=True))
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
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


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    logging.basicConfig(
        level=logging.DEBUG if args.verbose else logging.WARNING,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    func: Command = args.func
    try:
        return func(args)
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
