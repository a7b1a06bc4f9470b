"""``checks-eval`` output for tool-call corpora (text and JSON) and their recorded minimums.

The minimums of tool calls sit under ``tool_calls`` in the minimums file::

    {"tool_calls": {"overall": {"dangerous_stopped": 0.95, "everyday_accepted": 0.95},
                    "kinds": {"shell": {"dangerous_stopped": 0.98, "expected_matched": 0.9}},
                    "categories": {"shell/reverse-shell": {"dangerous_stopped": 1.0}}}}

Every metric (``dangerous_stopped``, ``everyday_accepted``, ``expected_matched``) is a minimum.
"""

from __future__ import annotations

import json
from typing import Any

import msgspec

from humangr.engine.errors import ConfigError

from .tool_scoring import TOOL_METRICS, GroupScore, ToolResult, ToolScores

__all__ = [
    "TOOL_MINIMUM_GROUPS",
    "metric_table",
    "misses_text",
    "shown_call",
    "tool_minimums",
    "tool_shortfalls",
    "tools_json",
    "tools_text",
]

TOOL_MINIMUM_GROUPS = ("overall", "kinds", "categories")
_SHOWN_CALL = 200


def _pct(x: float | None) -> str:
    return "—" if x is None else f"{x * 100:.0f} %"


def _group_json(g: GroupScore) -> dict[str, Any]:
    return {
        "dangerous": g.dangerous,
        "everyday": g.everyday,
        **{m: g.metric(m) for m in TOOL_METRICS},
    }


def shown_call(r: ToolResult, limit: int = _SHOWN_CALL) -> str:
    """The call in one line: its name and its arguments as JSON, shortened."""
    args = json.dumps(msgspec.to_builtins(r.case.call.arguments), ensure_ascii=False)
    text = f"{r.case.call.name} {args}".replace("\n", "\\n")
    return text if len(text) <= limit else text[: limit - 1] + "…"


def tools_json(scores: ToolScores) -> dict[str, Any]:
    """The tool-call scores as JSON-ready data, every case with its outcome."""
    return {
        "overall": _group_json(scores.overall),
        "kinds": {g.name: _group_json(g) for g in scores.kinds},
        "categories": {g.name: _group_json(g) for g in scores.categories},
        "p50_ms": scores.p50_ms,
        "p99_ms": scores.p99_ms,
        "cases": [
            {
                "line": r.case.line,
                "tool": msgspec.to_builtins(r.case.call),
                "category": r.case.category,
                "label": r.case.label,
                "expect": r.case.expect.value,
                "outcome": r.outcome.value,
                "why": r.case.why,
                "findings": list(r.findings),
                "reasons": list(r.reasons),
            }
            for r in scores.results
        ],
    }


def _row(g: GroupScore) -> str:
    return (
        f"{g.name:<12} {g.dangerous:>9} {g.everyday:>8}  {_pct(g.dangerous_stopped):>7}  "
        f"{_pct(g.everyday_accepted):>8}  {_pct(g.expected_matched):>8}"
    )


def _miss(r: ToolResult) -> list[str]:
    lines = [
        f"  line {r.case.line} {r.case.category}: {r.outcome.value}, expected "
        f"{r.case.expect.value}: {shown_call(r)}",
        f"      why: {r.case.why}",
    ]
    lines += [f"      found: {f}" for f in r.findings[:4]]
    return lines


def misses_text(scores: ToolScores) -> list[str]:
    """The cases that went wrong, grouped: dangerous calls approved, everyday calls stopped,
    and stopped dangerous calls given another outcome than expected."""
    groups = (
        (
            "dangerous calls approved (they would run)",
            [r for r in scores.results if r.case.dangerous and not r.stopped],
        ),
        (
            "everyday calls stopped",
            [r for r in scores.results if not r.case.dangerous and r.stopped],
        ),
        (
            "dangerous calls stopped with another outcome than expected",
            [r for r in scores.results if r.case.dangerous and r.stopped and not r.matched],
        ),
    )
    out: list[str] = []
    for title, rows in groups:
        if rows:
            out += ["", f"{title}: {len(rows)}"]
            for r in rows:
                out += _miss(r)
    return out


def tools_text(scores: ToolScores) -> str:
    """A table per kind, the overall figures, the time per call and every miss with its why."""
    rows = [
        "tool calls, decided by the local checks alone (no LLM); stopped = not approved",
        "kind         dangerous everyday  stopped  accepted  expected",
        *(_row(g) for g in scores.kinds),
        _row(scores.overall),
    ]
    if scores.p50_ms is not None:
        rows.append(f"time per call: p50 {scores.p50_ms:.2f} ms, p99 {scores.p99_ms:.2f} ms")
    rows += misses_text(scores)
    return "\n".join(rows)


def metric_table(
    obj: object, where: str, names: tuple[str, ...], *, low: float = 0.0
) -> dict[str, float]:
    """A minimums file's object of metrics, each named in ``names`` and a number within
    ``low``..1 (else a ``ConfigError`` naming where)."""
    if not isinstance(obj, dict):
        raise ConfigError(f"{where}: must be an object of metrics ({', '.join(names)})")
    out: dict[str, float] = {}
    for key, value in obj.items():
        if key not in names:
            raise ConfigError(f"{where}: unknown metric {key!r} ({', '.join(names)})")
        if isinstance(value, bool) or not isinstance(value, int | float) or not low <= value <= 1:
            raise ConfigError(f"{where}.{key}: must be a number between {low:g} and 1")
        out[key] = float(value)
    return out


def _metrics(obj: object, where: str) -> dict[str, float]:
    return metric_table(obj, where, TOOL_METRICS)


def tool_minimums(obj: object, where: str) -> dict[str, dict[str, dict[str, float]]]:
    """The ``tool_calls`` part of a minimums file, validated: ``{"overall": {"": metrics},
    "kinds": {kind: metrics}, "categories": {category: metrics}}``."""
    if not isinstance(obj, dict) or set(obj) - set(TOOL_MINIMUM_GROUPS):
        raise ConfigError(f"{where}: expected an object with {', '.join(TOOL_MINIMUM_GROUPS)}")
    out: dict[str, dict[str, dict[str, float]]] = {
        "overall": {"": _metrics(obj.get("overall", {}), f"{where}.overall")}
    }
    for group in ("kinds", "categories"):
        named = obj.get(group, {})
        if not isinstance(named, dict):
            raise ConfigError(f"{where}.{group}: must map names to metrics")
        out[group] = {k: _metrics(v, f"{where}.{group}.{k}") for k, v in named.items()}
    return out


def tool_shortfalls(
    scores: ToolScores | None, minimums: dict[str, dict[str, dict[str, float]]]
) -> list[str]:
    """Every recorded tool-call minimum the scores fall below."""
    wanted = [
        ("overall", "", bounds) for bounds in [minimums.get("overall", {}).get("", {})] if bounds
    ]
    for group in ("kinds", "categories"):
        wanted += [(group, k, v) for k, v in minimums.get(group, {}).items() if v]
    if not wanted:
        return []
    if scores is None:
        return ["tool calls: not in the corpus"]
    tables: dict[str, dict[str, GroupScore]] = {
        "overall": {"": scores.overall},
        "kinds": {g.name: g for g in scores.kinds},
        "categories": {g.name: g for g in scores.categories},
    }
    titles = {
        "overall": "tool calls overall",
        "kinds": "tool calls of kind",
        "categories": "tool calls of category",
    }
    out: list[str] = []
    for group, key, bounds in wanted:
        title = f"{titles[group]} {key}".rstrip()
        got = tables[group].get(key)
        if got is None:
            out.append(f"{title}: not in the corpus")
            continue
        for metric, bound in bounds.items():
            value = got.metric(metric)
            if value is None:
                out.append(f"{title}: {metric} cannot be computed (no cases of that label)")
            elif value < bound - 1e-9:
                out.append(f"{title}: {metric} {value:.4f} below the recorded {bound:.4f}")
    return out
