"""The gateway's review of one ``tools/call``: the ``ToolCall`` it becomes, the decision asked
for, and the tool error the agent reads when the call is stopped."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

import msgspec
from mcp import types

from humangr.contracts import (
    ActionContext,
    HumanLayerReport,
    Outcome,
    ToolCall,
    ToolKind,
    canonical_json,
    tool_call_problem,
)
from humangr.engine.checks.tools.view import infer_kind
from humangr.engine.errors import EngineError, ReviewTimeout, SubmissionRefused
from humangr.engine.redact import redact_secrets

__all__ = [
    "CallRefused",
    "Decided",
    "GatewaySettings",
    "HumanRoute",
    "action_for",
    "build_call",
    "decide",
    "error_result",
    "stopped",
]

log = logging.getLogger("humangr.mcp.gateway")
_MAX_REASONS = 10


class CallRefused(EngineError):
    """A call that cannot be reviewed as it is (the message says why); never forwarded."""


@dataclass(frozen=True, slots=True)
class HumanRoute:
    """Where a human resolves this gateway's reviews: the options of ``humangr resolve``
    (``--state PATH`` or ``--nats URL [--prefix P]``)."""

    where: str

    def commands(self, action_id: str) -> str:
        """How a human lets this exact call run once the agent calls it again: an approval
        with a standing grant of the exact call (the waiting call itself has ended)."""
        return (
            f"a human reads it with `humangr show {action_id} {self.where}` and, to let this "
            f"exact call run, approves it for a while: `humangr resolve {action_id} --approve "
            f'--grant 15m --reason "…" {self.where}`; then make the same call again'
        )


@dataclass(frozen=True, slots=True)
class GatewaySettings:
    """How the gateway reviews and forwards calls."""

    agent_id: str = "mcp-gateway"
    timeout: float = 300.0
    """Seconds a call may wait for its decision (a human's included)."""
    call_timeout: float = 300.0
    """Seconds the upstream has to answer a forwarded call."""
    max_argument_bytes: int = 256 * 1024
    workspace: str | None = None
    block_injected_results: bool = False
    human: HumanRoute | None = None
    """Where a human resolves a ``needs_review``; ``None``: nobody can, so it is not waited."""
    max_concurrent: int = 8
    """Forwarded calls running at once (more wait their turn)."""
    max_pending: int = 64
    """Calls in the gateway at once (reviewed, waiting or forwarded); more are refused."""


def error_result(text: str) -> types.CallToolResult:
    """A tool error whose text the agent reads."""
    return types.CallToolResult(content=[types.TextContent(type="text", text=text)], is_error=True)


def build_call(name: str, arguments: Any, settings: GatewaySettings) -> ToolCall:
    """The ``ToolCall`` reviewed for a call of the tool the agent knows as ``name``: its
    arguments as given, its kind inferred (``mcp`` when nothing says more). ``CallRefused``
    for arguments that are not an object, too large or too deep."""
    if arguments is None:
        arguments = {}
    if not isinstance(arguments, dict):
        raise CallRefused(
            f"the arguments of {name} must be a JSON object, not {type(arguments).__name__}"
        )
    size = len(canonical_json(arguments))
    if size > settings.max_argument_bytes:
        raise CallRefused(
            f"the arguments of {name} are {size:,} bytes as JSON, past the gateway's limit of "
            f"{settings.max_argument_bytes:,}: pass large content by reference or split the call"
        )
    try:
        call = msgspec.convert(
            {"name": name, "arguments": arguments, "workspace": settings.workspace}, ToolCall
        )
    except msgspec.ValidationError as exc:
        raise CallRefused(f"the call of {name} cannot be reviewed: {exc}") from None
    problem = tool_call_problem(call, max_bytes=settings.max_argument_bytes)
    if problem is not None:
        raise CallRefused(problem)
    if infer_kind(call)[0] is ToolKind.OTHER:
        call = msgspec.structs.replace(call, kind=ToolKind.MCP)
    return call


def action_for(call: ToolCall, upstream: str, settings: GatewaySettings) -> ActionContext:
    """The action reviewed for ``call`` of ``upstream``."""
    return ActionContext(
        agent_id=settings.agent_id,
        action_type="tool_call",
        action_description=(
            f"Agent {settings.agent_id} calls the MCP tool {call.name} of {upstream} "
            "through the HUMANGR gateway."
        ),
        tool_call=call,
    )


def stopped(report: HumanLayerReport, tool: str, settings: GatewaySettings) -> str:
    """What the agent reads when ``report`` does not approve its call of ``tool``."""
    reasons = [redact_secrets(r) for r in report.blocking_reasons[:_MAX_REASONS]]
    more = len(report.blocking_reasons) - len(reasons)
    listed = "\n".join(f"- {r}" for r in reasons) or "- no reason given"
    if more > 0:
        listed += f"\n- and {more} more"
    if report.outcome is Outcome.REJECTED:
        return (
            f"HUMANGR rejected this call of {tool}; it was NOT run (action {report.action_id}).\n"
            f"Reasons:\n{listed}\n"
            "Do not retry the same call: change what the reasons point at, or ask the user."
        )
    where = (
        f"To go on, {settings.human.commands(report.action_id)}."
        if settings.human is not None
        else "No human can resolve it through this gateway (it keeps no reviews): start it "
        "with --state PATH or --nats URL to let a human decide."
    )
    return (
        f"HUMANGR needs a human to review this call of {tool}; it was NOT run "
        f"(action {report.action_id}, outcome {report.outcome.value}).\nReasons:\n{listed}\n"
        f"{where}"
    )


@dataclass(frozen=True, slots=True)
class Decided:
    """The review of one call: its action id (when one was given) and, unless approved, the
    text of the tool error the agent reads."""

    action_id: str | None
    stop: str | None
    outcome: str


async def decide(
    client: Any, action: ActionContext, tool: str, settings: GatewaySettings
) -> Decided:
    """Review ``action``; ``stop`` is ``None`` only when approved (every error and timeout
    stops the call: fail closed)."""
    wait = settings.human is not None
    try:
        report: HumanLayerReport = await client.review(action, final=wait, timeout=settings.timeout)
    except ReviewTimeout as exc:
        hint = (
            f"If it waits for a human: {settings.human.commands(exc.action_id)}."
            if settings.human is not None
            else "Is the engine running?"
        )
        text = (
            f"HUMANGR did not decide on this call of {tool} within {settings.timeout:g}s; it was "
            f"NOT run (action {exc.action_id}). {hint}"
        )
        return Decided(exc.action_id, text, "timeout")
    except SubmissionRefused as exc:
        text = f"HUMANGR refused to review this call of {tool}; it was NOT run: {exc.reason}"
        return Decided(exc.action_id, text, "refused")
    except Exception as exc:
        problem = redact_secrets(str(exc) or type(exc).__name__)[:500]
        log.error("gateway: no decision on a call of %s: %s", tool, problem)
        text = f"HUMANGR could not review this call of {tool}; it was NOT run: {problem}"
        return Decided(None, text, "error")
    outcome = report.outcome.value
    if report.outcome is Outcome.APPROVED:
        return Decided(report.action_id, None, outcome)
    return Decided(report.action_id, stopped(report, tool, settings), outcome)
