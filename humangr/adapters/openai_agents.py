"""HUMANGR for the OpenAI Agents SDK (``pip install 'humangr[openai-agents]'``).

``guard_tools(tools, client)`` gives each function tool two parts that share one review per
call:

* a **tool input guardrail** (``HumangrGuard.guardrail``) that reviews the call before the tool
  runs. Approved: the tool runs. Rejected (or the review failed: fail closed): the tool does not
  run, and the model reads the reasons as the tool's output (``reject_content``: the run goes
  on, so the model can change course).
* a **needs_approval** callable (``HumangrGuard.needs_approval``): ``True`` when HUMANGR says
  ``needs_review``, so the SDK's own human-in-the-loop takes over — the run stops with the call
  in ``result.interruptions``, and ``state.approve(item)`` / ``state.reject(item)`` decide it.
  A rejected call answers ``False`` there: the guardrail blocks it and tells the model why,
  without asking anyone. Used without the guardrail (``with_guardrail=False``), every call
  that is not approved answers ``True``, so nothing unapproved runs without a human.

``on_needs_review``: ``"interrupt"`` (the default, above), ``"wait"`` (the guardrail waits for
the HUMANGR human: ``humangr inbox`` / ``humangr resolve``) or ``"answer"`` (the model is told at
once that the action needs a human's review, naming its id).
"""

from __future__ import annotations

from humangr.extras import require_extra

require_extra("openai-agents")

import copy
import importlib
import importlib.machinery
import importlib.util
import os
import sys
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Sequence
from types import ModuleType
from typing import Any, Literal

from humangr.client import Client, SyncClient
from humangr.contracts import canonical_json
from humangr.engine.errors import ConfigError

from .common import ToolReviewer, Verdict, parse_arguments


def _import_unshadowed(name: str, *, extra: str) -> ModuleType:
    """Import the framework's top-level package ``name`` even where a HUMANGR checkout is on
    ``sys.path`` (``python -m pytest`` in the repository) and its folder of that name (the
    checkout's ``agents/`` is ``humangr.agents``) would be imported instead."""
    ours = importlib.util.find_spec(f"humangr.{name}")
    shadow = os.path.realpath(ours.origin) if ours is not None and ours.origin else None
    loaded = sys.modules.get(name)
    if loaded is not None:
        origin = getattr(loaded, "__file__", None)
        if shadow is not None and origin and os.path.realpath(origin) == shadow:
            raise ConfigError(
                f"`{name}` was imported from this HUMANGR checkout (its {name}/ folder), not "
                f"from the framework: run from another folder, or pip install 'humangr[{extra}]'"
            )
        return loaded
    spec = importlib.util.find_spec(name)
    if shadow is None or spec is None or not spec.origin or os.path.realpath(spec.origin) != shadow:
        return importlib.import_module(name)
    init = os.path.join(name, "__init__.py")
    paths = [p for p in sys.path if os.path.realpath(os.path.join(p or ".", init)) != shadow]
    found = importlib.machinery.PathFinder.find_spec(name, paths)
    if found is None or found.loader is None:
        raise ConfigError(f"this installation lacks `{name}`: pip install 'humangr[{extra}]'")
    module = importlib.util.module_from_spec(found)
    sys.modules[name] = module
    try:
        found.loader.exec_module(module)
    except BaseException:
        del sys.modules[name]
        raise
    return module


sdk: Any = _import_unshadowed("agents", extra="openai-agents")
"""The OpenAI Agents SDK's package, ``agents``. Typed loosely: in a HUMANGR checkout, type
checkers read the repository's ``agents/`` folder (``humangr.agents``) under that name."""

__all__ = ["ApprovalCheck", "HumangrGuard", "OnNeedsReview", "guard_tools"]

OnNeedsReview = Literal["interrupt", "wait", "answer"]
ApprovalCheck = Callable[[Any, dict[str, Any], str], Awaitable[bool]]
"""A ``needs_approval`` callable: (run context, the call's arguments, its call id)."""
_KEPT = 1_024
"""Verdicts of ``needs_approval`` kept for the guardrail at most (the oldest go first)."""
_KEPT_S = 600.0
"""How long a verdict of ``needs_approval`` stands for the guardrail of the same call."""
_Key = tuple[str, str, bytes]


class HumangrGuard:
    """Reviews the OpenAI Agents SDK's function tool calls through a ``humangr`` client."""

    def __init__(
        self,
        client: Client | SyncClient,
        *,
        on_needs_review: OnNeedsReview = "interrupt",
        agent_id: str | None = None,
        timeout: float | None = None,
        workspace: str | None = None,
    ) -> None:
        if on_needs_review not in ("interrupt", "wait", "answer"):
            raise ConfigError(
                "openai-agents: on_needs_review must be 'interrupt', 'wait' or 'answer', not "
                f"{on_needs_review!r}"
            )
        self.on_needs_review = on_needs_review
        self.reviewer = ToolReviewer(
            client,
            framework="openai-agents",
            agent_id=agent_id,
            timeout=timeout,
            workspace=workspace,
            on_needs_review="wait" if on_needs_review == "wait" else "answer",
        )
        self.guardrail: Any = sdk.ToolInputGuardrail(guardrail_function=self._check, name="humangr")
        """The tool input guardrail: add it to a tool's ``tool_input_guardrails``."""
        self._verdicts: OrderedDict[_Key, tuple[float, Verdict, bool]] = OrderedDict()

    def needs_approval(self, tool: str, *, with_guardrail: bool = False) -> ApprovalCheck:
        """The ``needs_approval`` callable of the function tool named ``tool``: ``True`` on
        ``needs_review`` (with ``on_needs_review="interrupt"``); a rejected or failed review
        answers ``False`` when the tool also has ``guardrail`` (it blocks the call and tells the
        model), else ``True``, so the call never runs without a human."""

        async def check(context: Any, params: dict[str, Any], call_id: str) -> bool:
            verdict = await self.reviewer.review(tool, params, call_id, final=False)
            interrupt = verdict.status == "needs_review" and self.on_needs_review == "interrupt"
            ask = interrupt or not (verdict.approved or with_guardrail)
            self._keep(tool, call_id, params, verdict, ask)
            return ask

        return check

    def apply(self, tool: Any) -> Any:
        """A copy of ``tool`` with the guardrail (and, with ``interrupt``, ``needs_approval``);
        other kinds of tool (hosted tools, the shell and patch tools) are returned as they
        are: only function tools run through guardrails."""
        if not isinstance(tool, sdk.FunctionTool):
            return tool
        guarded = copy.copy(tool)
        guarded.tool_input_guardrails = [*(tool.tool_input_guardrails or []), self.guardrail]
        if self.on_needs_review == "interrupt":
            guarded.needs_approval = _either(
                self.needs_approval(tool.name, with_guardrail=True), tool.needs_approval
            )
        return guarded

    async def _check(self, data: Any) -> Any:
        context = data.context
        tool, call_id, raw = context.tool_name, context.tool_call_id, context.tool_arguments
        kept = self._take(tool, call_id, raw)
        if kept is not None and (kept[0].status != "needs_review" or kept[1]):
            verdict, asked = kept
        else:
            verdict, asked = await self.reviewer.review(tool, raw, call_id), False
        if verdict.approved:
            return sdk.ToolGuardrailFunctionOutput.allow(output_info=_info(verdict))
        if verdict.status == "needs_review" and self.on_needs_review == "interrupt":
            try:
                approved = context.is_tool_approved(tool, call_id)
            except Exception:  # the SDK cannot say: not approved
                approved = None
            if asked or approved is True:  # the SDK's own approval gate decides
                return sdk.ToolGuardrailFunctionOutput.allow(output_info=_info(verdict))
        self.reviewer.answered(verdict)
        return sdk.ToolGuardrailFunctionOutput.reject_content(verdict.message, _info(verdict))

    def _key(self, tool: str, call_id: str, arguments: Any) -> _Key | None:
        try:
            return tool, call_id, canonical_json(parse_arguments(tool, arguments))
        except Exception:  # not reviewable: the guardrail reviews it again, and refuses it
            return None

    def _keep(self, tool: str, call_id: str, params: Any, verdict: Verdict, asked: bool) -> None:
        key = self._key(tool, call_id, params)
        if key is None:
            return
        self._verdicts[key] = (time.monotonic(), verdict, asked)
        while len(self._verdicts) > _KEPT:
            self._verdicts.popitem(last=False)

    def _take(self, tool: str, call_id: str, raw: str) -> tuple[Verdict, bool] | None:
        key = self._key(tool, call_id, raw)
        kept = self._verdicts.pop(key, None) if key is not None else None
        if kept is None or time.monotonic() - kept[0] > _KEPT_S:
            return None
        return kept[1], kept[2]


def _info(verdict: Verdict) -> dict[str, Any]:
    report = verdict.report
    return {
        "humangr": verdict.status,
        "action_id": report.action_id if report is not None else None,
        "blocking_reasons": list(report.blocking_reasons) if report is not None else [],
    }


def _either(ours: ApprovalCheck, theirs: bool | ApprovalCheck) -> ApprovalCheck:
    """Ask when HUMANGR says so or the tool's own setting does."""
    if theirs is False:
        return ours

    async def check(context: Any, params: dict[str, Any], call_id: str) -> bool:
        if await ours(context, params, call_id):
            return True
        return True if theirs is True else bool(await theirs(context, params, call_id))

    return check


def guard_tools(
    tools: Sequence[Any],
    client: Client | SyncClient,
    *,
    on_needs_review: OnNeedsReview = "interrupt",
    agent_id: str | None = None,
    timeout: float | None = None,
    workspace: str | None = None,
) -> list[Any]:
    """``tools`` with every function tool reviewed by HUMANGR before it runs (see the module
    docstring): ``Agent(tools=guard_tools([shell, write_file], hg))``."""
    guard = HumangrGuard(
        client,
        on_needs_review=on_needs_review,
        agent_id=agent_id,
        timeout=timeout,
        workspace=workspace,
    )
    return [guard.apply(tool) for tool in tools]
