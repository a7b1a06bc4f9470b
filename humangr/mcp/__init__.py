"""The MCP front door: ``humangr mcp`` serves the review to coding assistants as MCP tools
(``validate``, ``test_action``, ``get_report``, ``list_layers``) and read-only
``human_layer://`` resources, built on the official ``mcp`` SDK."""

from humangr.extras import require_extra

require_extra("mcp")

from .backend import EngineBackend, NatsBackend, ReportNotFound, ReviewBackend
from .quick import quick_review, quick_verdict
from .schemas import (
    GetReportInput,
    LayersResult,
    StatsSummary,
    TestActionInput,
    TestActionResult,
    ValidateInput,
)
from .serve import Transport, listen, open_backend, serve_http, serve_stdio
from .server import HumanLayerMCP
from .stats import DecisionStats

__all__ = [
    "DecisionStats",
    "EngineBackend",
    "GetReportInput",
    "HumanLayerMCP",
    "LayersResult",
    "NatsBackend",
    "ReportNotFound",
    "ReviewBackend",
    "StatsSummary",
    "TestActionInput",
    "TestActionResult",
    "Transport",
    "ValidateInput",
    "listen",
    "open_backend",
    "quick_review",
    "quick_verdict",
    "serve_http",
    "serve_stdio",
]
