"""Decisions and human reviews rendered for people (text, markdown) and machines (json)."""

from __future__ import annotations

from datetime import datetime

from humangr.contracts import (
    ActionContext,
    Finding,
    HumanLayerReport,
    LayerStatus,
    Outcome,
    ReviewDetail,
    ReviewListing,
    encode,
)
from humangr.contracts.types import utc_now
from humangr.engine.review import LAYERS
from humangr.engine.tool_render import argument_label

from .diff import printable
from .tool import action_with_findings, call_summary, call_summary_markdown

__all__ = ["EXIT_CODES", "render", "render_detail", "render_listing", "span", "suppressed"]

EXIT_CODES = {Outcome.APPROVED: 0, Outcome.NEEDS_REVIEW: 1, Outcome.REJECTED: 2}


def _where(file: str | None, line: int | None) -> str:
    if file and line is not None:
        return f" ({file}:{line})"
    return f" ({file})" if file else ""


def _headline(finding: Finding, tool: str | None) -> str:
    """``argument `command` of bash: title (line 3)`` or ``title (file:line)``: raw text."""
    where = _where(finding.file, finding.line)
    if not where and finding.argument and finding.line is not None and finding.line > 1:
        where = f" (line {finding.line})"
    return f"{argument_label(finding, tool)}{finding.title}{where}"


def _tool(action: ActionContext | None) -> str | None:
    return action.tool_call.name if action is not None and action.tool_call else None


def cost_line(report: HumanLayerReport) -> str | None:
    """``cost: 17 LLM calls of 21 planned (saved: adaptive 4), about $0.0412``; ``None`` when
    no LLM review was planned."""
    cost = report.cost
    if not cost.calls_planned:
        return None
    saved = [
        f"{why} {count}"
        for why, count in (
            ("rules", cost.saved_by_rules),
            ("adaptive", cost.saved_by_adaptive),
            ("early exit", cost.saved_by_early_exit),
        )
        if count
    ]
    text = f"cost: {cost.calls} LLM calls of {cost.calls_planned} planned"
    if saved:
        text += f" (saved: {', '.join(saved)})"
    text += f", about ${cost.estimated_usd:.4f}"
    if cost.unpriced_models:
        text += f" (no price for {', '.join(cost.unpriced_models)})"
    return text


def render_text(
    name: str, report: HumanLayerReport, note: str, action: ActionContext | None = None
) -> str:
    """A decision for a terminal; with ``action``, its tool call in a few lines too."""
    tool = _tool(action)
    lines = [
        f"{name}: {report.outcome.value.upper()} (veto {report.final_veto_level.value})",
        f"  report {report.report_id}  action {report.action_id}  action_hash "
        f"{report.action_hash[:16]}…  {note}",
        *(f"  policy: {policy_note}" for policy_note in report.policy_notes),
        *([f"  decided by {printable(report.decided_by)}"] if report.decided_by else []),
    ]
    cost = cost_line(report)
    if cost is not None:
        lines.append(f"  {cost}")
    if report.resolved_by:
        lines.append(f"  resolved by {printable(report.resolved_by)}: {_reason(report)}")
    if report.signer:
        lines.append(f"  signed by {printable(report.signer)}")
    if action is not None and action.tool_call is not None:
        lines.extend(call_summary(action.tool_call))
    for lid, result in sorted(report.layer_results.items()):
        spec = LAYERS[lid]
        extra = " local checks only" if result.local_only else ""
        if result.status is LayerStatus.ERROR and result.error:
            extra += f" — {result.error}"
        if result.dissent:
            extra += " — dissent"
        lines.append(
            f"  {lid} {spec.name:<14} {result.status.value:<5} veto {result.veto_level.value}"
            f"{extra}"
        )
        for finding in result.merged_findings:
            lines.append(
                f"      [{finding.severity.value}] {printable(_headline(finding, tool))} "
                f"({finding.source.value}){suppressed(finding)}"
            )
    for reason in report.blocking_reasons:
        lines.append(f"  ! {printable(reason)}")
    return "\n".join(lines)


def suppressed(finding: Finding) -> str:
    """`` — suppressed by <id>: <reason>`` for a finding the policy suppressed, else ``""``."""
    if not finding.suppressed_by:
        return ""
    why = printable(finding.suppression_reason)
    return f" — suppressed by {printable(finding.suppressed_by)}: {why}"


def _reason(report: HumanLayerReport) -> str:
    return printable(report.resolution_reason or "no reason given")


def _md(text: str, *, cell: bool = True) -> str:
    """Raw text for markdown: printable, no HTML (and in a table ``cell``, no cell break)."""
    text = printable(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return text.replace("|", "/") if cell else text


def render_markdown(
    name: str, report: HumanLayerReport, note: str, action: ActionContext | None = None
) -> str:
    """A decision in markdown; with ``action``, its tool call as a list too."""
    tool = _tool(action)
    lines = [
        f"## {name}: **{report.outcome.value}** (veto {report.final_veto_level.value})",
        "",
        f"Report `{report.report_id}`, action hash `{report.action_hash}`. {note}.",
        *(f"Policy: {policy_note}." for policy_note in report.policy_notes),
        *([f"Decided by {_md(report.decided_by)}."] if report.decided_by else []),
        *([f"{cost_line(report)}."] if cost_line(report) else []),
        "",
    ]
    if action is not None and action.tool_call is not None:
        lines += [*call_summary_markdown(action.tool_call), ""]
    lines += [
        "| layer | status | veto | findings |",
        "|---|---|---|---|",
    ]
    for lid, result in sorted(report.layer_results.items()):
        titles = "; ".join(
            f"{f.severity.value}: {_md(_headline(f, tool) + suppressed(f))}"
            for f in result.merged_findings
        )
        lines.append(
            f"| {lid} {LAYERS[lid].name} | {result.status.value} | {result.veto_level.value} "
            f"| {titles or '—'} |"
        )
    if report.blocking_reasons:
        lines += ["", *[f"- {_md(reason, cell=False)}" for reason in report.blocking_reasons]]
    return "\n".join(lines)


def render(
    fmt: str, name: str, report: HumanLayerReport, note: str, action: ActionContext | None = None
) -> str:
    """``report`` as ``json`` (the contract), ``markdown`` or ``text``; ``action``, when known,
    adds its tool call to the last two."""
    if fmt == "json":
        return encode(report).decode()
    if fmt == "markdown":
        return render_markdown(name, report, note, action)
    return render_text(name, report, note, action)


def span(seconds: float) -> str:
    """A duration for people: ``45s``, ``12m``, ``3h05m``, ``2d04h``."""
    s = int(max(seconds, 0))
    if s < 60:
        return f"{s}s"
    if s < 3600:
        return f"{s // 60}m"
    if s < 86400:
        return f"{s // 3600}h{s % 3600 // 60:02d}m"
    return f"{s // 86400}d{s % 86400 // 3600:02d}h"


def _left(deadline: datetime, now: datetime) -> str:
    seconds = (deadline - now).total_seconds()
    return f"{span(seconds)} left" if seconds > 0 else f"overdue by {span(-seconds)}"


def render_listing(listing: ReviewListing, where: str, *, now: datetime | None = None) -> str:
    """The pending reviews, one block each: id, agent, findings, age, time left, reasons."""
    now = now or utc_now()
    if not listing.reviews:
        return f"no reviews pending {where}"
    count = len(listing.reviews)
    lines = [f"{count} review{'s' if count > 1 else ''} pending {where}, oldest deadline first"]
    for review in listing.reviews:
        findings = f"{review.findings} finding{'' if review.findings == 1 else 's'}"
        lines.append(
            f"{review.action_id}  agent {review.agent_id}  {printable(review.action_type)}  "
            f"{findings}  age {span((now - review.decided_at).total_seconds())}  "
            f"{_left(review.deadline, now)}"
        )
        first = review.action_description.strip().splitlines()[:1]
        lines.extend(f"  {printable(text)[:200]}" for text in first)
        lines.extend(f"  ! {printable(reason)}" for reason in review.blocking_reasons)
    return "\n".join(lines)


def _status(detail: ReviewDetail, now: datetime) -> str:
    report, final = detail.report, detail.final
    if final is not None:
        by = printable(final.resolved_by or "?")
        return (
            f"{final.outcome.value.upper()} by {by} (was {report.outcome.value}): {_reason(final)}"
        )
    if detail.pending:
        when = f" (deadline {detail.deadline:%Y-%m-%d %H:%M:%S} UTC, " if detail.deadline else " ("
        left = _left(detail.deadline, now) if detail.deadline else "no deadline known"
        return f"{report.outcome.value.upper()}: waiting for a human{when}{left})"
    return f"{report.outcome.value.upper()} (no review pending)"


def render_detail(detail: ReviewDetail, where: str, *, now: datetime | None = None) -> str:
    """One review: where it stands, the action, the layers, then the diff with each finding
    under the line it points at."""
    now = now or utc_now()
    report, action = detail.report, detail.action
    lines = [
        f"{report.action_id}: {_status(detail, now)}",
        f"  agent {report.agent_id}  report {report.report_id}  action_hash "
        f"{report.action_hash}  decided {report.decided_at:%Y-%m-%d %H:%M:%S} UTC  {where}",
    ]
    if action is not None:
        files = ", ".join(printable(path) for path in action.affected_files[:20])
        more = len(action.affected_files) - 20
        files += f" and {more} more" if more > 0 else ""
        lines.append(f"  {printable(action.action_type)}" + (f" on {files}" if files else ""))
        lines.extend(f"  | {printable(text)}" for text in action.action_description.splitlines())
    lines.extend(f"  policy: {printable(note)}" for note in report.policy_notes)
    if report.decided_by:
        lines.append(f"  decided by {printable(report.decided_by)}")
    lines.extend(f"  ! {printable(reason)}" for reason in report.blocking_reasons)
    findings = []
    for lid, result in sorted(report.layer_results.items()):
        error = f" — {printable(result.error)}" if result.error else ""
        lines.append(
            f"  {lid} {LAYERS[lid].name:<14} {result.status.value:<5} veto "
            f"{result.veto_level.value}{' local checks only' if result.local_only else ''}"
            f"{error}"
        )
        findings.extend(result.merged_findings)
    return "\n".join([*lines, "", *action_with_findings(action, findings)])
