"""Messages of the delivery pipeline: envelopes, agent results, work orders, hand-offs, state."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Literal

import msgspec
from msgspec import Meta

from .enums import AgentName, ResponseStatus, TaskStatus
from .layers import Finding, Usage
from .types import END, Body, Count, LongText, Millis, Name, Path, ShortText, Title, Token, utc_now

__all__ = [
    "AgentResult",
    "AgentRunRecord",
    "Artifact",
    "ArtifactRef",
    "BreakerChanged",
    "Evidence",
    "Handoff",
    "Limits",
    "MessageEnvelope",
    "NextActions",
    "PipelineCommand",
    "PipelineStart",
    "PipelineStatus",
    "ResponseEnvelope",
    "ResponseMeta",
    "TaskState",
    "WorkOrder",
]

Mode = Annotated[str, Meta(pattern=r"^[a-z][a-z0-9_]{0,63}" + END)]
Variant = Annotated[str, Meta(pattern=r"^[a-z][a-z0-9_-]{0,31}" + END)]


class _Frozen(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Frozen, keyword-only, and strict: an unknown field is an error, never ignored."""


class Limits(_Frozen, frozen=True, kw_only=True):
    max_rounds: Annotated[int, Meta(ge=1, le=20)] = 3
    max_rework: Annotated[int, Meta(ge=0, le=20)] = 3
    timeout_sec: Annotated[float, Meta(gt=0, le=3_600)] = 300.0


class ArtifactRef(_Frozen, frozen=True, kw_only=True):
    path: Path
    summary: ShortText = ""


class MessageEnvelope(_Frozen, frozen=True, kw_only=True):
    """A request to one agent (``hl.agents.<agent>.request``)."""

    request_id: Token
    project_id: Token
    agent: AgentName
    variant: Variant = "generic"
    mode: Mode
    task_id: Token | None = None
    task: LongText = ""
    inputs: Annotated[dict[Name, Body], Meta(max_length=32)] = {}
    existing_artifacts: Annotated[list[ArtifactRef], Meta(max_length=200)] = []
    limits: Limits = Limits()
    attempt: Annotated[int, Meta(ge=1, le=100)] = 1


class Artifact(_Frozen, frozen=True, kw_only=True):
    path: Path
    content: Body
    format: Annotated[str, Meta(max_length=32)] = "markdown"
    purpose: ShortText = ""


class Evidence(_Frozen, frozen=True, kw_only=True):
    type: Annotated[str, Meta(min_length=1, max_length=64)]
    ref: ShortText
    note: ShortText = ""


class NextActions(_Frozen, frozen=True, kw_only=True):
    owner: Annotated[str, Meta(max_length=64)] = ""
    items: Annotated[list[ShortText], Meta(max_length=50)] = []
    questions: Annotated[list[ShortText], Meta(max_length=20)] = []


class ResponseMeta(_Frozen, frozen=True, kw_only=True):
    round: Annotated[int, Meta(ge=0, le=100)] = 1
    model: Annotated[str, Meta(max_length=128)] = ""
    idempotency_key: Annotated[str, Meta(max_length=128)] = ""


class ResponseEnvelope(_Frozen, frozen=True, kw_only=True):
    """An agent's reply; the enforcer validates it before anyone reads it."""

    status: ResponseStatus
    summary: LongText
    artifacts: Annotated[list[Artifact], Meta(max_length=100)] = []
    evidence: Annotated[list[Evidence], Meta(max_length=100)] = []
    next_actions: NextActions = NextActions()
    meta: ResponseMeta = ResponseMeta()


class AgentResult(_Frozen, frozen=True, kw_only=True):
    """An agent actor's answer to a ``MessageEnvelope`` (``hl.agents.result``)."""

    request_id: Token
    project_id: Token
    agent: AgentName
    mode: Mode
    task_id: Token | None = None
    envelope: ResponseEnvelope
    validator_pass: bool
    validation_errors: Annotated[list[ShortText], Meta(max_length=200)] = []
    attempts: Count = 1
    repairs: Count = 0
    breaker_open: bool = False
    usage: Usage = Usage()


class WorkOrder(_Frozen, frozen=True, kw_only=True):
    """The Monitor asks the Supervisor to run one agent step (``hl.work.order``)."""

    order_id: Token
    project_id: Token
    agent: AgentName
    mode: Mode
    variant: Variant = "generic"
    task_id: Token | None = None
    task: LongText = ""
    inputs: Annotated[dict[Name, Body], Meta(max_length=32)] = {}
    limits: Limits = Limits()
    attempt: Annotated[int, Meta(ge=1, le=100)] = 1


class Handoff(_Frozen, frozen=True, kw_only=True):
    """Work moves from one owner to another (``hl.handoffs.<project_id>``)."""

    project_id: Token
    order_id: Token
    task_id: Token | None = None
    from_: AgentName = msgspec.field(name="from")
    to: AgentName
    status: ResponseStatus
    code_refs: Annotated[list[Path], Meta(max_length=200)] = []
    reason: LongText = ""
    findings: Annotated[list[Finding], Meta(max_length=500)] = []
    report: Body = ""
    decision_outcome: Annotated[str, Meta(max_length=32)] | None = None
    summary: LongText = ""
    artifacts: Annotated[list[ArtifactRef], Meta(max_length=200)] = []


class TaskState(_Frozen, frozen=True, kw_only=True):
    task_id: Token
    title: Title
    status: TaskStatus = TaskStatus.NEW
    owner: Annotated[str, Meta(max_length=64)] = ""
    rework: Count = 0
    attempt: Count = 0
    reason: ShortText = ""
    code_refs: Annotated[list[Path], Meta(max_length=200)] = []
    updated_at: datetime = msgspec.field(default_factory=utc_now)


class PipelineStart(_Frozen, frozen=True, kw_only=True):
    """Start a project (``hl.pipeline.start``)."""

    project_id: Token
    spec_raw: Body
    variant: Variant = "generic"
    limits: Limits = Limits()


class PipelineStatus(_Frozen, frozen=True, kw_only=True):
    """Progress of a project (``hl.pipeline.<project_id>.status``)."""

    project_id: Token
    stage: Annotated[str, Meta(max_length=64)]
    state: Literal["running", "done", "blocked", "cancelled"] = "running"
    next_owner: Annotated[str, Meta(max_length=64)] = ""
    message: ShortText = ""
    tasks: Annotated[list[TaskState], Meta(max_length=500)] = []
    at: datetime = msgspec.field(default_factory=utc_now)


class PipelineCommand(_Frozen, frozen=True, kw_only=True):
    """A human's way out of ``blocked`` (``hl.pipeline.<project_id>.command``).

    ``unblock`` re-orders the step that blocked, granting ``extra`` reworks (a task) or rounds
    (a stage), with ``reason`` and ``answers`` in the order's inputs; ``cancel`` cancels the
    blocked task ``task_id``, or the whole project when ``task_id`` is absent.
    """

    project_id: Token
    command: Literal["unblock", "cancel"]
    task_id: Token | None = None
    reviewer: Name
    reason: Annotated[str, Meta(min_length=20, max_length=2_000)]
    answers: LongText = ""
    """Answers to the agent's ``NEEDS_INFO`` questions (``inputs.human_answers``)."""
    extra: Annotated[int, Meta(ge=1, le=10)] = 1
    issued_at: datetime = msgspec.field(default_factory=utc_now)


class AgentRunRecord(_Frozen, frozen=True, kw_only=True):
    """One line of the audit trail: one agent call (``hl.audit.<project_id>``)."""

    timestamp: datetime = msgspec.field(default_factory=utc_now)
    project_id: Token
    agent: AgentName
    mode: Mode
    task_id: Token | None = None
    request_id: Token
    request_hash: Annotated[str, Meta(max_length=64)]
    model: Annotated[str, Meta(max_length=128)] = ""
    attempts: Count = 1
    repairs: Count = 0
    validator_pass: bool
    validation_errors: Annotated[list[ShortText], Meta(max_length=200)] = []
    artifact_paths: Annotated[list[Path], Meta(max_length=200)] = []
    status: ResponseStatus
    usage: Usage = Usage()
    duration_ms: Millis = 0.0


class BreakerChanged(_Frozen, frozen=True, kw_only=True):
    """A circuit breaker changed state (``hl.breaker``)."""

    project_id: Token
    agent: AgentName
    mode: Mode
    state: Literal["closed", "open", "half_open"]
    failures: Count = 0
    at: datetime = msgspec.field(default_factory=utc_now)
