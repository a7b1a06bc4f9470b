"""Messages of the review side: actions, layer tasks and reports, decisions, human review."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Literal

import msgspec
from msgspec import Meta

from .enums import FindingSource, LayerID, LayerStatus, Outcome, Severity, VetoLevel
from .types import (
    Body,
    Count,
    Hash,
    LongText,
    Millis,
    Name,
    Path,
    Ratio,
    ShortText,
    Title,
    Token,
    utc_now,
)

__all__ = [
    "ActionContext",
    "ActionSubmitted",
    "CancelAction",
    "ConsensusResult",
    "Decision",
    "Finding",
    "HumanLayerReport",
    "LayerReport",
    "LayerRunResult",
    "LayerTask",
    "LayerVerdict",
    "ReportQuery",
    "ReportReply",
    "ReviewFinding",
    "ReviewRequested",
    "ReviewResolution",
    "Usage",
]


class _Frozen(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=False):
    pass


class ActionContext(_Frozen, frozen=True, kw_only=True):
    """What an agent wants to do: the thing under review."""

    agent_id: Token
    action_type: Name
    action_description: LongText
    code_diff: Body | None = None
    affected_files: Annotated[list[Path], Meta(max_length=1_000)] = []
    environment: Annotated[dict[Name, ShortText], Meta(max_length=64)] = {}


class ActionSubmitted(_Frozen, frozen=True, kw_only=True):
    """An action published for review on ``hl.actions.submit``."""

    action_id: Token
    action: ActionContext
    submitted_at: datetime = msgspec.field(default_factory=utc_now)
    action_hash: Hash | None = None
    """sha256 of the canonical action; filled in by the submitter or the Supervisor."""
    layers: Annotated[list[LayerID], Meta(max_length=7)] | None = None
    """Layers to run; ``None`` means every configured layer."""


class ReviewFinding(_Frozen, frozen=True, kw_only=True):
    """A finding as an LLM reviewer reports it (the structured reply of one layer run)."""

    severity: Severity
    title: Title
    description: LongText = ""
    suggestion: ShortText | None = None
    file: Path | None = None
    line: Annotated[int, Meta(ge=0)] | None = None


class LayerVerdict(_Frozen, frozen=True, kw_only=True):
    """The whole structured reply of one layer run; its JSON Schema is the tool's input_schema."""

    findings: Annotated[list[ReviewFinding], Meta(max_length=50)]
    summary: ShortText = ""


class Usage(_Frozen, frozen=True, kw_only=True):
    """Token usage of LLM calls."""

    input_tokens: Count = 0
    output_tokens: Count = 0
    cache_read_tokens: Count = 0
    cache_write_tokens: Count = 0
    calls: Count = 0

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            input_tokens=self.input_tokens + other.input_tokens,
            output_tokens=self.output_tokens + other.output_tokens,
            cache_read_tokens=self.cache_read_tokens + other.cache_read_tokens,
            cache_write_tokens=self.cache_write_tokens + other.cache_write_tokens,
            calls=self.calls + other.calls,
        )


class Finding(_Frozen, frozen=True, kw_only=True):
    """One problem a layer found."""

    id: Name
    layer_id: LayerID
    severity: Severity
    title: Title
    description: LongText = ""
    suggestion: ShortText | None = None
    file: Path | None = None
    line: Annotated[int, Meta(ge=0)] | None = None
    source: FindingSource = FindingSource.LLM
    fingerprint: Annotated[str, Meta(max_length=64)] = ""
    votes: Annotated[int, Meta(ge=0, le=100)] = 1


class LayerRunResult(_Frozen, frozen=True, kw_only=True):
    """One run of one layer (one LLM call after repairs)."""

    layer_id: LayerID
    run_number: Annotated[int, Meta(ge=1, le=16)]
    status: LayerStatus
    veto_level: VetoLevel
    findings: Annotated[list[Finding], Meta(max_length=200)] = []
    execution_time_ms: Millis = 0.0
    error: ShortText | None = None
    usage: Usage = Usage()
    repairs: Annotated[int, Meta(ge=0, le=10)] = 0


class ConsensusResult(_Frozen, frozen=True, kw_only=True):
    """A layer's merged verdict over its runs and its local checks."""

    status: LayerStatus
    veto_level: VetoLevel
    merged_findings: Annotated[list[Finding], Meta(max_length=500)] = []
    agreement_ratio: Ratio = 1.0
    dissent: bool = False
    valid_runs: Count = 0
    planned_runs: Count = 0
    local_only: bool = False
    error: ShortText | None = None


class LayerTask(_Frozen, frozen=True, kw_only=True):
    """The Supervisor asks one layer to review one action (``hl.layers.<LID>.task``)."""

    action_id: Token
    layer_id: LayerID
    action: ActionContext
    action_hash: Hash
    runs: Annotated[int, Meta(ge=0, le=16)] = 3
    deadline_s: Annotated[float, Meta(gt=0, le=3_600)] = 120.0
    prior_findings: Annotated[list[Finding], Meta(max_length=500)] = []
    """HL1–HL6's merged findings, given to HL7 only."""


class LayerReport(_Frozen, frozen=True, kw_only=True):
    """A layer's answer to a ``LayerTask`` (``hl.layers.report``)."""

    action_id: Token
    layer_id: LayerID
    runs: Annotated[list[LayerRunResult], Meta(max_length=16)] = []
    consensus: ConsensusResult
    usage: Usage = Usage()


class CancelAction(_Frozen, frozen=True, kw_only=True):
    """Stop all work on an action (``hl.actions.<action_id>.cancel``)."""

    action_id: Token
    reason: ShortText = ""


class HumanLayerReport(_Frozen, frozen=True, kw_only=True):
    """The decision on one action, with everything that led to it."""

    report_id: Token
    action_id: Token
    agent_id: Token
    action_hash: Hash
    policy_version: Annotated[str, Meta(max_length=64)]
    outcome: Outcome
    final_veto_level: VetoLevel
    layer_results: dict[LayerID, ConsensusResult] = {}
    blocking_reasons: Annotated[list[ShortText], Meta(max_length=200)] = []
    timings: dict[Name, Millis] = {}
    usage: Usage = Usage()
    resolved_by: Name | None = None
    resolution_reason: ShortText | None = None
    decided_at: datetime = msgspec.field(default_factory=utc_now)


Decision = HumanLayerReport
"""The decision event published on ``hl.decisions.<agent_id>`` is the full report."""


class ReviewRequested(_Frozen, frozen=True, kw_only=True):
    """A human must decide (``hl.reviews.pending``)."""

    action_id: Token
    action_hash: Hash
    report_id: Token
    action: ActionContext
    blocking_reasons: Annotated[list[ShortText], Meta(max_length=200)] = []
    deadline: datetime


class ReviewResolution(_Frozen, frozen=True, kw_only=True):
    """A human's answer (``hl.reviews.<action_id>.resolve``)."""

    action_id: Token
    action_hash: Hash
    verdict: Literal["approve", "reject"]
    reviewer: Name
    reason: Annotated[str, Meta(min_length=20, max_length=2_000)]
    resolved_at: datetime = msgspec.field(default_factory=utc_now)


class ReportQuery(_Frozen, frozen=True, kw_only=True):
    """Ask the Supervisor for a stored report by report id or action id (request/reply)."""

    id: Annotated[str, Meta(min_length=1, max_length=64)]


class ReportReply(_Frozen, frozen=True, kw_only=True):
    """The answer to a ``ReportQuery``: the report, or an error saying why there is none."""

    report: HumanLayerReport | None = None
    error: ShortText | None = None
