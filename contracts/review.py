"""Messages of the review side: actions, layer tasks and reports, decisions, human review."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

import msgspec
from msgspec import Meta

from .enums import FindingSource, LayerID, LayerStatus, Outcome, Severity, ToolKind, VetoLevel
from .errors import ConfigError
from .types import (
    END,
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
    "LINE_BUCKET",
    "MAX_GRANT_S",
    "TOOL_NAME_PATTERN",
    "ActionContext",
    "ActionSubmitted",
    "CancelAction",
    "ConsensusResult",
    "Decision",
    "Finding",
    "GateSettings",
    "HumanLayerReport",
    "LayerReport",
    "LayerRunResult",
    "LayerTask",
    "LayerVerdict",
    "ReportQuery",
    "ReportReply",
    "ReviewCost",
    "ReviewDetail",
    "ReviewFinding",
    "ReviewListing",
    "ReviewQuery",
    "ReviewRequested",
    "ReviewResolution",
    "ReviewSummary",
    "ToolCall",
    "Usage",
    "action_problem",
    "tool_call_problem",
]

LINE_BUCKET = 10
MAX_GRANT_S = 30 * 24 * 3600.0
"""The longest a standing approval (grant) may last: 30 days; longer is refused, never cut."""
"""Findings whose lines fall in the same bucket of this many lines are the same finding."""


class _Frozen(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Frozen, keyword-only, and strict: an unknown field (a misspelled ``code_diff``) is an
    error naming its JSON path, never an empty value that approves."""


TOOL_NAME_PATTERN = r"^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}" + END
"""A tool's name as frameworks spell it (``bash``, ``Write``, ``mcp__github__create_issue``)."""
MAX_TOOL_DEPTH = 32
"""How deeply a tool call's arguments may nest (objects and arrays)."""

ToolName = Annotated[
    str, Meta(pattern=TOOL_NAME_PATTERN, description="The tool's name: 1-128 of A-Z a-z 0-9 _ . -")
]
ArgumentName = Annotated[str, Meta(min_length=1, max_length=128)]
SignerKey = Annotated[str, Meta(max_length=64)]
SignatureText = Annotated[str, Meta(max_length=128)]
PartName = Annotated[str, Meta(min_length=1, max_length=64)]
PartDigest = Annotated[str, Meta(max_length=64)]


class ToolCall(_Frozen, frozen=True, kw_only=True):
    """One tool call of an agent, as its framework passes it: the thing that will run."""

    name: ToolName
    arguments: Annotated[dict[ArgumentName, Any], Meta(max_length=256)] = {}
    """The call's arguments, a JSON object exactly as the tool receives it."""
    kind: ToolKind | None = None
    """What the call does; inferred from the name and the arguments when not given."""
    workspace: Path | None = None
    """The folder the agent works in; file paths outside it are reported."""
    truncated: Annotated[list[ArgumentName], Meta(max_length=256)] = []
    """Arguments cut to fit the size limit (the submitter opted in): not fully reviewed."""


class ActionContext(_Frozen, frozen=True, kw_only=True):
    """What an agent wants to do: the thing under review."""

    agent_id: Token
    action_type: Name
    action_description: LongText
    code_diff: Body | None = None
    affected_files: Annotated[list[Path], Meta(max_length=1_000)] = []
    environment: Annotated[dict[Name, ShortText], Meta(max_length=64)] = {}
    tool_call: ToolCall | None = None
    """The tool call under review, when the action is one (see docs/tool-calls.md)."""


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


class CancelAction(_Frozen, frozen=True, kw_only=True):
    """Stop all work on an action (``hl.actions.<action_id>.cancel``)."""

    action_id: Token
    reason: ShortText = ""


class ReviewCost(_Frozen, frozen=True, kw_only=True):
    """What a review cost in LLM calls and (estimated) money, and what the engine saved."""

    estimated_usd: Annotated[float, Meta(ge=0)] = 0.0
    """From the configured per-model price table; models without a price add nothing."""
    unpriced_models: Annotated[list[Annotated[str, Meta(max_length=128)]], Meta(max_length=16)] = []
    calls: Count = 0
    """LLM calls made (each run is one call, repairs included in the run's usage)."""
    calls_planned: Count = 0
    """Calls a full review would make: layers × runs per layer."""
    saved_by_rules: Count = 0
    """Calls not made because the local checks settled the outcome first."""
    saved_by_adaptive: Count = 0
    """Third runs left out because runs 1 and 2 agreed (layers below strong power)."""
    saved_by_early_exit: Count = 0
    """Calls not made (or cancelled) because the outcome was settled before they ran."""


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
    policy_notes: Annotated[list[ShortText], Meta(max_length=20)] = []
    """How the policy differs from a full review: "partial review: HL4, HL6", an unsafe-policy
    setting, "settled by local checks"."""
    cost: ReviewCost = ReviewCost()
    signer: Annotated[str, Meta(max_length=64)] | None = None
    """The public key (NATS nkey form, ``N…``) of the Supervisor that signed the decision."""
    signature: Annotated[str, Meta(max_length=128)] | None = None
    """ed25519 signature (base64url) over the decision's binding: report and action ids, agent,
    action hash, outcome, policy version, decided-at and resolved-by (``humangr verify``)."""
    report_signature: SignatureText | None = None
    """ed25519 signature (base64url) by ``signer`` over the whole report's canonical encoding:
    every field but this one, ``signature`` and ``signed_parts`` included (``humangr verify``).
    Reports of older Supervisors have the binding ``signature`` only."""
    signed_parts: Annotated[dict[PartName, PartDigest], Meta(max_length=64)] = {}
    """A short digest of each part of the report as it was signed (``layer_results.HL3``,
    ``blocking_reasons``…), so ``humangr verify`` can name the part changed after signing."""
    decided_by: Annotated[str, Meta(max_length=80)] = ""
    """What decided the outcome: ``rule:<id>`` (a rule of the policy file), ``policy default``
    (the policy's default effect), ``layers`` (the review layers), ``local checks`` (the local
    checks alone settled it); a human's later resolution keeps it and sets ``resolved_by``.
    Empty in reports of older Supervisors."""


Decision = HumanLayerReport
"""The decision event published on ``hl.decisions.<agent_id>`` is the full report; ``Decision``
is its name as a message (``humangr schema Decision``) and an alias kept for code written
against it. The code here says ``HumanLayerReport``."""


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
    grant_s: Annotated[float, Meta(ge=0, le=MAX_GRANT_S)] = 0
    """With an approve: keep approving this agent's calls for this many seconds (a standing
    approval, ``Grant``); 0: none. At most ``MAX_GRANT_S``."""
    grant_scope: Literal["exact", "tool"] = "exact"
    """What the grant allows: the exact call reviewed, or any call of its tool the policy
    would send to the layers."""


class ReviewQuery(_Frozen, frozen=True, kw_only=True):
    """Ask a Supervisor for the reviews waiting for a human, or for one review in full
    (``hl.reviews.query``, request/reply, answered with a ``ReviewListing``)."""

    action_id: Annotated[str, Meta(min_length=1, max_length=64)] | None = None
    """One review (by action id or report id), with its action; ``None``: the pending list."""
    limit: Annotated[int, Meta(ge=1, le=1_000)] = 200


class ReviewSummary(_Frozen, frozen=True, kw_only=True):
    """One review waiting for a human, as a list shows it."""

    action_id: Token
    agent_id: Token
    action_type: Name
    action_description: ShortText = ""
    report_id: Token
    action_hash: Hash
    blocking_reasons: Annotated[list[ShortText], Meta(max_length=200)] = []
    findings: Count = 0
    decided_at: datetime
    deadline: datetime


class ReviewDetail(_Frozen, frozen=True, kw_only=True):
    """One review in full: its decision, the action (with its diff) and where it stands."""

    report: HumanLayerReport
    action: ActionContext | None = None
    pending: bool = False
    deadline: datetime | None = None
    final: HumanLayerReport | None = None
    """The human's (or the deadline's) decision, once there is one."""


class ReviewListing(_Frozen, frozen=True, kw_only=True):
    """The answer to a ``ReviewQuery``: the pending reviews (oldest deadline first), or one
    review, or an error saying why there is none."""

    reviews: Annotated[list[ReviewSummary], Meta(max_length=1_000)] = []
    detail: ReviewDetail | None = None
    error: ShortText | None = None


class ReportQuery(_Frozen, frozen=True, kw_only=True):
    """Ask the Supervisor for a stored report by report id or action id (request/reply)."""

    id: Annotated[str, Meta(min_length=1, max_length=64)]


class ReportReply(_Frozen, frozen=True, kw_only=True):
    """The answer to a ``ReportQuery``: the report, or an error saying why there is none."""

    report: HumanLayerReport | None = None
    error: ShortText | None = None


def action_problem(action: ActionContext, *, max_diff_bytes: int | None = None) -> str | None:
    """Why ``action`` cannot be reviewed (nothing to review, a diff too large), else ``None``.

    A ``code_diff`` action needs diff content; any other action needs a diff or a description.
    The limit is ``MAX_DIFF_BYTES`` unless a lower one is given.
    """
    from .types import MAX_DIFF_BYTES

    limit = MAX_DIFF_BYTES if max_diff_bytes is None else min(max_diff_bytes, MAX_DIFF_BYTES)
    diff = action.code_diff or ""
    if diff:
        size = len(diff.encode("utf-8", "surrogatepass"))
        if size > limit:
            return (
                f"code_diff is {size:,} bytes; the limit is {limit:,}: split the change "
                "into smaller actions"
            )
    if action.tool_call is not None:
        problem = tool_call_problem(action.tool_call, max_bytes=limit)
        if problem is not None:
            return problem
    has_diff = bool(diff.strip())
    if action.action_type == "code_diff" and not has_diff:
        return "code_diff is empty: a code_diff action needs the diff to review"
    if not has_diff and not action.action_description.strip() and action.tool_call is None:
        return "nothing to review: both code_diff and action_description are empty"
    return None


def _too_deep(value: Any, depth: int) -> str | None:
    """The path (``[0].x``…) below ``value`` where it nests past ``MAX_TOOL_DEPTH``."""
    todo: list[tuple[Any, str, int]] = [(value, "", depth)]
    while todo:
        item, path, level = todo.pop()
        if level > MAX_TOOL_DEPTH:
            return path
        if isinstance(item, dict):
            todo.extend((child, f"{path}.{key}", level + 1) for key, child in item.items())
        elif isinstance(item, list):
            todo.extend((child, f"{path}[{i}]", level + 1) for i, child in enumerate(item))
    return None


def tool_call_problem(call: ToolCall, *, max_bytes: int | None = None) -> str | None:
    """Why ``call`` cannot be reviewed (nested too deeply, too large), else ``None``."""
    from .codec import canonical_json
    from .types import MAX_DIFF_BYTES

    for name, value in call.arguments.items():
        path = _too_deep(value, 1)
        if path is not None:
            where = f"{name}{path}"
            where = where if len(where) <= 80 else where[:79] + "…"
            return (
                f"argument `{where}` of {call.name} nests deeper than {MAX_TOOL_DEPTH} levels: "
                "pass flatter arguments"
            )
    limit = MAX_DIFF_BYTES if max_bytes is None else min(max_bytes, MAX_DIFF_BYTES)
    size = len(canonical_json(call.arguments))
    if size > limit:
        return (
            f"the arguments of {call.name} are {size:,} bytes as JSON; the limit is {limit:,}: "
            "pass large content by reference or split the call"
        )
    return None
