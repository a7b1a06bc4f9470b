"""``humangr review`` and ``humangr layers``: the whole engine in process, on MemoryBus."""

from __future__ import annotations

import argparse
import json
import sys

import anyio

from humangr.engine.commands.common import llm_description, load_actions, make_llm
from humangr.engine.commands.render import EXIT_CODES, render
from humangr.engine.config import ReviewConfig
from humangr.engine.errors import EngineError
from humangr.engine.review import LAYERS
from humangr.engine.runtime import run_engine

__all__ = ["layers_command", "review_command"]

EXIT_ERROR = 3


async def _review(args: argparse.Namespace) -> int:
    config = ReviewConfig(
        layers=ReviewConfig.parse_layers(args.layers) if args.layers else ReviewConfig().layers,
        layer_deadline_s=args.deadline,
    )
    actions = load_actions(args.sources or ["-"])
    llm = make_llm(args.llm)
    note = llm_description(llm)
    if args.action:
        actions += load_actions([args.action])
    worst = 0
    async with run_engine(llm=llm, config=config) as engine:
        for name, action in actions:
            report = await engine.submit(action)
            print(render(args.format, name, report, note))
            if args.format != "json":
                print()
            worst = max(worst, EXIT_CODES[report.outcome])
    return 0 if args.exit_zero else worst


def review_command(args: argparse.Namespace) -> int:
    try:
        return anyio.run(_review, args)
    except EngineError as exc:
        print(f"humangr review: {exc}", file=sys.stderr)
        return EXIT_ERROR


def layers_command(args: argparse.Namespace) -> int:
    rows = [
        {
            "id": spec.id.value,
            "name": spec.name,
            "title": spec.title,
            "veto_power": spec.veto_power.value,
            "focus": spec.focus,
        }
        for spec in LAYERS.values()
    ]
    if args.format == "json":
        print(json.dumps(rows, indent=2))
    else:
        for row in rows:
            print(f"{row['id']}  {row['title']:<14} veto {row['veto_power']:<7} {row['focus']}")
    return 0


def add_parsers(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    review = sub.add_parser("review", help="review diffs or actions in process and print decisions")
    review.add_argument(
        "sources", nargs="*", help="FILE.diff, FILE.json, a directory, or - (stdin)"
    )
    review.add_argument("--action", help="an ActionContext as JSON")
    review.add_argument("--layers", help="comma-separated layers, e.g. HL4,HL6 (default: all)")
    review.add_argument(
        "--llm",
        help="none | anthropic | scripted:FILE (default: anthropic "
        "when ANTHROPIC_API_KEY is set, else none)",
    )
    review.add_argument("--format", choices=["text", "json", "markdown"], default="text")
    review.add_argument("--deadline", type=float, default=120.0, help="seconds per layer")
    review.add_argument(
        "--exit-zero",
        action="store_true",
        help="exit 0 whatever the outcomes (errors still exit 3)",
    )
    review.set_defaults(func=review_command)

    layers = sub.add_parser("layers", help="list the seven layers, their focus and veto power")
    layers.add_argument("--format", choices=["text", "json"], default="text")
    layers.set_defaults(func=layers_command)
