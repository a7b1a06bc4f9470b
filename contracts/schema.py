"""JSON Schema export of every message on the wire."""

from __future__ import annotations

from typing import Any

import msgspec

from . import grants, history, pipeline, review, system, workers

__all__ = ["MESSAGES", "schema_of"]

MESSAGES: dict[str, type[msgspec.Struct]] = {
    "ActionSubmitted": review.ActionSubmitted,
    "LayerTask": review.LayerTask,
    "LayerReport": review.LayerReport,
    "CancelAction": review.CancelAction,
    "Decision": review.HumanLayerReport,
    "ReviewRequested": review.ReviewRequested,
    "ReviewResolution": review.ReviewResolution,
    "LayerVerdict": review.LayerVerdict,
    "ReportQuery": review.ReportQuery,
    "ReportReply": review.ReportReply,
    "ReviewQuery": review.ReviewQuery,
    "ReviewListing": review.ReviewListing,
    "GrantQuery": grants.GrantQuery,
    "GrantListing": grants.GrantListing,
    "GrantRevoke": grants.GrantRevoke,
    "GrantRevoked": grants.GrantRevoked,
    "HistoryQuery": history.HistoryQuery,
    "HistoryPage": history.HistoryPage,
    "WorkOrder": pipeline.WorkOrder,
    "MessageEnvelope": pipeline.MessageEnvelope,
    "ResponseEnvelope": pipeline.ResponseEnvelope,
    "AgentResult": pipeline.AgentResult,
    "Handoff": pipeline.Handoff,
    "PipelineStart": pipeline.PipelineStart,
    "PipelineStatus": pipeline.PipelineStatus,
    "PipelineCommand": pipeline.PipelineCommand,
    "TaskState": pipeline.TaskState,
    "AgentRunRecord": pipeline.AgentRunRecord,
    "BreakerChanged": pipeline.BreakerChanged,
    "DeadLetter": system.DeadLetter,
    "SubmitReceipt": workers.SubmitReceipt,
    "WorkerHeartbeat": workers.WorkerHeartbeat,
}
"""Every message by name, in the order of the subjects table (docs/design.md#subjects); the
types sent on no subject of their own sit beside the messages that carry them."""


def schema_of(name: str) -> dict[str, Any]:
    """The JSON Schema of the message called ``name`` (see ``MESSAGES``)."""
    try:
        type_ = MESSAGES[name]
    except KeyError:
        known = ", ".join(MESSAGES)
        raise KeyError(f"unknown message {name!r}; known: {known}") from None
    return msgspec.json.schema(type_)
