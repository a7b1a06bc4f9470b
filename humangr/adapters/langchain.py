"""HUMANGR for LangChain 1.x and LangGraph (``pip install 'humangr[langchain]'``).

``HumangrMiddleware(client)`` is an agent middleware for ``create_agent``: it reviews each tool
call before the tool runs. Approved: the tool runs with the reviewed arguments. Rejected (or the
review failed: fail closed): the tool does not run and the model reads a ``ToolMessage`` with
``status="error"`` carrying the reasons. ``needs_review``: ``on_needs_review="wait"`` waits for
the human's resolution (``humangr inbox`` / ``humangr resolve``), ``"answer"`` tells the model at
once that the action needs a human's review, naming its id; ``"auto"`` (the default) waits when
a human can reach the engine (a served engine, or the embedded one with ``state=``), else
answers.

List it last among the agent's middleware (the first listed wraps the others), so no other
middleware changes a call after it was reviewed. LangGraph's prebuilt ``ToolNode`` takes the
same two methods:
``ToolNode(tools, wrap_tool_call=mw.wrap_tool_call, awrap_tool_call=mw.awrap_tool_call)``.
Sync agents (``invoke``) review with ``humangr.connect_sync()``; async ones (``ainvoke``) with
``humangr.connect()``.
"""

from __future__ import annotations

from humangr.extras import require_extra

require_extra("langchain")

from collections.abc import Awaitable, Callable
from typing import Any

from langchain.agents.middleware import AgentMiddleware, AgentState
from langchain_core.messages import ToolMessage
from langgraph.prebuilt.tool_node import ToolCallRequest
from langgraph.types import Command

from humangr.client import Client, SyncClient

from .common import NeedsReviewMode, ToolReviewer, Verdict

__all__ = ["HumangrMiddleware"]

Result = ToolMessage | Command[Any]


class HumangrMiddleware(AgentMiddleware[AgentState[Any], Any, Any]):
    """Reviews every tool call of a LangChain agent (or a LangGraph ``ToolNode``) with HUMANGR
    before the tool runs; a call that is not approved answers the model with an error
    ``ToolMessage`` instead of running."""

    def __init__(
        self,
        client: Client | SyncClient,
        *,
        on_needs_review: NeedsReviewMode = "auto",
        agent_id: str | None = None,
        timeout: float | None = None,
        workspace: str | None = None,
    ) -> None:
        super().__init__()
        self.reviewer = ToolReviewer(
            client,
            framework="langchain",
            agent_id=agent_id,
            timeout=timeout,
            workspace=workspace,
            on_needs_review=on_needs_review,
        )

    def wrap_tool_call(
        self,
        request: ToolCallRequest,
        handler: Callable[[ToolCallRequest], Result],
    ) -> Result:
        """Review the call (blocking: a sync agent), then run it only when approved."""
        name, args, call_id = _parts(request)
        verdict = self.reviewer.review_blocking(name, args, call_id)
        if not verdict.approved:
            return self._stopped(request, verdict)
        return handler(_reviewed(request, verdict))

    async def awrap_tool_call(
        self,
        request: ToolCallRequest,
        handler: Callable[[ToolCallRequest], Awaitable[Result]],
    ) -> Result:
        """Review the call, then run it only when approved."""
        name, args, call_id = _parts(request)
        verdict = await self.reviewer.review(name, args, call_id)
        if not verdict.approved:
            return self._stopped(request, verdict)
        return await handler(_reviewed(request, verdict))

    def _stopped(self, request: ToolCallRequest, verdict: Verdict) -> ToolMessage:
        """What the model reads instead of the tool's output."""
        self.reviewer.answered(verdict)
        _name, _args, call_id = _parts(request)
        report = verdict.report
        return ToolMessage(
            content=verdict.message,
            tool_call_id=call_id or "",
            name=verdict.tool[:128],
            status="error",
            artifact={
                "humangr": verdict.status,
                "action_id": report.action_id if report is not None else None,
                "blocking_reasons": list(report.blocking_reasons) if report is not None else [],
            },
        )


def _parts(request: ToolCallRequest) -> tuple[str, Any, str | None]:
    call: Any = request.tool_call
    name = call.get("name") if isinstance(call, dict) else None
    call_id = call.get("id") if isinstance(call, dict) else None
    args = call.get("args") if isinstance(call, dict) else None
    return (
        name if isinstance(name, str) else repr(name),
        args,
        call_id if isinstance(call_id, str) else None,
    )


def _reviewed(request: ToolCallRequest, verdict: Verdict) -> ToolCallRequest:
    """The request with the arguments that were reviewed (copies: nothing can change them
    between the review and the call)."""
    return request.override(tool_call={**request.tool_call, "args": dict(verdict.arguments or {})})
