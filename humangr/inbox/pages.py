"""What the inbox's pages show, computed from the Supervisor's answers (raw text: the templates
escape it)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from urllib.parse import urlencode

from humangr.contracts import (
    ConsensusResult,
    Finding,
    HumanLayerReport,
    LayerID,
    ReviewDetail,
    ReviewSummary,
)
from humangr.contracts.types import is_token, utc_now
from humangr.engine.review import LAYERS
from humangr.engine.tool_render import ToolCallShown, split_findings, tool_call_shown
from humangr.render.text import span

from .diffview import DiffView, FileView, diff_view, file_view
from .forms import BadForm

__all__ = [
    "Filters",
    "HistoryEntry",
    "LayerRow",
    "ReviewPage",
    "ToolCallPage",
    "age",
    "filter_reviews",
    "layers_of",
    "review_page",
    "time_left",
]


def time_left(deadline: datetime | None, now: datetime | None = None) -> str:
    """``3h05m left``, ``overdue by 2m``, or ``no deadline known``."""
    if deadline is None:
        return "no deadline known"
    seconds = (deadline - (now or utc_now())).total_seconds()
    return f"{span(seconds)} left" if seconds > 0 else f"overdue by {span(-seconds)}"


def age(since: datetime, now: datetime | None = None) -> str:
    """How long ago ``since`` was: ``45s``, ``3h05m``."""
    return span(((now or utc_now()) - since).total_seconds())


@dataclass(frozen=True, slots=True)
class Filters:
    """The list's filters: an agent id and a layer, each optional."""

    agent: str = ""
    layer: str = ""

    @classmethod
    def of(cls, agent: str | None, layer: str | None) -> Filters:
        """Filters from the query string; a ``BadForm`` if one cannot match anything."""
        agent, layer = (agent or "").strip(), (layer or "").strip()
        if agent and not is_token(agent):
            raise BadForm("agent: an agent id is 1-64 letters, digits, _ and -")
        if layer and layer not in LayerID.__members__:
            raise BadForm("layer: one of HL1 … HL7")
        return cls(agent, layer)

    @property
    def query(self) -> str:
        """The filters as a query string (empty without filters)."""
        return urlencode({k: v for k, v in (("agent", self.agent), ("layer", self.layer)) if v})


def layers_of(review: ReviewSummary) -> list[str]:
    """The layers that hold a review up: each blocking reason starts with its layer's label."""
    found = []
    for reason in review.blocking_reasons:
        head = reason.split(" ", 1)[0].rstrip(":")
        if head in LayerID.__members__ and head not in found:
            found.append(head)
    return found


def filter_reviews(reviews: list[ReviewSummary], filters: Filters) -> list[ReviewSummary]:
    """The reviews that match ``filters``, newest first."""
    kept = [
        r
        for r in reviews
        if (not filters.agent or r.agent_id == filters.agent)
        and (not filters.layer or filters.layer in layers_of(r))
    ]
    return sorted(kept, key=lambda r: (r.decided_at, r.action_id), reverse=True)


@dataclass(frozen=True, slots=True)
class LayerRow:
    id: str
    name: str
    result: ConsensusResult

    @property
    def runs(self) -> str:
        if self.result.local_only:
            return "local checks only"
        return f"{self.result.valid_runs} of {self.result.planned_runs}"


@dataclass(frozen=True, slots=True)
class HistoryEntry:
    when: datetime
    outcome: str
    by: str
    why: list[str]


@dataclass(frozen=True, slots=True)
class ToolCallPage:
    """The action's tool call: its arguments with their findings, and the files it writes as
    diffs with theirs."""

    call: ToolCallShown
    files: list[FileView]


@dataclass(frozen=True, slots=True)
class ReviewPage:
    detail: ReviewDetail
    layers: list[LayerRow]
    diff: DiffView
    history: list[HistoryEntry]
    state: str
    """``pending``, ``decided``, ``settling`` (left the list, final decision not out yet) or
    ``closed`` (never waited for a human)."""
    tool: ToolCallPage | None = None
    """The tool call under review, when the action is one (the diff then holds the findings
    about neither its arguments nor its files)."""

    @property
    def report(self) -> HumanLayerReport:
        return self.detail.report


def _decider(report: HumanLayerReport) -> str:
    """Who made the first decision: the policy rule that did, else the gate."""
    by = report.decided_by
    return by if by.startswith(("rule:", "policy ")) else "the gate"


def _history(detail: ReviewDetail) -> list[HistoryEntry]:
    report, final = detail.report, detail.final
    entries = [
        HistoryEntry(
            report.decided_at,
            report.outcome.value,
            _decider(report),
            list(report.blocking_reasons),
        )
    ]
    if final is not None:
        entries.append(
            HistoryEntry(
                final.decided_at,
                final.outcome.value,
                final.resolved_by or "?",
                [final.resolution_reason or "no reason given"],
            )
        )
    return entries


def review_page(detail: ReviewDetail) -> ReviewPage:
    """The review page of ``detail``: layers, the tool call and the diff with their findings,
    the history."""
    report, action = detail.report, detail.action
    layers, findings = [], list[Finding]()
    for lid, result in sorted(report.layer_results.items()):
        layers.append(LayerRow(lid.value, LAYERS[lid].name, result))
        findings.extend(result.merged_findings)
    if detail.final is not None:
        state = "decided"
    elif detail.pending:
        state = "pending"
    elif report.outcome.value == "needs_review":
        state = "settling"
    else:
        state = "closed"
    tool = None
    if action is not None and action.tool_call is not None:
        mine, findings = split_findings(action, findings)
        shown = tool_call_shown(action.tool_call, mine)
        tool = ToolCallPage(shown, [file_view(w.diff, w.findings) for w in shown.files])
    diff = diff_view(action, findings)
    return ReviewPage(detail, layers, diff, _history(detail), state, tool)
