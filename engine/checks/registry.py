"""The registry of local checks and ``run_checks``, which turns their hits into findings."""

from __future__ import annotations

import logging
from collections.abc import Collection, Sequence
from dataclasses import replace

import msgspec

from humangr.contracts import ActionContext, Finding, FindingSource, LayerID, Severity

from .base import Check, CheckInput, Hit
from .coverage import not_reviewed
from .options import DEFAULT_OPTIONS, CheckOptions
from .table import CHECKS
from .tools.call_shape import inner_calls

__all__ = ["CHECKS", "checks_markdown", "run_checks"]

log = logging.getLogger(__name__)


_MAX_PATH = 512


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _path(path: str | None) -> str | None:
    if not path:
        return None
    return path if len(path) <= _MAX_PATH else "…" + path[-(_MAX_PATH - 1) :]


def _failure(what: str, exc: BaseException | str) -> Hit:
    problem = exc if isinstance(exc, str) else f"{type(exc).__name__}: {exc}"
    return Hit(
        severity=Severity.HIGH,
        title=f"Local check {what} failed",
        description=_clip(
            f"The deterministic check {what} could not run ({problem}), so its findings are "
            "missing and the change must not pass on its results. This is a bug in HUMANGR's "
            "local checks.",
            2_000,
        ),
        suggestion="Review the change by hand and report the failing input.",
    )


def _bind(hit: Hit, ctx: CheckInput | None) -> Hit:
    """A hit on a file made from a tool call's argument names that argument (and keeps the
    path only when it is a real file the call writes)."""
    if ctx is None or ctx.tool is None or hit.argument is not None or hit.file is None:
        return hit
    found = ctx.tool_files.argument_at(hit.file, hit.line)
    if found is None:
        return hit
    argument, line = found
    if hit.file in ctx.tool_files.pseudo:
        return replace(hit, argument=argument, file=None, line=line)
    return replace(hit, argument=argument)


def _findings(
    layer: LayerID, rule: str, hits: list[Hit], ctx: CheckInput | None = None
) -> list[Finding]:
    best: dict[tuple[str | None, str | None, int | None], Hit] = {}
    for h in (_bind(h, ctx) for h in hits):
        key = (h.argument, h.file, h.line)
        if key not in best or h.severity > best[key].severity:
            best[key] = h
    ordered = sorted(best.values(), key=lambda h: (h.argument or "", h.file or "", h.line or 0))
    tool = ctx.tool.name if ctx is not None and ctx.tool is not None else None
    return [
        Finding(
            id=f"{layer.value}-R-{rule}-{n}"[:128],
            layer_id=layer,
            severity=h.severity,
            title=_clip(h.title, 200) or "local check",
            description=_clip(h.description, 20_000),
            suggestion=_clip(h.suggestion, 2_000) if h.suggestion is not None else None,
            file=_path(h.file),
            line=h.line if h.line is not None and h.line >= 0 else None,
            source=FindingSource.RULES,
            votes=1,
            argument=_clip(h.argument, 128) if h.argument else None,
            tool=tool if h.argument else None,
        )
        for n, h in enumerate(ordered, start=1)
    ]


def _layers(layers: Collection[LayerID] | None) -> list[LayerID]:
    if layers is None:
        return list(LayerID)
    out: list[LayerID] = []
    for x in layers:
        try:
            lid = LayerID(x)
        except ValueError:
            log.error("run_checks: unknown layer %r ignored", x)
            continue
        if lid not in out:
            out.append(lid)
    return out


def run_checks(
    action: ActionContext,
    layers: Collection[LayerID] | None = None,
    *,
    checks: Sequence[Check] = CHECKS,
    options: CheckOptions = DEFAULT_OPTIONS,
    local_only: bool = False,
) -> dict[LayerID, list[Finding]]:
    """Run the local checks of ``layers`` (all by default) on one action. Never raises.

    Every requested layer is a key, possibly with no findings. A check that crashes is logged
    and yields one high finding "Local check <id> failed" in its layer (fail closed: the
    change then needs a human). ``local_only``: no LLM reviews the action, so each part of it
    no local check reads is a high finding "Not reviewed by any local check" (``coverage``;
    HL4 first), and the action needs a human at least.
    """
    wanted = _layers(layers)
    out = _run(action, wanted, checks, options, local_only, depth=0, budget=_Budget())
    return out


_MAX_DEPTH = 2
"""How many shapes deep a call is read again (a JSON text in a wrapper object: two)."""
_SHAPE_BUDGET = 262_144
"""Characters of a call's other shapes read again, at least (more for a larger call: three
times what its own arguments hold, enough for a JSON body read at both depths). Readings
past it are reported, never silently skipped: a hostile nest of JSON texts would otherwise
multiply the work of one call many times."""


class _Budget:
    """What is left to read again of one call's other shapes (set at the first reading)."""

    __slots__ = ("left",)

    def __init__(self) -> None:
        self.left: int | None = None


def _run(
    action: ActionContext,
    wanted: list[LayerID],
    checks: Sequence[Check],
    options: CheckOptions,
    local_only: bool,
    depth: int,
    budget: _Budget,
) -> dict[LayerID, list[Finding]]:
    out: dict[LayerID, list[Finding]] = {lid: [] for lid in wanted}
    try:
        ctx = CheckInput(action, options)
    except Exception as exc:
        log.error("local checks: could not read the action", exc_info=True)
        _whole_failure(out, wanted, checks, "input", _failure("input", exc))
        return out
    blocked = False
    for check in checks:
        if check.layer not in out or (check.fallback and (blocked or not local_only)):
            continue
        try:
            hits = list(check.run(ctx))
        except Exception as exc:
            log.error("local check %s (%s) failed", check.id, check.layer.value, exc_info=True)
            hits = [_failure(check.id, exc)]
        if hits:
            found = _findings(check.layer, check.id, hits, ctx)
            out[check.layer].extend(found)
            blocked = blocked or any(f.severity >= Severity.HIGH for f in found)
    if ctx.parse.error is not None:
        _whole_failure(out, wanted, checks, "diff", _failure("diff", ctx.parse.error))
    if action.tool_call is not None and depth < _MAX_DEPTH:
        _inner(out, action, wanted, checks, options, depth, budget)
    if local_only and depth == 0:
        _not_reviewed(out, ctx)
    return out


def _inner(
    out: dict[LayerID, list[Finding]],
    action: ActionContext,
    wanted: list[LayerID],
    checks: Sequence[Check],
    options: CheckOptions,
    depth: int,
    budget: _Budget,
) -> None:
    """The findings (high and above) of the other readings of the call's shape
    (``call_shape.inner_calls``), bound to the outer argument they come from, within the
    call's ``budget`` of characters read again."""
    assert action.tool_call is not None
    try:
        readings = inner_calls(action.tool_call)
    except Exception as exc:
        log.error("local checks: could not read the call's shape", exc_info=True)
        _whole_failure(out, wanted, checks, "shape", _failure("call-shape", exc))
        return
    if readings and budget.left is None:
        budget.left = max(_SHAPE_BUDGET, 3 * len(_ENCODE(action.tool_call.arguments)))
    for argument, how, call in readings:
        size = len(_ENCODE(call.arguments))
        if budget.left is None or size > budget.left:
            _whole_failure(out, wanted, checks, "shape", _unread_shape(argument, how))
            return
        budget.left -= size
        inner = msgspec.structs.replace(action, tool_call=call)
        found = _run(inner, wanted, checks, options, False, depth + 1, budget)
        for lid, findings in found.items():
            titles = {f.title for f in out[lid]}
            for f in findings:
                if f.severity < Severity.HIGH or f.title in titles:
                    continue
                titles.add(f.title)
                out[lid].append(
                    msgspec.structs.replace(
                        f,
                        id=f"{f.id}-as-{argument}"[:128],
                        description=_clip(
                            f"Read with argument `{argument}` {how}: {f.description}", 20_000
                        ),
                        argument=_clip(argument, 128),
                    )
                )


_ENCODE = msgspec.json.Encoder().encode


def _unread_shape(argument: str, how: str) -> Hit:
    return Hit(
        Severity.HIGH,
        "call not read in all its shapes",
        f"Argument `{argument}` read {how} would have the checks read more of this call again "
        f"than one call may ask ({_SHAPE_BUDGET:,} characters, or three times its size): that "
        "reading, and any after it, was not checked.",
        "Send the tool's arguments as plain values, not JSON texts nested in one another.",
        argument=_clip(argument, 128),
    )


_COVERAGE_LAYERS = (LayerID.HL4, LayerID.HL6, LayerID.HL2, LayerID.HL3, LayerID.HL5)
"""Where "not reviewed" goes: the first requested layer that can veto at least medium."""


def _not_reviewed(out: dict[LayerID, list[Finding]], ctx: CheckInput) -> None:
    try:
        hits = not_reviewed(ctx)
    except Exception as exc:
        log.error("local check coverage failed", exc_info=True)
        hits = [_failure("coverage", exc)]
    layer = next((lid for lid in _COVERAGE_LAYERS if lid in out), next(iter(out), None))
    if hits and layer is not None:
        out[layer].extend(_findings(layer, "not-reviewed", hits, ctx))


def _whole_failure(
    out: dict[LayerID, list[Finding]],
    wanted: list[LayerID],
    checks: Sequence[Check],
    rule: str,
    hit: Hit,
) -> None:
    """A failure that concerns every check is reported once (HL4 first): one human review."""
    layer = (
        LayerID.HL4
        if LayerID.HL4 in out
        else next((lid for lid in wanted if any(c.layer == lid for c in checks)), None)
    )
    if layer is not None:
        out[layer].extend(_findings(layer, rule, [hit]))


def checks_markdown(checks: Sequence[Check] = CHECKS) -> str:
    """The documentation table of the checks: layer, id, what, source, severity, the class a
    check claims to find and what it does not cover."""
    rows = [
        "| layer | check | what it finds | source | severity | claimed class | not covered |",
        "|---|---|---|---|---|---|---|",
    ]
    for c in checks:
        rows.append(
            f"| {c.layer.value} | `{c.id}` | {c.name} | {c.source} | {c.severity} | "
            f"{c.claim or '—'} | {c.limits or '—'} |"
        )
    return "\n".join(rows) + "\n"
