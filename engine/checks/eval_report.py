"""``checks-eval`` output (text and JSON) and recorded minimum scores.

A minimums file is JSON::

    {"classes": {"sql-injection": {"recall": 1.0, "false_alarms": 0.0, "youden": 1.0}},
     "overall": {"youden": 0.9, "recall": 0.95, "false_alarms": 0.05,
                 "commits_not_approved": 0.0}}

``recall`` and ``youden`` are minimums, ``false_alarms`` and ``commits_not_approved`` maximums.
The minimums of a tool-call corpus sit under ``tool_calls`` (see ``tool_report``).
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

from humangr.engine.errors import ConfigError

from .scoring import ClassScore, Scores
from .tool_report import metric_table, tool_minimums, tool_shortfalls
from .tool_scoring import ToolScores

__all__ = ["load_minimums", "shortfalls", "to_json", "to_text"]

_METRICS = ("recall", "false_alarms", "youden", "commits_not_approved")
_MAXIMUMS = frozenset({"false_alarms", "commits_not_approved"})


def _pct(x: float | None) -> str:
    return "—" if x is None else f"{x * 100:.0f} %"


def _signed(x: float | None) -> str:
    return "—" if x is None else f"{x:+.2f}"


def to_json(scores: Scores) -> dict[str, Any]:
    """The scores as JSON-ready data."""
    return {
        "min_severity": scores.min_severity.value,
        "bandit": scores.bandit,
        "overall": scores.overall,
        "bandit_overall": scores.bandit_overall,
        "classes": {c.cls: _fields(c) for c in scores.classes},
        "cases": [
            {
                "file": r.case.file,
                "class": r.case.cls,
                "label": r.case.label,
                "flagged": r.flagged,
                "findings": list(r.titles),
                "bandit": r.bandit,
            }
            for r in scores.results
        ],
    }


def _fields(c: ClassScore) -> dict[str, Any]:
    return {f.name: getattr(c, f.name) for f in dataclasses.fields(c) if f.name != "cls"}


def to_text(scores: Scores) -> str:
    """A table per class, the overall figures and the cases that went wrong."""
    head = "class                 vuln safe  recall  false alarms  Youden"
    if scores.bandit:
        head += "   | bandit: recall  false alarms  Youden"
    rows = [
        f"flagged = a finding of the case's class at {scores.min_severity.value} or above",
        head,
    ]
    for c in scores.classes:
        row = (
            f"{c.cls:<21} {c.vulnerable:>4} {c.safe:>4}  {_pct(c.recall):>6}  "
            f"{_pct(c.false_alarms):>12}  {_signed(c.youden):>6}"
        )
        if scores.bandit:
            row += (
                f"   |         {_pct(c.bandit_recall):>6}  {_pct(c.bandit_false_alarms):>12}  "
                f"{_signed(c.bandit_youden):>6}"
            )
        rows.append(row)
    o, b = scores.overall, scores.bandit_overall
    rows.append("")
    rows.append(
        f"overall: Youden {_signed(o['youden'])}, recall {_pct(o['recall'])}, "
        f"false alarms {_pct(o['false_alarms'])}, commits not approved "
        f"{_pct(o['commits_not_approved'])}"
    )
    if b:
        rows.append(
            f"bandit:  Youden {_signed(b['youden'])}, recall {_pct(b['recall'])}, "
            f"false alarms {_pct(b['false_alarms'])}, commits not approved "
            f"{_pct(b['commits_not_approved'])}"
        )
    wrong = [r for r in scores.results if r.flagged != r.case.vulnerable]
    if wrong:
        rows.append("")
        for r in wrong:
            what = "missed" if r.case.vulnerable else "false alarm"
            detail = f": {'; '.join(r.titles)}" if r.titles else ""
            rows.append(f"{what}: {r.case.file} ({r.case.cls}){detail}")
    return "\n".join(rows)


def _metrics(obj: object, where: str) -> dict[str, float]:
    return metric_table(obj, where, _METRICS, low=-1.0)


def load_minimums(path: Path) -> dict[str, dict[str, dict[str, float]]]:
    """A minimums file, validated (``ConfigError`` names the problem). Tool-call minimums come
    back under ``tool_overall`` (``{"": metrics}``), ``tool_kinds`` and ``tool_categories``."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read the minimums ({exc.strerror or exc})") from None
    except ValueError as exc:
        raise ConfigError(f"{path}: not valid JSON ({exc})") from None
    if not isinstance(data, dict) or set(data) - {"classes", "overall", "tool_calls"}:
        raise ConfigError(f"{path}: expected an object with 'classes', 'overall', 'tool_calls'")
    classes = data.get("classes", {})
    if not isinstance(classes, dict):
        raise ConfigError(f"{path}: 'classes' must map class names to metrics")
    tools = tool_minimums(data.get("tool_calls", {}), f"{path}: tool_calls")
    return {
        "classes": {k: _metrics(v, f"{path}: classes.{k}") for k, v in classes.items()},
        "overall": {"": _metrics(data.get("overall", {}), f"{path}: overall")},
        "tool_overall": tools["overall"],
        "tool_kinds": tools["kinds"],
        "tool_categories": tools["categories"],
    }


def _code_shortfalls(
    scores: Scores | None, minimums: dict[str, dict[str, dict[str, float]]]
) -> list[str]:
    out: list[str] = []
    by_class = {c.cls: _fields(c) for c in scores.classes} if scores is not None else {}
    targets = [(f"class {k}", by_class.get(k), v) for k, v in minimums["classes"].items()]
    overall = minimums["overall"][""]
    if scores is not None or overall:
        targets.append(("overall", dict(scores.overall) if scores is not None else None, overall))
    for name, got, wanted in targets:
        if got is None:
            out.append(f"{name}: not in the corpus")
            continue
        for metric, bound in wanted.items():
            value = got.get(metric)
            if value is None:
                out.append(f"{name}: {metric} cannot be computed (no cases of that kind)")
            elif metric in _MAXIMUMS and value > bound + 1e-9:
                out.append(f"{name}: {metric} {value:.4f} above the recorded {bound:.4f}")
            elif metric not in _MAXIMUMS and value < bound - 1e-9:
                out.append(f"{name}: {metric} {value:.4f} below the recorded {bound:.4f}")
    return out


def shortfalls(
    scores: Scores | None,
    minimums: dict[str, dict[str, dict[str, float]]],
    tools: ToolScores | None = None,
) -> list[str]:
    """Every recorded minimum the scores fall below (or maximum they exceed): of the code cases
    (``scores``; None when the corpus has none) and of the tool calls (``tools``)."""
    tool_minimum = {
        "overall": minimums.get("tool_overall", {}),
        "kinds": minimums.get("tool_kinds", {}),
        "categories": minimums.get("tool_categories", {}),
    }
    return _code_shortfalls(scores, minimums) + tool_shortfalls(tools, tool_minimum)
