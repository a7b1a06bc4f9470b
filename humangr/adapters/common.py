"""What the framework adapters share: a framework's tool call (its name, its JSON arguments and
its call id) as the ``ToolCall`` HUMANGR reviews, the review through a ``humangr`` client —
awaited, or blocking from a framework's worker thread — and the text the model reads when a
call is stopped.

Fail closed: arguments that cannot be reviewed faithfully, a tool name HUMANGR cannot show, a
closed client, an engine that does not answer, a timeout or any other error is a ``Verdict``
that is not approved, with a message saying why; the tool does not run.
"""

from __future__ import annotations

import functools
import logging
import re
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

import anyio
import anyio.from_thread
import anyio.to_thread
import msgspec

from humangr.adapters.json_keys import key_given_twice
from humangr.client import Client, SyncClient, prepare_call, tool_action
from humangr.client.tool_call import edited_file_diff
from humangr.contracts import ActionContext, HumanLayerReport, Outcome, ToolCall
from humangr.contracts.errors import HumangrError
from humangr.contracts.review import TOOL_NAME_PATTERN
from humangr.contracts.types import MAX_DIFF_BYTES, is_token
from humangr.engine.errors import ConfigError, ContractError, EngineError, ReviewTimeout

__all__ = [
    "NeedsReviewMode",
    "Status",
    "ToolReviewer",
    "Verdict",
    "parse_arguments",
]

log = logging.getLogger("humangr.adapters")

Status = Literal["approved", "rejected", "needs_review", "error"]
NeedsReviewMode = Literal["auto", "wait", "answer"]
_TOOL = re.compile(TOOL_NAME_PATTERN)
_MAX_RAW = 2 * MAX_DIFF_BYTES
"""Raw JSON arguments longer than this are refused before they are parsed."""
_MAX_MESSAGE = 4_000
_SHOWN_REASONS = 10


@dataclass(frozen=True, slots=True)
class Verdict:
    """The answer on one framework tool call: run it (``approved``, with ``arguments``, the
    reviewed values) or not, with ``message`` for the model."""

    status: Status
    tool: str
    message: str = ""
    report: HumanLayerReport | None = None
    arguments: dict[str, Any] | None = None

    @property
    def approved(self) -> bool:
        """Whether the tool may run (with ``arguments``)."""
        return self.status == "approved" and self.arguments is not None


def _shown(name: str) -> str:
    return name if _TOOL.match(name) else repr(name[:80])


def _bounded(text: str) -> str:
    return text if len(text) <= _MAX_MESSAGE else text[: _MAX_MESSAGE - 1] + "…"


def _reasons(report: HumanLayerReport) -> str:
    reasons = [f"- {r}" for r in report.blocking_reasons[:_SHOWN_REASONS]]
    more = len(report.blocking_reasons) - _SHOWN_REASONS
    if more > 0:
        reasons.append(f"- and {more} more")
    return "\n".join(reasons) or "- no reason given"


def _call(**arguments: Any) -> None:
    """Stands for the framework's tool: its arguments are the call's JSON object."""


def parse_arguments(tool: str, arguments: str | Mapping[str, Any] | None) -> dict[str, Any]:
    """The call's arguments as a dict: a JSON object (text), a mapping, or none at all.
    Raises ``ContractError`` naming the problem for anything else."""

    def bad(problem: str) -> ContractError:
        return ContractError("ToolCall", f"the arguments of {_shown(tool)}", problem)

    if arguments is None:
        return {}
    if isinstance(arguments, Mapping):
        return dict(arguments)
    if not isinstance(arguments, str):
        raise bad(f"a {type(arguments).__name__[:64]}, not a JSON object")
    if len(arguments) > _MAX_RAW:
        raise bad(
            f"{len(arguments):,} characters, past the review limit of {MAX_DIFF_BYTES:,} "
            "bytes: pass large content by reference or split the call"
        )
    if not arguments.strip():
        return {}
    try:
        value = msgspec.json.decode(arguments)
    except msgspec.DecodeError as exc:
        raise bad(f"not valid JSON ({exc})") from None
    if not isinstance(value, dict):
        raise bad("not a JSON object")
    twice = key_given_twice(arguments)  # a parser keeping the other copy runs the unreviewed
    if twice is not None:
        raise bad(f"the key {twice[:80]!r} is given twice")
    return value


class ToolReviewer:
    """Reviews a framework's tool calls through ``client`` (``humangr.connect`` or
    ``connect_sync``): ``review`` from async code, ``review_blocking`` from a worker thread."""

    def __init__(
        self,
        client: Client | SyncClient,
        *,
        framework: str,
        agent_id: str | None = None,
        action_type: str = "tool_call",
        timeout: float | None = None,
        workspace: str | None = None,
        on_needs_review: NeedsReviewMode = "auto",
    ) -> None:
        inner = client.client if isinstance(client, SyncClient) else client
        if not isinstance(inner, Client):
            raise ConfigError(
                f"{framework}: give a humangr client (humangr.connect() or connect_sync()), "
                f"not {type(client).__name__}"
            )
        if agent_id is not None and not is_token(agent_id):
            raise ConfigError(
                f"{framework}: agent_id {agent_id!r} must be 1-64 letters, digits, _ or -"
            )
        if not 1 <= len(action_type) <= 128:
            raise ConfigError(f"{framework}: action_type must be 1-128 characters")
        if timeout is not None and not (isinstance(timeout, int | float) and timeout > 0):
            raise ConfigError(f"{framework}: timeout must be a positive number of seconds")
        if on_needs_review not in ("auto", "wait", "answer"):
            raise ConfigError(
                f"{framework}: on_needs_review must be 'auto', 'wait' or 'answer', not "
                f"{on_needs_review!r}"
            )
        self.client = inner
        self.framework = framework
        self.agent_id = agent_id
        self.action_type = action_type
        self.timeout = timeout
        self.workspace = workspace
        self.on_needs_review = on_needs_review

    @property
    def waits_for_human(self) -> bool:
        """Whether a ``needs_review`` is waited past for the human's resolution: ``wait``, or
        ``auto`` with a client whose engine a human can reach (a served engine, or the
        embedded one with ``state=``)."""
        if self.on_needs_review != "auto":
            return self.on_needs_review == "wait"
        reachable = getattr(self.client, "human_reachable", None)
        return bool(reachable) if reachable is not None else self.client.engine is None

    async def review(
        self,
        tool: str,
        arguments: str | Mapping[str, Any] | None,
        call_id: str | None,
        *,
        final: bool | None = None,
    ) -> Verdict:
        """Review one call (``final``: wait past a ``needs_review`` for the human; default
        ``waits_for_human``). Never raises an ``Exception``: a failure is an ``error``
        verdict."""
        try:
            action, run = await self._action(tool, arguments, call_id)
            wait = self.waits_for_human if final is None else final
            if threading.get_ident() == self.client.loop_thread:
                report = await self.client.review(action, final=wait, timeout=self.timeout)
            else:  # another event loop (Runner.run_sync, a connect_sync client): its thread
                submit = functools.partial(self._submit_blocking, action, wait)
                report = await anyio.to_thread.run_sync(submit, abandon_on_cancel=True)
        except Exception as exc:
            return self.failed(tool, exc)
        return self.verdict(tool, report, run)

    def review_blocking(
        self,
        tool: str,
        arguments: str | Mapping[str, Any] | None,
        call_id: str | None,
        *,
        final: bool | None = None,
    ) -> Verdict:
        """``review`` from a thread that is not the client's event loop (a framework's sync
        path); from inside that loop it would block the loop, so it is an ``error`` verdict."""
        try:
            if threading.get_ident() == self.client.loop_thread:
                raise EngineError(
                    "a sync tool call was reviewed inside the event loop of the async HUMANGR "
                    "client, where waiting would block the loop: run the agent with its async "
                    "API (ainvoke / Runner.run), or use humangr.connect_sync() in sync code"
                )
            return anyio.from_thread.run(
                functools.partial(self.review, tool, arguments, call_id, final=final),
                token=self.client.token,
            )
        except Exception as exc:
            return self.failed(tool, exc)

    def _submit_blocking(self, action: ActionContext, final: bool) -> HumanLayerReport:
        review = functools.partial(self.client.review, action, final=final, timeout=self.timeout)
        return anyio.from_thread.run(review, token=self.client.token)

    async def _action(
        self, tool: str, arguments: str | Mapping[str, Any] | None, call_id: str | None
    ) -> tuple[ActionContext, dict[str, Any]]:
        if self.client.closed:
            raise EngineError("the HUMANGR client is closed; open a new one with connect()")
        if not isinstance(tool, str) or not _TOOL.match(tool):
            raise ConfigError(
                f"the tool name {_shown(str(tool))} is not one HUMANGR can review (1-128 "
                "letters, digits, _, . or -): give the tool such a name"
            )
        parsed = parse_arguments(tool, arguments)
        prepared = prepare_call(
            _call, (), parsed, tool=tool, workspace=self.workspace, max_bytes=MAX_DIFF_BYTES
        )
        try:  # every bound of the contract (argument names, their number), checked here
            msgspec.json.decode(msgspec.json.encode(prepared.tool_call), type=ToolCall)
        except msgspec.ValidationError as exc:
            raise ContractError("ToolCall", f"the call to {tool}", str(exc)) from None
        diff = await edited_file_diff(prepared.tool_call, max_bytes=MAX_DIFF_BYTES // 2)
        shown_id = re.sub(r"[^A-Za-z0-9_.:-]", "?", str(call_id or "")[:100])
        action = tool_action(
            prepared,
            agent_id=self.agent_id or self.client.agent_id,
            action_type=self.action_type,
            call=f"{self.framework} tool call {shown_id}".rstrip(),
            code_diff=diff,
        )
        return action, dict(prepared.kwargs)

    def verdict(self, tool: str, report: HumanLayerReport, run: dict[str, Any]) -> Verdict:
        """The verdict a decision gives the call, with the model's message."""
        if report.outcome is Outcome.APPROVED:
            return Verdict("approved", tool, report=report, arguments=run)
        if report.outcome is Outcome.NEEDS_REVIEW and not report.resolved_by:
            text = (
                f"HUMANGR: this call to `{tool}` needs a human's review and did not run "
                f"(action {report.action_id}). Why:\n{_reasons(report)}\n"
                "Tell the user that a human must review this action; do not retry it or try "
                "to get around the review."
            )
            return Verdict("needs_review", tool, _bounded(text), report)
        who = f" by {report.resolved_by}" if report.resolved_by else ""
        text = (
            f"HUMANGR rejected this call to `{tool}`{who}; it did not run "
            f"(action {report.action_id}). Why:\n{_reasons(report)}\n"
            "Do not retry the same call: change it so it avoids these problems, or ask the user."
        )
        return Verdict("rejected", tool, _bounded(text), report)

    def answered(self, verdict: Verdict) -> None:
        """Log, for the humans, a ``needs_review`` the model was told about instead of waiting:
        the action, and the command that resolves it where one can."""
        report = verdict.report
        if verdict.status != "needs_review" or report is None:
            return
        route: Any = getattr(self.client, "route", None)
        if getattr(route, "reachable", False):
            how = f"a human resolves it with `{route.resolve_command(report.action_id)}`"
        else:
            how = "no human can reach this engine's reviews (connect(state=...) keeps them)"
        log.warning(
            "%s: the call to %s needs a human review; the agent was told and the call did not "
            "run; %s",
            report.action_id,
            verdict.tool,
            how,
        )

    def failed(self, tool: str, exc: BaseException) -> Verdict:
        """The verdict when the review itself failed: not approved, saying why."""
        why = str(exc) if isinstance(exc, HumangrError) else f"{type(exc).__name__} in the review"
        if isinstance(exc, ReviewTimeout):  # the commands that resolve it are for a human
            log.warning("the call to %s was not run: %s", _shown(tool), exc)
            why = f"no decision on {exc.action_id} within {exc.timeout:g}s"
        elif not isinstance(exc, HumangrError):
            log.warning("reviewing a call to %s failed: %s", _shown(tool), type(exc).__name__)
        text = (
            f"HUMANGR could not review this call to {_shown(tool)}, so it did not run: {why}. "
            "Tell the user; do not try to get around the review."
        )
        return Verdict("error", tool, _bounded(text))
