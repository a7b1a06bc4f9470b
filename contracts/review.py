"""Messages of the review side: actions, layer tasks and reports, decisions, human review.

Each topic has its own module, and every name is importable from here as well: what an agent
submits (``actions``), a layer's task, runs and report (``layers``), the decision
(``decisions``) and human review (``human_review``).
"""

from __future__ import annotations

from .actions import MAX_TOOL_DEPTH as MAX_TOOL_DEPTH
from .actions import (
    TOOL_NAME_PATTERN,
    ActionContext,
    ActionSubmitted,
    CancelAction,
    ToolCall,
    action_problem,
    tool_call_problem,
)
from .actions import ArgumentName as ArgumentName
from .actions import ToolName as ToolName
from .decisions import (
    Decision,
    HumanLayerReport,
    ReportQuery,
    ReportReply,
    ReviewCost,
)
from .decisions import PartDigest as PartDigest
from .decisions import PartName as PartName
from .human_review import (
    MAX_GRANT_S,
    ReviewDetail,
    ReviewListing,
    ReviewQuery,
    ReviewRequested,
    ReviewResolution,
    ReviewSummary,
)
from .layers import (
    LINE_BUCKET,
    ConsensusResult,
    Finding,
    GateSettings,
    LayerReport,
    LayerRunResult,
    LayerTask,
    LayerVerdict,
    ReviewFinding,
    Usage,
)
from .layers import SignatureText as SignatureText
from .layers import SignerKey as SignerKey
from .types import _Frozen as _Frozen

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
