"""A layer's side of a review: the task it is given, what its LLM runs reply, its findings,
its verdict over its runs (under the gate's thresholds) and its signed report."""

from __future__ import annotations

from typing import Annotated

from msgspec import Meta

from .actions import ActionContext, ArgumentName, ToolName
from .enums import FindingSource, LayerID, LayerStatus, Severity, VetoLevel
from .errors import ConfigError
from .types import (
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
    _Frozen,
)

__all__ = [
    "LINE_BUCKET",
    "ConsensusResult",
    "Finding",
    "GateSettings",
    "LayerReport",
    "LayerRunResult",
    "LayerTask",
    "LayerVerdict",
    "ReviewFinding",
    "SignatureText",
    "SignerKey",
    "Usage",
]

LINE_BUCKET = 10
"""Findings whose lines fall in the same bucket of this many lines are the same finding."""
SignerKey = Annotated[str, Meta(max_length=64)]
SignatureText = Annotated[str, Meta(max_length=128)]


class ReviewFinding(_Frozen, frozen=True, kw_only=True):
    """A finding as an LLM reviewer reports it (the structured reply of one layer run)."""

    severity: Severity
    title: Title
    description: LongText = ""
    suggestion: ShortText | None = None
    file: Path | None = None
    line: Annotated[int, Meta(ge=0)] | None = None
    argument: ArgumentName | None = None
    """For a tool call: the argument the finding concerns (``command``, ``headers.Cookie``)."""


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
    argument: ArgumentName | None = None
    """For a tool call: the argument the finding concerns (``command``, ``headers.Cookie``)."""
    tool: ToolName | None = None
    """For a tool call: the tool's name, so a reason reads "argument `command` of bash: …"."""
    suppressed_by: Annotated[str, Meta(max_length=64)] = ""
    """The id of the policy's ``[[suppress]]`` entry that matched this local-check finding:
    it stays in the report and vetoes nothing (empty: not suppressed)."""
    suppression_reason: ShortText = ""
    """The suppression's reason, as the policy file gives it."""


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
    model: Annotated[str, Meta(max_length=128)] = ""
    """The model that answered (for the cost estimate); empty when no call was made."""


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
    executed_runs: Count = 0
    """Runs that were made (adaptive redundancy may leave out run 3 of ``planned_runs``)."""
    usage: Usage = Usage()
    """The tokens this layer's runs used."""


class GateSettings(_Frozen, frozen=True, kw_only=True):
    """The review thresholds. They are part of ``policy_version``; change them deliberately.

    The Supervisor sends them with every ``LayerTask`` and recomputes every layer's consensus
    with them; ``ReviewConfig`` refuses values weaker than the design floor unless its
    unsafe-policy switch is set."""

    runs_per_layer: Annotated[int, Meta(ge=0, le=16)] = 3
    """LLM runs planned per layer when an LLM is configured."""
    min_valid_runs: Annotated[int, Meta(ge=1, le=16)] = 2
    """A layer with fewer valid runs than this (capped at the runs planned) is ``error``."""
    confirm_votes: Annotated[int, Meta(ge=1, le=16)] = 2
    """An LLM finding reported by this many runs is confirmed."""
    rejecting_mediums: Annotated[int, Meta(ge=1, le=7)] = 2
    """This many ``medium`` layer vetoes reject the action; fewer (but one) need a human."""
    dissent_floor: VetoLevel = VetoLevel.MEDIUM
    """A lone ``strong`` run overruled by the majority still raises the layer to this level."""

    def __post_init__(self) -> None:
        checks = (
            ("runs_per_layer", self.runs_per_layer, 0, 16),
            ("min_valid_runs", self.min_valid_runs, 1, 16),
            ("confirm_votes", self.confirm_votes, 1, 16),
            ("rejecting_mediums", self.rejecting_mediums, 1, 7),
        )
        for name, value, low, high in checks:
            if not low <= value <= high:
                raise ConfigError(
                    f"review setting {name}={value} is out of range; use {low}..{high}"
                )
        if self.dissent_floor is VetoLevel.NONE:
            raise ConfigError(
                "review setting dissent_floor=none would let a lone strong veto vanish; "
                "use weak, medium or strong"
            )

    def thresholds(self) -> dict[str, int | str]:
        """The settings as a plain mapping, for ``policy_version`` and for display."""
        return {
            "runs_per_layer": self.runs_per_layer,
            "min_valid_runs": self.min_valid_runs,
            "confirm_votes": self.confirm_votes,
            "rejecting_mediums": self.rejecting_mediums,
            "dissent_floor": self.dissent_floor.value,
            "line_bucket": LINE_BUCKET,
        }


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
    settings: GateSettings = GateSettings()
    """The thresholds the Supervisor will recompute this layer's consensus with."""
    rule_findings: Annotated[list[Finding], Meta(max_length=500)] = []
    """This layer's local-check findings, found once by the Supervisor: context for the LLM."""
    adaptive: bool = False
    """Run 1 and 2 first, and run 3 only if they disagree (never on a strong-power layer)."""


class LayerReport(_Frozen, frozen=True, kw_only=True):
    """A layer's answer to a ``LayerTask`` (``hl.layers.report``)."""

    action_id: Token
    layer_id: LayerID
    runs: Annotated[list[LayerRunResult], Meta(max_length=16)] = []
    consensus: ConsensusResult
    """The layer's own view; the Supervisor recomputes it from ``runs`` and never trusts it,
    and counts a view that differs from its own (``humangr_layer_view_mismatches_total``)."""
    usage: Usage = Usage()
    action_hash: Hash | None = None
    """The ``LayerTask``'s action hash; a report without it, or with another, is refused."""
    deadline_passed: bool = False
    """The layer ran out of time: ``runs`` holds what finished; the layer counts as ``error``."""
    task_digest: Annotated[str, Meta(max_length=64)] | None = None
    """sha256 (hex) of the canonical ``LayerTask`` this report answers: the Supervisor accepts
    a report of the very task it sent only (not one of a task someone else published)."""
    signer: SignerKey | None = None
    """The public key (NATS nkey form, ``N…``) of the layer worker that signed the report."""
    signature: SignatureText | None = None
    """ed25519 signature (base64url) of the worker over the report's canonical encoding (every
    field but this one); the Supervisor accepts reports from the worker keys it trusts only."""
