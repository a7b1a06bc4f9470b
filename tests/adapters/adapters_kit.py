"""What the framework adapter tests share: a served engine (the test kit's, on the MemoryBus or
a real nats-server) with a client of it, a scripted LangChain chat model that records what the
model reads, and tool calls an agent must never make.

It imports ``humangr.adapters.openai_agents`` first: run from the repository, its ``agents/``
folder would otherwise be imported as the OpenAI Agents SDK's ``agents`` by the test modules."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any

from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatResult

import humangr.adapters.openai_agents  # noqa: F401  (loads the SDK's `agents`, see below)
from humangr.client import Client, connect
from humangr.contracts import Decision, Outcome
from humangr.engine.bus import MemoryBus
from humangr.testing import HumangrTestEngine
from humangr.testing import humangr as test_engine

AWS_KEY = "AKIA" + "Z3MHALXQ4TESTKEY"
"""A made-up key in AWS's format."""
SECRET_WRITE = {"path": "creds", "content": f"aws_access_key_id = {AWS_KEY}\n"}
WIPE = {"command": "rm -rf /"}


@dataclass
class Served:
    kit: HumangrTestEngine
    hg: Client


@asynccontextmanager
async def served(nats_url: str | None, **client_options: Any) -> AsyncIterator[Served]:
    """The kit's engine (layers HL2 and HL4, their LLM scripted clean) and a client of it, over
    ``nats_url`` (a unique prefix) or else the kit's own MemoryBus."""
    async with test_engine(nats_url=nats_url, layers=["HL2", "HL4"]) as kit:
        key = kit.engine.public_key
        prefix = kit.subjects.prefix
        if nats_url is None:
            client = connect(bus=kit.bus, prefix=prefix, public_key=key, **client_options)
        else:
            client = connect(nats_url, prefix=prefix, public_key=key, **client_options)
        async with client as hg:
            yield Served(kit, hg)


@asynccontextmanager
async def engine_gone(**client_options: Any) -> AsyncIterator[Client]:
    """A served client on a bus where no engine listens: every review times out."""
    async with MemoryBus() as bus, connect(bus=bus, insecure_unsigned=True, **client_options) as hg:
        yield hg


async def first_needing_review(kit: HumangrTestEngine) -> Decision:
    """The first ``needs_review`` decision the engine publishes."""
    async for decision in kit.decisions():
        if decision.outcome is Outcome.NEEDS_REVIEW and not decision.resolved_by:
            return decision
    raise AssertionError("the engine stopped before a needs_review decision")


def tool_calls(*calls: tuple[str, Any, str]) -> AIMessage:
    """An assistant message asking for ``calls``: (tool name, arguments, call id)."""
    return AIMessage(
        content="",
        tool_calls=[{"name": name, "args": args, "id": call_id} for name, args, call_id in calls],
    )


class ScriptedChatModel(GenericFakeChatModel):
    """LangChain's fake chat model, answering ``messages`` in turn, that accepts tools (as a
    real chat model does) and records every conversation it is given in ``seen``."""

    seen: list[list[BaseMessage]] = []

    def bind_tools(self, tools: Sequence[Any], **kwargs: Any) -> ScriptedChatModel:
        return self

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        self.seen.append(list(messages))
        return super()._generate(messages, stop=stop, run_manager=run_manager, **kwargs)


def scripted(*replies: AIMessage) -> ScriptedChatModel:
    """A scripted chat model answering ``replies`` in turn (then "done")."""
    answers: Iterator[AIMessage] = iter([*replies, AIMessage(content="done")])
    return ScriptedChatModel(messages=answers, seen=[])
