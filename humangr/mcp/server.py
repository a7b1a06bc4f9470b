"""The MCP server: tools ``validate``, ``test_action``, ``get_report``, ``list_layers`` and the
``human_layer://`` resources, on the low-level server of the official ``mcp`` SDK."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import msgspec
from mcp import types
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import Server
from mcp.shared.exceptions import MCPError

from humangr.contracts import (
    ActionContext,
    HumanLayerReport,
    LayerID,
    action_problem,
    encode,
    tool_call_problem,
)
from humangr.engine.errors import ContractError, EngineError
from humangr.engine.llm import LLMClient
from humangr.engine.redact import redact_urls
from humangr.render.text import render_text

from .backend import ReportNotFound, ReviewBackend
from .quick import quick_review
from .resources import (
    LAYER_TEMPLATE,
    LAYERS_URI,
    STATS_URI,
    THRESHOLDS_URI,
    layer_info,
    layers_result,
    parse_layer_uri,
    thresholds_document,
)
from .schemas import (
    GetReportInput,
    LayersResult,
    ListLayersInput,
    TestActionInput,
    TestActionResult,
    ValidateInput,
    object_schema,
    parse_arguments,
)
from .stats import DecisionStats

__all__ = ["HumanLayerMCP", "ToolSpec"]

log = logging.getLogger("humangr.mcp")
Ctx = ServerRequestContext[Any]
JSON = "application/json"


@dataclass(frozen=True, slots=True)
class ToolSpec:
    """One tool: its argument and result Structs give its input and output JSON Schemas."""

    name: str
    title: str
    description: str
    input_type: type[Any]
    output_type: type[Any]
    run: Callable[[Any], Awaitable[types.CallToolResult]]

    def tool(self) -> types.Tool:
        return types.Tool(
            name=self.name,
            title=self.title,
            description=self.description,
            input_schema=object_schema(self.input_type),
            output_schema=object_schema(self.output_type),
            annotations=types.ToolAnnotations(
                title=self.title, read_only_hint=True, open_world_hint=False
            ),
        )


def _invalid(message: str, **data: Any) -> MCPError:
    return MCPError(code=types.INVALID_PARAMS, message=message, data=data or None)


def _result(value: Any, summary: str | None = None) -> types.CallToolResult:
    """Structured content plus the same JSON as text (and a readable summary first)."""
    raw = encode(value)
    content: list[types.ContentBlock] = [types.TextContent(type="text", text=raw.decode())]
    if summary:
        content.insert(0, types.TextContent(type="text", text=summary))
    return types.CallToolResult(content=content, structured_content=msgspec.json.decode(raw))


def _failed(message: str) -> types.CallToolResult:
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=message)], is_error=True
    )


@dataclass(slots=True)
class HumanLayerMCP:
    """The tools and resources over a ``ReviewBackend``; ``server()`` wires them into the SDK."""

    backend: ReviewBackend
    llm: LLMClient | None
    llm_note: str
    stats: DecisionStats = field(init=False)
    tools: dict[str, ToolSpec] = field(init=False)

    def __post_init__(self) -> None:
        self.stats = DecisionStats(mode=self.backend.mode)
        specs = (
            ToolSpec(
                "validate",
                "Review an action with the seven layers",
                "Run the full HUMANGR review of an action an AI agent is about to take (a code "
                "diff, a file write, a command) through seven reviewer layers (UX, "
                "functionality, edge cases, security, performance, compliance, final review) "
                "and return the decision: approved, rejected or needs_review, with each "
                "layer's status, veto and findings. Act only on approved.",
                ValidateInput,
                HumanLayerReport,
                self._validate,
            ),
            ToolSpec(
                "test_action",
                "Quick pass/warn/fail check",
                "Quickly check an action with the local checks (and one LLM run per layer when "
                "an LLM is configured): pass, warn or fail with the findings. Not a decision; "
                "use validate before acting.",
                TestActionInput,
                TestActionResult,
                self._test_action,
            ),
            ToolSpec(
                "get_report",
                "Fetch a stored review report",
                "Return the stored report of an earlier validate call by report id or action id.",
                GetReportInput,
                HumanLayerReport,
                self._get_report,
            ),
            ToolSpec(
                "list_layers",
                "List the reviewer layers",
                "List the seven reviewer layers with their focus and veto power.",
                ListLayersInput,
                LayersResult,
                self._list_layers,
            ),
        )
        self.tools = {spec.name: spec for spec in specs}

    def server(self) -> Server[Any]:
        return Server(
            "humangr",
            version=_version(),
            title="HUMANGR human layer",
            instructions=(
                "Call validate before applying a code change or taking an action with side "
                "effects, and proceed only if the outcome is approved."
            ),
            on_list_tools=self._list_tools,
            on_call_tool=self._call_tool,
            on_list_resources=self._list_resources,
            on_list_resource_templates=self._list_templates,
            on_read_resource=self._read_resource,
        )

    async def _list_tools(self, ctx: Ctx, params: types.PaginatedRequestParams | None) -> Any:
        return types.ListToolsResult(tools=[spec.tool() for spec in self.tools.values()])

    async def _call_tool(self, ctx: Ctx, params: types.CallToolRequestParams) -> Any:
        spec = self.tools.get(params.name)
        if spec is None:
            known = ", ".join(self.tools)
            raise _invalid(f"unknown tool {params.name!r}; the tools are {known}", tool=params.name)
        try:
            arguments = parse_arguments(params.arguments, spec.input_type)
        except ContractError as exc:
            raise _invalid(
                f"invalid arguments for {spec.name} at {exc.path or '$'}: {exc.problem}",
                tool=spec.name,
                path=exc.path or "$",
                problem=exc.problem,
            ) from None
        return await spec.run(arguments)

    async def _validate(self, args: ValidateInput) -> types.CallToolResult:
        action = ActionContext(
            agent_id=args.agent_id,
            action_type=args.action_type,
            action_description=args.action_description,
            code_diff=args.code_diff,
            affected_files=list(args.affected_files),
            environment=dict(args.environment),
            tool_call=args.tool_call.call() if args.tool_call else None,
        )
        self._check(action)
        try:
            report = await self.backend.validate(action)
        except EngineError as exc:
            self.stats.error()
            problem = redact_urls(str(exc))
            log.error("validate: no decision: %s", problem)
            return _failed(f"validate: no decision ({problem}); the action is NOT approved")
        self.stats.decision(report)
        log.info("validate: %s %s %s", report.report_id, report.outcome, report.final_veto_level)
        return _result(report, render_text(report.action_id, report, self.llm_note, action))

    async def _test_action(self, args: TestActionInput) -> types.CallToolResult:
        layers = list(dict.fromkeys(args.layers)) if args.layers else list(LayerID)
        action = ActionContext(
            agent_id="mcp-test-action",
            action_type="code_diff"
            if args.code_diff
            else "tool_call"
            if args.tool_call
            else "action",
            action_description=args.action_description,
            code_diff=args.code_diff,
            tool_call=args.tool_call.call() if args.tool_call else None,
        )
        self._check(action)
        result = await quick_review(
            action,
            layers,
            self.llm,
            llm_note=self.llm_note,
            deadline_s=self.backend.config.layer_deadline_s,
            max_repairs=self.backend.config.max_repairs,
        )
        self.stats.verdict(result.verdict)
        return _result(result, result.summary)

    def _check(self, action: ActionContext) -> None:
        """Refuse an action with nothing to review or a diff over the limit in force (the
        configured one, never above ``MAX_DIFF_BYTES``) or a tool call nested too deeply or
        too large, before any review."""
        limit = self.backend.config.max_diff_bytes
        path, problem = "$", None
        if action.tool_call is not None:
            path, problem = (
                "$.tool_call.arguments",
                tool_call_problem(action.tool_call, max_bytes=limit),
            )
        if problem is None:
            problem = action_problem(action, max_diff_bytes=limit)
            path = "$.code_diff" if problem and problem.startswith("code_diff") else "$"
        if problem is not None:
            raise _invalid(f"invalid arguments at {path}: {problem}", path=path, problem=problem)

    async def _get_report(self, args: GetReportInput) -> types.CallToolResult:
        try:
            report = await self.backend.report(args.report_id)
        except ReportNotFound as exc:
            raise _invalid(f"report not found: {exc}", report_id=args.report_id) from None
        except EngineError as exc:
            return _failed(f"get_report: the engine did not answer ({redact_urls(str(exc))})")
        return _result(report, render_text(report.action_id, report, self.llm_note))

    async def _list_layers(self, args: ListLayersInput) -> types.CallToolResult:
        result = layers_result()
        summary = "\n".join(
            f"{info.id} {info.title}: veto {info.veto_power} — {info.focus}"
            for info in result.layers
        )
        return _result(result, summary)

    async def _list_resources(self, ctx: Ctx, params: types.PaginatedRequestParams | None) -> Any:
        fixed = [
            (LAYERS_URI, "layers", "The seven reviewer layers with focus and veto power"),
            (THRESHOLDS_URI, "thresholds", "Gate rules, consensus settings and policy version"),
            (STATS_URI, "stats", "Decisions by outcome since this server started"),
        ]
        per_layer = [
            (f"{LAYERS_URI}/{info.id}", f"layer {info.id}", f"{info.title}: {info.focus}")
            for info in layers_result().layers
        ]
        return types.ListResourcesResult(
            resources=[
                types.Resource(uri=uri, name=name, description=text, mime_type=JSON)
                for uri, name, text in (*fixed, *per_layer)
            ]
        )

    async def _list_templates(self, ctx: Ctx, params: types.PaginatedRequestParams | None) -> Any:
        template = types.ResourceTemplate(
            uri_template=LAYER_TEMPLATE,
            name="layer",
            description="One reviewer layer (HL1..HL7)",
            mime_type=JSON,
        )
        return types.ListResourceTemplatesResult(resource_templates=[template])

    async def _read_resource(self, ctx: Ctx, params: types.ReadResourceRequestParams) -> Any:
        uri = str(params.uri)
        value: Any
        if uri == LAYERS_URI:
            value = layers_result()
        elif uri == THRESHOLDS_URI:
            value = thresholds_document(
                self.backend.config, self.backend.mode, llm_review=self.backend.llm_review
            )
        elif uri == STATS_URI:
            value = self.stats.summary()
        else:
            try:
                layer = parse_layer_uri(uri)
            except ValueError as exc:
                raise _invalid(str(exc), uri=uri) from None
            if layer is None:
                raise _invalid(f"unknown resource {uri!r}", uri=uri)
            value = layer_info(layer)
        text = msgspec.json.format(encode(value), indent=2).decode()
        return types.ReadResourceResult(
            contents=[types.TextResourceContents(uri=uri, mime_type=JSON, text=text)]
        )


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("humangr")
    except PackageNotFoundError:
        return "0"
