"""``humangr checks-train DIR``: fit the ``resemblance`` check's model on labelled tool calls.

It reads ``DIR/labels.jsonl`` (the corpus ``checks-eval`` scores) and ``DIR/unmatched.jsonl``
(outside sets' calls the text rules decide otherwise than labelled: the cases a model learns
most from), fits logistic regression on the calls' features (``resemblance.features``) with
scikit-learn (``pip install 'humangr[train]'``), keeps the ``--vocabulary`` heaviest features,
fits again on those and writes the model HUMANGR ships."""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path
from typing import Any

from humangr.engine.errors import ConfigError

__all__ = ["add_parsers", "checks_train_command", "read_calls"]

UNMATCHED = "unmatched.jsonl"
_LABELS = {"dangerous": True, "everyday": False}


def read_calls(path: Path) -> list[tuple[str, dict[str, Any], bool]]:
    """The tool calls of a labels file: ``(tool name, arguments, dangerous)``; code cases
    (lines without ``tool``) and comments are skipped."""
    out: list[tuple[str, dict[str, Any], bool]] = []
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read it ({exc.strerror or exc})") from None
    for number, line in enumerate(lines, start=1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        try:
            row = json.loads(line)
            if "tool" not in row:
                continue
            tool, label = row["tool"], row["label"]
            out.append((str(tool["name"]), dict(tool["arguments"]), _LABELS[label]))
        except (ValueError, KeyError, TypeError) as exc:
            raise ConfigError(
                f"{path}:{number}: not a labelled tool call ({type(exc).__name__}: {exc}); "
                "each line needs tool.name, tool.arguments and label dangerous|everyday"
            ) from None
    return out


def _fit(
    calls: list[tuple[str, dict[str, Any], bool]], c: float, vocabulary: int
) -> tuple[dict[str, float], float, str]:
    try:
        import numpy as np
        import sklearn
        from sklearn.feature_extraction.text import CountVectorizer
        from sklearn.linear_model import LogisticRegression
        from sklearn.preprocessing import normalize
    except ImportError:
        raise ConfigError("checks-train needs scikit-learn: pip install 'humangr[train]'") from None
    from humangr.engine.checks.tools.resemblance import features

    docs = [(name, arguments) for name, arguments, _ in calls]
    labels = np.array([dangerous for _, _, dangerous in calls])

    def fit(vectorizer: Any) -> Any:
        matrix = normalize(vectorizer.fit_transform(docs))
        model = LogisticRegression(C=c, max_iter=5_000, class_weight="balanced")
        return model.fit(matrix, labels)

    first = CountVectorizer(analyzer=features, binary=True, min_df=2, dtype=np.float64)
    heaviest = np.argsort(-np.abs(fit(first).coef_[0]))[:vocabulary]
    names = first.get_feature_names_out()
    kept = sorted(str(n) for n in names[heaviest])
    second = CountVectorizer(analyzer=features, binary=True, vocabulary=kept, dtype=np.float64)
    model = fit(second)
    weights = {
        str(name): round(float(w), 5)
        for name, w in zip(second.get_feature_names_out(), model.coef_[0], strict=True)
        if round(float(w), 5) != 0.0
    }
    return weights, round(float(model.intercept_[0]), 5), str(sklearn.__version__)


def checks_train_command(args: argparse.Namespace) -> int:
    """Fit the model on the folder's calls and write it; 3 on errors."""
    from humangr.engine.checks.tools import resemblance

    folder = Path(args.dir)
    sources = [folder / "labels.jsonl", folder / UNMATCHED]
    try:
        calls = [call for path in sources if path.exists() for call in read_calls(path)]
        if not any(d for *_, d in calls) or all(d for *_, d in calls):
            raise ConfigError(f"{folder}: needs both dangerous and everyday tool calls")
        weights, bias, version = _fit(calls, args.c, args.vocabulary)
    except ConfigError as exc:
        print(f"humangr checks-train: {exc}", file=sys.stderr)
        return 3
    digest = hashlib.sha256()
    for path in sources:
        if path.exists():
            digest.update(path.read_bytes())
    model = resemblance.Model(
        weights=weights,
        bias=bias,
        threshold=args.threshold,
        trained={
            "calls": len(calls),
            "dangerous": sum(1 for *_, d in calls if d),
            "inputs_sha256": digest.hexdigest(),
            "c": args.c,
            "vocabulary": args.vocabulary,
            "scikit_learn": version,
        },
    )
    out = (
        Path(args.out)
        if args.out
        else Path(resemblance.__file__).with_name("resemblance_model.json")
    )
    out.write_bytes(resemblance.dump_model(model))
    print(f"{len(weights)} weights from {len(calls)} calls written to {out}")
    return 0


def add_parsers(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    cmd = sub.add_parser(
        "checks-train",
        help="fit the resemblance check's model on a labelled folder of tool calls",
        description="Fit the model of the `resemblance` local check (logistic regression on "
        "the words of a call) on DIR/labels.jsonl and DIR/unmatched.jsonl, and write it. "
        "Needs scikit-learn (pip install 'humangr[train]').",
    )
    cmd.add_argument("dir", metavar="DIR", help="a folder with labels.jsonl (and unmatched.jsonl)")
    cmd.add_argument("--out", metavar="FILE", help="where to write (default: the shipped model)")
    cmd.add_argument("--c", type=float, default=10.0, help="inverse regularisation (10)")
    cmd.add_argument("--vocabulary", type=int, default=20_000, help="features kept (20000)")
    cmd.add_argument(
        "--threshold",
        type=float,
        default=0.85,
        help="probability from which a call needs a person (0.85, chosen by leave-one-set-out "
        "validation on outside sets; see docs/tool-calls.md)",
    )
    cmd.set_defaults(func=checks_train_command)
