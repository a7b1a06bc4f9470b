"""Pure helpers of the pipeline Supervisor: envelopes, excerpts, diffs and hand-off targets."""

from __future__ import annotations

import difflib
from collections.abc import Mapping, Sequence

from humangr.contracts import (
    AgentName,
    AgentResult,
    ArtifactRef,
    Finding,
    HumanLayerReport,
    MessageEnvelope,
    ResponseStatus,
    WorkOrder,
)

from .orders import DEV_MODE, QA_MODE

__all__ = [
    "EXCERPT_CHARS",
    "RESERVED_PREFIX",
    "TOTAL_EXCERPT_CHARS",
    "build_envelope",
    "code_refs_of",
    "excerpt_key",
    "failure_reason",
    "handoff_report",
    "handoff_target",
    "relevant_paths",
    "review_diff",
    "review_findings",
    "summarize",
]

RESERVED_PREFIX = "docs/monitor/"
"""Written by the Monitor and the audit log only; an agent's artifact there is refused."""
EXCERPT_CHARS = 16_000
TOTAL_EXCERPT_CHARS = 96_000
MAX_INPUTS = 32
MAX_EXISTING = 200
MAX_KEY = 128

_RELEVANT: Mapping[str, tuple[str, ...]] = {
    "generate_engineering_docs": ("docs/spec/",),
    "validate_engineer_docs": ("docs/spec/", "docs/engineer/"),
    "generate_backlog": ("docs/spec/", "docs/engineer/"),
    "validate_backlog": ("docs/spec/", "docs/pm/"),
    DEV_MODE: ("docs/spec/", "docs/engineer/engineer_architecture.md"),
    QA_MODE: ("docs/spec/",),
}
_NEXT: Mapping[tuple[str, ResponseStatus], AgentName] = {
    ("spec_intake_and_normalize", ResponseStatus.OK): AgentName.ENGINEER,
    ("generate_engineering_docs", ResponseStatus.OK): AgentName.CTO,
    ("validate_engineer_docs", ResponseStatus.OK): AgentName.PM,
    ("validate_engineer_docs", ResponseStatus.REVISION): AgentName.ENGINEER,
    ("generate_backlog", ResponseStatus.OK): AgentName.CTO,
    ("validate_backlog", ResponseStatus.OK): AgentName.DEV,
    ("validate_backlog", ResponseStatus.REVISION): AgentName.PM,
    (QA_MODE, ResponseStatus.QA_FAIL): AgentName.DEV,
}


def code_refs_of(order: WorkOrder) -> list[str]:
    """The paths listed in ``inputs.code_refs`` (one per line)."""
    text = order.inputs.get("code_refs", "")
    return [line.strip() for line in text.splitlines() if line.strip()]


def relevant_paths(order: WorkOrder, existing: Sequence[str]) -> list[str]:
    """The existing files whose excerpts the agent gets: its code refs first, then the docs
    its mode needs (never the Monitor's own files)."""
    prefixes = _RELEVANT.get(order.mode, ())
    wanted = [p for p in code_refs_of(order) if p in existing]
    wanted += [p for p in existing if p.startswith(prefixes) and not p.startswith(RESERVED_PREFIX)]
    return list(dict.fromkeys(wanted))


def excerpt_key(path: str) -> str | None:
    """The ``inputs`` key of a file excerpt: the path itself, which the prompt bundle shows
    as an existing-artifact excerpt; ``None`` when the path is too long to be a key."""
    return path if len(path) <= MAX_KEY else None


def summarize(text: str) -> str:
    """A one-line summary of a file: its first heading or first non-empty line."""
    for line in text.splitlines():
        if line.strip():
            return f"{line.strip()[:160]} ({len(text)} chars)"
    return f"empty ({len(text)} chars)"


def build_envelope(
    order: WorkOrder,
    *,
    request_id: str,
    files: Mapping[str, str],
    relevant: Sequence[str],
    extra: Mapping[str, str] | None = None,
) -> MessageEnvelope:
    """The agent's ``MessageEnvelope``: the order's inputs, ``extra`` (e.g. a write error),
    excerpts of the ``relevant`` files within the budget, and every file as a reference."""
    inputs = {**order.inputs, **(extra or {})}
    budget = TOTAL_EXCERPT_CHARS
    for path in relevant:
        if len(inputs) >= MAX_INPUTS or budget <= 0:
            break
        key = excerpt_key(path)
        if key is None or path not in files:
            continue
        text = files[path]
        cut = min(EXCERPT_CHARS, budget)
        inputs[key] = text if len(text) <= cut else text[:cut] + "\n… (truncated)"
        budget -= min(len(text), cut)
    order_of = {path: index for index, path in enumerate(relevant)}
    listed = sorted(files, key=lambda path: order_of.get(path, len(order_of)))[:MAX_EXISTING]
    refs = [ArtifactRef(path=path, summary=summarize(files[path])) for path in listed]
    return MessageEnvelope(
        request_id=request_id,
        project_id=order.project_id,
        agent=order.agent,
        variant=order.variant,
        mode=order.mode,
        task_id=order.task_id,
        task=order.task,
        inputs=inputs,
        existing_artifacts=refs,
        limits=order.limits,
        attempt=order.attempt,
    )


def handoff_target(result: AgentResult) -> AgentName:
    """Who the work goes to next, as the Supervisor sees it (the Monitor decides)."""
    status = result.envelope.status
    if status is ResponseStatus.NEEDS_INFO:
        owner = result.envelope.next_actions.owner.strip().lower()
        if owner in AgentName.__members__.values():
            return AgentName(owner)
    return _NEXT.get((result.mode, status), AgentName.MONITOR)


def failure_reason(result: AgentResult) -> str:
    """Why a result cannot go on: validation errors, breaker, questions or the summary."""
    envelope = result.envelope
    parts: list[str] = []
    if result.breaker_open:
        parts.append("circuit breaker open")
    if result.validation_errors:
        parts.append("validation failed: " + "; ".join(result.validation_errors[:10]))
    if envelope.next_actions.questions:
        parts.append("questions: " + " | ".join(envelope.next_actions.questions))
    if envelope.summary:
        parts.append(envelope.summary)
    return " — ".join(parts)[:20_000] or f"{result.agent} answered {envelope.status}"


def review_diff(artifacts: Sequence[tuple[str, str]], current: Mapping[str, str]) -> str:
    """A git-style unified diff of the Dev's artifacts (``(path, content)``) against the
    ``current`` contents of the files that exist (new files diff against ``/dev/null``)."""
    chunks: list[str] = []
    for path, content in artifacts:
        old = current.get(path)
        new_lines = content.splitlines()
        header = [f"diff --git a/{path} b/{path}"]
        if old is None:
            header.append("new file mode 100644")
        body = difflib.unified_diff(
            [] if old is None else old.splitlines(),
            new_lines,
            fromfile="/dev/null" if old is None else f"a/{path}",
            tofile=f"b/{path}",
            lineterm="",
        )
        lines = list(body)
        if lines:
            chunks.append("\n".join(header + lines))
    return "\n".join(chunks) + "\n" if chunks else ""


def review_findings(report: HumanLayerReport, limit: int = 500) -> list[Finding]:
    """Every merged finding of the decision, most severe first."""
    findings = [f for result in report.layer_results.values() for f in result.merged_findings]
    findings.sort(key=lambda f: f.severity.rank, reverse=True)
    return findings[:limit]


def handoff_report(order: WorkOrder, result: AgentResult) -> str:
    """The text the next agent acts on: the QA report, or a CTO's revision list."""
    contents = {a.path: a.content for a in result.envelope.artifacts}
    if order.mode == QA_MODE:
        return contents.get(f"docs/qa/QA_REPORT_{order.task_id}.md", "")
    if result.envelope.status is ResponseStatus.REVISION:
        items = "\n".join(f"- {item}" for item in result.envelope.next_actions.items)
        return "\n\n".join(part for part in (items, *contents.values()) if part)
    return ""
