"""Decisions rendered for people (text, markdown) and machines (json)."""

from __future__ import annotations

from humangr.contracts import HumanLayerReport, LayerStatus, Outcome, encode
from humangr.engine.review import LAYERS

__all__ = ["EXIT_CODES", "render"]

EXIT_CODES = {Outcome.APPROVED: 0, Outcome.NEEDS_REVIEW: 1, Outcome.REJECTED: 2}


def _where(file: str | None, line: int | None) -> str:
    if file and line is not None:
        return f" ({file}:{line})"
    return f" ({file})" if file else ""


def render_text(name: str, report: HumanLayerReport, note: str) -> str:
    lines = [
        f"{name}: {report.outcome.value.upper()} (veto {report.final_veto_level.value})",
        f"  report {report.report_id}  action_hash {report.action_hash[:16]}…  {note}",
        *(f"  policy: {policy_note}" for policy_note in report.policy_notes),
    ]
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
                f"      [{finding.severity.value}] {finding.title}"
                f"{_where(finding.file, finding.line)} ({finding.source.value})"
            )
    for reason in report.blocking_reasons:
        lines.append(f"  ! {reason}")
    return "\n".join(lines)


def render_markdown(name: str, report: HumanLayerReport, note: str) -> str:
    lines = [
        f"## {name}: **{report.outcome.value}** (veto {report.final_veto_level.value})",
        "",
        f"Report `{report.report_id}`, action hash `{report.action_hash}`. {note}.",
        *(f"Policy: {policy_note}." for policy_note in report.policy_notes),
        "",
        "| layer | status | veto | findings |",
        "|---|---|---|---|",
    ]
    for lid, result in sorted(report.layer_results.items()):
        titles = "; ".join(
            f"{f.severity.value}: {f.title}{_where(f.file, f.line)}" for f in result.merged_findings
        )
        lines.append(
            f"| {lid} {LAYERS[lid].name} | {result.status.value} | {result.veto_level.value} "
            f"| {titles.replace('|', '/') or '—'} |"
        )
    if report.blocking_reasons:
        lines += ["", *[f"- {reason}" for reason in report.blocking_reasons]]
    return "\n".join(lines)


def render(fmt: str, name: str, report: HumanLayerReport, note: str) -> str:
    if fmt == "json":
        return encode(report).decode()
    if fmt == "markdown":
        return render_markdown(name, report, note)
    return render_text(name, report, note)
