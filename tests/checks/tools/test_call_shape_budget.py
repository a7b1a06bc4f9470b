"""A call's other shapes (JSON texts, wrapper objects) are read again within a budget: a
hostile nest of JSON texts cannot make one call cost the checks many times its size, and what
the budget leaves unread is a finding, never silence."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from humangr.contracts import ActionContext, LayerID, Outcome, ToolCall
from humangr.engine.checks.base import Check, CheckInput, Hit
from humangr.engine.checks.registry import run_checks
from humangr.engine.review import local_outcome


def _action(arguments: dict[str, Any]) -> ActionContext:
    call = ToolCall(name="tool_1", arguments=arguments, workspace="/home/agent/src")
    return ActionContext(
        agent_id="t", action_type="tool_call", action_description="", tool_call=call
    )


def _nest(text: str, depth: int) -> str:
    value = json.dumps({"text": text})
    for _ in range(depth):
        value = json.dumps({"params": value})
    return value


def _characters_read(action: ActionContext) -> int:
    """Characters of arguments the checks were given, over every reading of the call."""
    read = [0]

    def count(ctx: CheckInput) -> Iterator[Hit]:
        assert ctx.action.tool_call is not None
        read[0] += len(json.dumps(ctx.action.tool_call.arguments))
        return iter(())

    counting = Check(LayerID.HL4, "count", "counts", ("humangr",), "none", count)
    run_checks(action, checks=[counting])
    return read[0]


def test_a_nest_of_json_texts_is_read_within_the_budget_and_reported() -> None:
    arguments = {f"k{i}": _nest("lorem ipsum " * 4_000, 3) for i in range(6)}
    size = len(json.dumps(arguments))
    action = _action(arguments)
    # the call itself, then at most its budget again (json.dumps spaces words a little wider
    # than the budget's compact encoding: a tenth of slack)
    assert _characters_read(action) <= 1.1 * (size + max(262_144, 3 * size))
    findings = run_checks(action, local_only=True)
    titles = [f.title for f in findings[LayerID.HL4]]
    assert "call not read in all its shapes" in titles
    assert local_outcome(findings)[0] is Outcome.NEEDS_REVIEW


def test_a_json_text_argument_of_ordinary_size_is_read_whole() -> None:
    records = [{"name": f"item {i}", "note": "an ordinary record"} for i in range(500)]
    action = _action({"params": json.dumps({"records": json.dumps(records)})})
    findings = run_checks(action, local_only=True)
    assert all(f.title != "call not read in all its shapes" for f in findings[LayerID.HL4])


def test_a_dangerous_value_inside_the_budget_is_still_found() -> None:
    action = _action({"params": json.dumps({"command": "rm -rf / --no-preserve-root"})})
    assert local_outcome(run_checks(action, local_only=True))[0] is Outcome.REJECTED
