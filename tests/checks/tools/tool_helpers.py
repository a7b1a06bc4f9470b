"""Builders shared by the tool-call check tests: a call's findings and its local outcome."""

from __future__ import annotations

from typing import Any

from humangr.contracts import ActionContext, Finding, Outcome, ToolCall, ToolKind
from humangr.engine.checks import CheckOptions, run_checks
from humangr.engine.review import local_outcome


def tool_action(
    name: str,
    arguments: dict[str, Any],
    *,
    kind: ToolKind | None = None,
    workspace: str | None = None,
) -> ActionContext:
    return ActionContext(
        agent_id="agent-1",
        action_type="tool_call",
        action_description=f"calls {name}",
        tool_call=ToolCall(name=name, arguments=arguments, kind=kind, workspace=workspace),
    )


def decide(
    name: str,
    arguments: dict[str, Any],
    *,
    kind: ToolKind | None = None,
    workspace: str | None = None,
    options: CheckOptions | None = None,
) -> tuple[Outcome, list[Finding], list[str]]:
    """The local-checks-only outcome of one tool call, every finding, and the gate's reasons."""
    action = tool_action(name, arguments, kind=kind, workspace=workspace)
    found = run_checks(action, options=options or CheckOptions())
    outcome, reasons = local_outcome(found)
    return outcome, [f for fs in found.values() for f in fs], reasons


def guard_outcome(name: str, arguments: dict[str, Any], workspace: str = "/home/agent/src") -> str:
    """The outcome the guard acts on with no LLM (``local_only``: what no check reads needs a
    person), as its value."""
    action = tool_action(name, arguments, workspace=workspace)
    outcome, _reasons = local_outcome(run_checks(action, local_only=True))
    return str(outcome.value)
