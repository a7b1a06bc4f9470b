"""``humangr review`` and ``humangr layers``: the whole engine in process, on MemoryBus."""

from __future__ import annotations

import argparse
import json
import shlex
import sys

import anyio

from humangr.actors.roles import run_engine
from humangr.cli.common import llm_description, load_actions, make_llm
from humangr.cli.failure import UsageError
from humangr.cli.inputs import STDIN
from humangr.cli.policy import add_policy_option, with_policy
from humangr.contracts import ActionContext, HumanLayerReport, Outcome
from humangr.engine.config import ReviewConfig
from humangr.engine.review import LAYERS
from humangr.engine.signing import load_signing_key
from humangr.engine.state import SqliteStateStore
from humangr.render.text import EXIT_CODES, render

__all__ = ["layers_command", "review_command"]

NO_INPUT = (
    "no input: give FILE.diff (or .patch), FILE.json, any other FILE (its content is "
    "reviewed), a directory, - (a diff on standard input) or --action FILE; standard input "
    "is read without - only when it is not a terminal"
)


def _sources(args: argparse.Namespace) -> list[str]:
    """The sources to read: as given; ``-`` if none is given and standard input is a pipe or
    a file (never with ``--action``, never from a terminal)."""
    sources: list[str] = list(args.sources)
    if sources or args.action:
        return sources
    if sys.stdin is None or sys.stdin.isatty():
        raise UsageError("humangr review", NO_INPUT, usage=args.usage)
    return [STDIN]


async def _review(
    args: argparse.Namespace, config: ReviewConfig, actions: list[tuple[str, ActionContext]]
) -> int:
    llm = make_llm(args.llm)
    note = llm_description(llm)
    worst = 0
    state = SqliteStateStore(args.state) if args.state else None
    # a state file's decisions are signed by this machine's key, as `humangr resolve --state`
    # and `humangr.connect(state=...)` sign theirs (docs/design.md, "Human review")
    key = load_signing_key()[0] if state is not None else None
    try:
        async with run_engine(llm=llm, config=config, state=state, signing_key=key) as engine:
            for name, action in actions:
                report = await engine.submit(action)
                print(render(args.format, name, report, note, action))
                if args.format != "json":
                    _hint(args, report)
                    print()
                worst = max(worst, EXIT_CODES[report.outcome])
    finally:
        if state is not None:
            await state.close()
    return 0 if args.exit_zero else worst


def _hint(args: argparse.Namespace, report: HumanLayerReport) -> None:
    if report.outcome is not Outcome.NEEDS_REVIEW:
        return
    if args.state:
        where = f"--state {shlex.quote(args.state)}"
        print(
            f"  a human decides: humangr show {report.action_id} {where}, then humangr resolve "
            f"{report.action_id} {where} (--approve | --reject) --reason TEXT"
        )
    else:
        print("  a human decides; with --state PATH the review is kept for humangr resolve")


def review_command(args: argparse.Namespace) -> int:
    """Review every source in process; exit with the worst outcome (errors: 3)."""
    config = ReviewConfig(
        layers=ReviewConfig.parse_layers(args.layers) if args.layers else ReviewConfig().layers,
        layer_deadline_s=args.deadline,
        partial=bool(args.layers),
    )
    config = with_policy(config, args.policy)
    limit = config.max_diff_bytes
    actions = load_actions(_sources(args), max_diff_bytes=limit)
    if args.action:
        actions += load_actions([args.action], max_diff_bytes=limit, as_json=True)
    return anyio.run(_review, args, config, actions)


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
        "sources",
        nargs="*",
        help="FILE.diff or FILE.patch (a diff), FILE.json (an action), any other file (its "
        "content, reviewed as a new file: diff markers in it stay content), a directory, or - "
        "(stdin); with none, a diff piped on stdin is read",
    )
    review.add_argument("--action", help="an ActionContext as JSON (stdin is not read)")
    review.add_argument("--layers", help="comma-separated layers, e.g. HL4,HL6 (default: all)")
    review.add_argument(
        "--llm",
        help="none | anthropic | scripted:FILE (default: anthropic "
        "when ANTHROPIC_API_KEY is set, else none)",
    )
    review.add_argument("--format", choices=["text", "json", "markdown"], default="text")
    review.add_argument("--deadline", type=float, default=120.0, help="seconds per layer")
    review.add_argument(
        "--state",
        metavar="PATH",
        help="keep decisions and pending human reviews in this SQLite file, for humangr "
        "reviews, show and resolve --state PATH afterwards (default: in memory)",
    )
    review.add_argument(
        "--exit-zero",
        action="store_true",
        help="exit 0 whatever the outcomes (errors still exit 3)",
    )
    add_policy_option(review)
    review.set_defaults(func=review_command, usage=review.format_usage())

    layers = sub.add_parser("layers", help="list the seven layers, their focus and veto power")
    layers.add_argument("--format", choices=["text", "json"], default="text")
    layers.set_defaults(func=layers_command)
