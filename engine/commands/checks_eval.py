"""``humangr checks-eval DIR``: score the local checks (and bandit) on a labelled corpus."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from humangr.contracts import Severity
from humangr.engine.errors import EngineError

__all__ = ["add_parsers", "checks_eval_command"]

EXIT_BELOW = 1
EXIT_ERROR = 3
_SEVERITIES = [s.value for s in Severity]


def checks_eval_command(args: argparse.Namespace) -> int:
    """Load the corpus, score it, print the scores; 1 below ``--minimums``, 3 on errors."""
    from humangr.engine.checks.corpus import load_corpus
    from humangr.engine.checks.eval_report import load_minimums, shortfalls, to_json, to_text
    from humangr.engine.checks.scoring import evaluate

    try:
        cases = load_corpus(Path(args.dir))
        minimums = load_minimums(Path(args.minimums)) if args.minimums else None
        scores = evaluate(
            cases, min_severity=Severity(args.min_severity), bandit=not args.no_bandit
        )
    except EngineError as exc:
        print(f"humangr checks-eval: {exc}", file=sys.stderr)
        return EXIT_ERROR
    problems = shortfalls(scores, minimums) if minimums is not None else []
    if args.format == "json":
        out = to_json(scores)
        out["shortfalls"] = problems
        print(json.dumps(out, indent=2))
    else:
        print(to_text(scores))
        for p in problems:
            print(f"below the recorded scores: {p}")
    return EXIT_BELOW if problems else 0


def add_parsers(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    cmd = sub.add_parser(
        "checks-eval",
        help="score the local checks (and bandit) on a labelled folder of code",
        description="Run the local checks on every case of DIR/labels.jsonl and print recall, "
        "false alarms and the Youden index per class, with bandit's figures beside them.",
    )
    cmd.add_argument("dir", metavar="DIR", help="a folder with labels.jsonl and its cases")
    cmd.add_argument("--format", choices=["text", "json"], default="text")
    cmd.add_argument(
        "--min-severity",
        choices=_SEVERITIES,
        default="high",
        help="the lowest severity that flags a case (default: high, a finding that blocks)",
    )
    cmd.add_argument(
        "--minimums",
        metavar="FILE",
        help="recorded minimum scores (JSON); exit 1 when the scores fall below them",
    )
    cmd.add_argument("--no-bandit", action="store_true", help="leave bandit's figures out")
    cmd.set_defaults(func=checks_eval_command)
