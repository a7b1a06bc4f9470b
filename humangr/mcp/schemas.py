"""The MCP tools' arguments and results: bounded msgspec Structs and their JSON Schemas."""

from __future__ import annotations

from typing import Annotated, Any, Literal, TypeVar

import msgspec
from msgspec import Meta

from humangr.contracts import (
    Finding,
    LayerID,
    LayerStatus,
    Outcome,
    ToolCall,
    ToolKind,
    VetoLevel,
    decode,
)
from humangr.contracts.review import TOOL_NAME_PATTERN
from humangr.contracts.types import MAX_DIFF_BYTES, Name, Path, ShortText, Token
from humangr.engine.llm import tool_input_schema

__all__ = [
    "MAX_MCP_DIFF_CHARS",
    "GetReportInput",
    "LayerInfo",
    "LayersResult",
    "ListLayersInput",
    "QuickLayer",
    "StatsSummary",
    "TestActionInput",
    "TestActionResult",
    "ToolCallInput",
    "ValidateInput",
    "Verdict",
    "object_schema",
    "parse_arguments",
]

MAX_MCP_DIFF_CHARS = MAX_DIFF_BYTES
"""The longest diff a tool accepts: the one limit of every diff (``MAX_DIFF_BYTES``)."""

Verdict = Literal["pass", "warn", "fail"]
T = TypeVar("T")

_Description = Annotated[
    str,
    Meta(
        min_length=1,
        max_length=20_000,
        description="What the agent is about to do and why, in plain words.",
    ),
]
_Diff = Annotated[
    str,
    Meta(
        max_length=MAX_MCP_DIFF_CHARS,
        description="The change as a unified diff (git diff), if the action changes code.",
    ),
]
_Files = Annotated[
    list[Path],
    Meta(max_length=1_000, description="Paths the action touches, relative to the repository."),
]


class _Args(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    pass


class ToolCallInput(_Args, frozen=True, kw_only=True):
    """A tool call the agent is about to make, exactly as its framework will pass it."""

    name: Annotated[
        str,
        Meta(
            pattern=TOOL_NAME_PATTERN,
            description="The tool's name as the framework knows it, e.g. bash, Write, "
            "mcp__github__create_issue (1-128 of A-Z a-z 0-9 _ . -).",
        ),
    ]
    arguments: Annotated[
        dict[Annotated[str, Meta(min_length=1, max_length=128)], Any],
        Meta(
            max_length=256,
            description="The call's arguments as a JSON object, exactly as the tool receives "
            "them (at most 32 levels deep, 1 MB as JSON).",
        ),
    ] = {}
    kind: (
        Annotated[
            ToolKind,
            Meta(description="What the call does; inferred from the name and arguments if absent."),
        ]
        | None
    ) = None
    workspace: (
        Annotated[
            Path,
            Meta(description="The folder the agent works in; paths outside it are reported."),
        ]
        | None
    ) = None

    def call(self) -> ToolCall:
        """The contract's ``ToolCall`` of these arguments."""
        return ToolCall(
            name=self.name, arguments=dict(self.arguments), kind=self.kind, workspace=self.workspace
        )


_ToolCallArg = Annotated[
    ToolCallInput | None,
    Meta(
        description="The tool call under review, when the action is one: it is reviewed "
        "argument by argument (no code_diff needed)."
    ),
]


class ValidateInput(_Args, frozen=True, kw_only=True):
    """Arguments of ``validate``: the action to review with all seven layers."""

    agent_id: Annotated[
        Token, Meta(description="Who acts, e.g. claude-code (letters, digits, _ and -).")
    ]
    action_type: Annotated[
        Name, Meta(description="The kind of action, e.g. code_diff, file_write, shell, api_call.")
    ]
    action_description: _Description
    code_diff: _Diff | None = None
    affected_files: _Files = []
    environment: Annotated[
        dict[Name, ShortText],
        Meta(max_length=64, description="Context such as repository or deployment target."),
    ] = {}
    tool_call: _ToolCallArg = None


class TestActionInput(_Args, frozen=True, kw_only=True):
    """Arguments of ``test_action``: a quick check before a full review."""

    __test__ = False

    action_description: _Description
    code_diff: _Diff | None = None
    tool_call: _ToolCallArg = None
    layers: (
        Annotated[
            list[LayerID],
            Meta(max_length=7, description="Layers to check (default: all seven)."),
        ]
        | None
    ) = None


class GetReportInput(_Args, frozen=True, kw_only=True):
    """Arguments of ``get_report``."""

    report_id: Annotated[
        str,
        Meta(
            min_length=1,
            max_length=64,
            description="A report id (or action id) returned by validate.",
        ),
    ]


class ListLayersInput(_Args, frozen=True, kw_only=True):
    """``list_layers`` takes no arguments."""


class LayerInfo(msgspec.Struct, frozen=True, kw_only=True):
    """One reviewer layer."""

    id: LayerID
    name: str
    title: str
    focus: str
    veto_power: VetoLevel


class LayersResult(msgspec.Struct, frozen=True, kw_only=True):
    """The seven layers in order."""

    layers: list[LayerInfo]


class QuickLayer(msgspec.Struct, frozen=True, kw_only=True):
    """One layer in a ``test_action`` result: its local checks and at most one LLM run."""

    status: LayerStatus
    veto_level: VetoLevel
    findings: int = 0
    llm_runs: int = 0
    error: str | None = None


class TestActionResult(msgspec.Struct, frozen=True, kw_only=True):
    """A quick ``pass|warn|fail`` with the findings behind it. It is not a decision."""

    __test__ = False

    verdict: Verdict
    summary: str
    layers: dict[LayerID, QuickLayer]
    findings: list[Finding]
    llm: str


class StatsSummary(msgspec.Struct, frozen=True, kw_only=True):
    """Counts since this server started."""

    since: str
    mode: str
    decisions_total: int
    decisions_by_outcome: dict[Outcome, int]
    validate_errors: int
    quick_checks_by_verdict: dict[str, int]


def object_schema(type_: type[Any]) -> dict[str, Any]:
    """The self-contained JSON Schema (``type: object`` at the top) of a Struct."""
    return tool_input_schema(type_)


def parse_arguments(arguments: dict[str, Any] | None, type_: type[T]) -> T:
    """Decode a tool's arguments as ``type_``; a problem raises ``ContractError`` naming the
    JSON path (``$.agent_id``) of the bad or missing argument."""
    return decode(msgspec.json.encode(arguments or {}), type_)
