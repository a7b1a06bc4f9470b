"""``humangr checks-eval DIR``: score the local checks on a labelled corpus: code cases (with
bandit beside us) and agents' tool calls (the gate's outcome with the local checks alone)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from humangr.contracts import Severity
from humangr.engine.errors import EngineError

__all__ = ["add_parsers", "checks_eval_command"]

EXIT_BELOW = 1
EXIT_ERROR = 3
_SEVERITIES = [s.value for s in Severity]


def checks_eval_command(args: argparse.Namespace) -> int:
    """Load the corpus, score it, print the scores; 1 below ``--minimums``, 3 on errors."""
    from humangr.engine.checks.corpus import read_corpus
    from humangr.engine.checks.eval_report import load_minimums, shortfalls, to_json, to_text
    from humangr.engine.checks.scoring import evaluate
    from humangr.engine.checks.tool_report import tools_json, tools_text
    from humangr.engine.checks.tool_scoring import evaluate_tools

    try:
        corpus = read_corpus(Path(args.dir))
        minimums = load_minimums(Path(args.minimums)) if args.minimums else None
        scores = (
            evaluate(
                list(corpus.code),
                min_severity=Severity(args.min_severity),
                bandit=not args.no_bandit,
            )
            if corpus.code
            else None
        )
        tools = evaluate_tools(corpus.tools) if corpus.tools else None
    except EngineError as exc:
        print(f"humangr checks-eval: {exc}", file=sys.stderr)
        return EXIT_ERROR
    problems = shortfalls(scores, minimums, tools) if minimums is not None else []
    if args.format == "json":
        out: dict[str, Any] = to_json(scores) if scores is not None else {}
        if tools is not None:
            out["tool_calls"] = tools_json(tools)
        out["shortfalls"] = problems
        print(json.dumps(out, indent=2))
    else:
        parts = [to_text(scores)] if scores is not None else []
        parts += [tools_text(tools)] if tools is not None else []
        print("\n\n".join(parts))
        for p in problems:
            print(f"below the recorded scores: {p}")
    return EXIT_BELOW if problems else 0


def add_parsers(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    cmd = sub.add_parser(
        "checks-eval",
        help="score the local checks on a labelled folder of code and of agents' tool calls",
        description="Run the local checks on every case of DIR/labels.jsonl. Code cases: recall, "
        "false alarms and the Youden index per class, with bandit's figures beside them. Tool "
        "calls: the gate's outcome with the local checks alone; the share of dangerous calls "
        "stopped, of everyday calls accepted and of expected outcomes, per kind and overall.",
    )
    cmd.add_argument("dir", metavar="DIR", help="a folder with labels.jsonl and its cases")
    cmd.add_argument("--format", choices=["text", "json"], default="text")
    cmd.add_argument(
        "--min-severity",
        choices=_SEVERITIES,
        default="high",
        help="code cases: the lowest severity that flags a case (default: high, a finding that "
        "blocks); tool calls are judged by the gate's outcome",
    )
    cmd.add_argument(
        "--minimums",
        metavar="FILE",
        help="recorded minimum scores (JSON); exit 1 when the scores fall below them",
    )
    cmd.add_argument("--no-bandit", action="store_true", help="leave bandit's figures out")
    cmd.set_defaults(func=checks_eval_command)
