"""The LangChain / LangGraph adapter, driven by langchain_core's fake chat model through
``create_agent`` (and LangGraph's prebuilt ``ToolNode``), against a served engine on the
MemoryBus and on a real nats-server: approved calls run; rejected ones never run and the model
reads an error ``ToolMessage`` with the reasons; ``needs_review`` waits for the human or answers
naming the action; an engine that cannot answer never lets a call run; hostile calls are
refused."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any, Literal, cast

import anyio
import pytest
from adapters_kit import (
    SECRET_WRITE,
    WIPE,
    ScriptedChatModel,
    Served,
    engine_gone,
    first_needing_review,
    scripted,
    served,
    tool_calls,
)
from langchain.agents import create_agent
from langchain_core.messages import AIMessage, ToolMessage
from langchain_core.tools import BaseTool, tool
from langgraph.graph import END, START, MessagesState, StateGraph
from langgraph.prebuilt import ToolNode
from langgraph.prebuilt.tool_node import ToolCallRequest

import humangr
from humangr.adapters.common import NeedsReviewMode
from humangr.adapters.langchain import HumangrMiddleware
from humangr.client import Client, SyncClient
from humangr.engine.bus import MemoryBus

pytestmark = pytest.mark.anyio
Verdict = Literal["approve", "reject"]


@pytest.fixture(params=["memory", "nats"])
async def env(request: pytest.FixtureRequest) -> AsyncIterator[Served]:
    url = None if request.param == "memory" else request.getfixturevalue("nats_url")
    async with served(url) as pair:
        yield pair


class Tools:
    """A shell tool and a file-write tool that only record what they were asked to do."""

    def __init__(self) -> None:
        self.ran: list[str] = []

        @tool
        def shell(command: str) -> str:
            """Run a command line."""
            self.ran.append(f"shell {command}")
            return f"ran {command}"

        @tool
        def write_file(path: str, content: str) -> str:
            """Write a file."""
            self.ran.append(f"write_file {path}")
            return f"wrote {len(content)} characters to {path}"

        self.all: list[BaseTool] = [shell, write_file]


def answers(out: dict[str, Any]) -> dict[str, ToolMessage]:
    """The tool messages of a finished run, by call id."""
    return {m.tool_call_id: m for m in out["messages"] if isinstance(m, ToolMessage)}


async def run(
    hg: Client | SyncClient,
    *calls: tuple[str, Any, str],
    on_needs_review: NeedsReviewMode = "auto",
    tools: Tools | None = None,
) -> tuple[dict[str, ToolMessage], ScriptedChatModel, Tools]:
    tools = tools or Tools()
    model = scripted(tool_calls(*calls))
    middleware = HumangrMiddleware(hg, on_needs_review=on_needs_review)
    agent = create_agent(model, tools=tools.all, middleware=[middleware])
    out = await agent.ainvoke({"messages": [{"role": "user", "content": "tidy up"}]})
    assert out["messages"][-1].content == "done", "the run went on to the model's answer"
    return answers(out), model, tools


async def test_an_approved_call_runs_with_its_arguments(env: Served) -> None:
    said, _model, tools = await run(env.hg, ("shell", {"command": "ls -la"}, "c1"))

    assert tools.ran == ["shell ls -la"]
    assert said["c1"].content == "ran ls -la"
    assert said["c1"].status == "success"


@pytest.mark.parametrize(
    ("name", "args", "reason"),
    [("shell", WIPE, "recursive delete of /"), ("write_file", SECRET_WRITE, "AWS credential")],
)
async def test_a_rejected_call_does_not_run_and_the_model_reads_why(
    env: Served, name: str, args: dict[str, str], reason: str
) -> None:
    said, model, tools = await run(env.hg, (name, args, "bad"), ("shell", {"command": "pwd"}, "ok"))

    assert tools.ran == ["shell pwd"], "the rejected call never ran; the other one did"
    stopped = said["bad"]
    assert stopped.status == "error"
    assert str(stopped.content).startswith(f"HUMANGR rejected this call to `{name}`")
    assert reason in str(stopped.content)
    assert stopped.artifact["humangr"] == "rejected"
    read = [m for m in model.seen[-1] if isinstance(m, ToolMessage)]
    assert any(reason in str(m.content) for m in read), "the model's next input has the reasons"


@pytest.mark.parametrize("verdict", ["approve", "reject"])
async def test_needs_review_waits_for_the_human(env: Served, verdict: Verdict) -> None:
    env.kit.needs_review("HL2", "Mails every customer")
    done: list[tuple[dict[str, ToolMessage], ScriptedChatModel, Tools]] = []

    async def agent() -> None:
        done.append(await run(env.hg, ("shell", {"command": "mail-all"}, "c1")))

    with anyio.fail_after(30):
        async with anyio.create_task_group() as tg:
            tg.start_soon(agent)  # "auto": a served engine is reachable by a human, so it waits
            pending = await first_needing_review(env.kit)
            await env.kit.resolve(pending, verdict, reviewer="alice")

    [(said, _model, tools)] = done
    if verdict == "approve":
        assert tools.ran == ["shell mail-all"]
        assert said["c1"].status == "success"
    else:
        assert tools.ran == []
        assert said["c1"].status == "error"
        assert "rejected this call to `shell` by alice" in str(said["c1"].content)


async def test_needs_review_can_be_answered_at_once_naming_the_action(env: Served) -> None:
    env.kit.needs_review("HL2", "Mails every customer")
    said, _model, tools = await run(
        env.hg, ("shell", {"command": "mail-all"}, "c1"), on_needs_review="answer"
    )

    pending = await first_needing_review(env.kit)
    assert tools.ran == []
    assert said["c1"].status == "error"
    assert f"(action {pending.action_id})" in str(said["c1"].content)
    assert said["c1"].artifact["action_id"] == pending.action_id


async def test_the_embedded_engine_without_a_human_route_answers_at_once(tmp_path: Any) -> None:
    policy = tmp_path / "policy.toml"
    policy.write_text(
        'version = 1\ndefault = "review"\n\n[[rule]]\nid = "mail"\neffect = "ask"\n'
        'tools = ["shell"]\n[rule.match]\ncommand = ["mail-*"]\n'
    )
    async with humangr.connect(policy=str(policy)) as hg:
        with anyio.fail_after(30):
            said, _model, tools = await run(hg, ("shell", {"command": "mail-all"}, "c1"))

    assert tools.ran == []
    assert "needs a human's review and did not run" in str(said["c1"].content)


async def test_a_closed_client_never_lets_a_call_run() -> None:
    async with humangr.connect() as hg:
        pass
    said, _model, tools = await run(hg, ("shell", {"command": "ls"}, "c1"))

    assert tools.ran == []
    assert said["c1"].status == "error"
    assert "client is closed" in str(said["c1"].content)


async def test_an_engine_that_never_answers_never_lets_a_call_run() -> None:
    async with engine_gone(timeout=0.5) as hg:
        said, _model, tools = await run(hg, ("shell", {"command": "ls"}, "c1"))

    assert tools.ran == []
    assert said["c1"].status == "error"
    assert "no decision" in str(said["c1"].content)


async def test_hostile_calls_are_refused_and_never_run(env: Served) -> None:
    tools = Tools()

    @tool("run shell!")
    def odd(command: str) -> str:
        """A tool whose name HUMANGR cannot show."""
        tools.ran.append("odd")
        return "ran"

    tools.all.append(odd)
    many = {f"a{i}": 1 for i in range(300)}
    deep: Any = 1
    for _ in range(40):
        deep = [deep]
    said, _model, _tools = await run(
        env.hg,
        ("run shell!", {"command": "ls"}, "name"),
        ("shell", {"command": "x" * 1_100_000}, "huge"),
        ("shell", {"command": deep}, "deep"),
        ("write_file", many, "many"),
        tools=tools,
    )

    assert tools.ran == []
    assert "is not one HUMANGR can review" in str(said["name"].content)
    assert "past the review limit" in str(said["huge"].content)
    assert "nests deeper" in str(said["deep"].content)
    assert "HUMANGR could not review" in str(said["many"].content)
    assert all(m.status == "error" for m in said.values())


async def test_arguments_with_no_json_form_are_refused(env: Served) -> None:
    tools = Tools()
    middleware = HumangrMiddleware(env.hg)
    node = ToolNode(tools.all, awrap_tool_call=middleware.awrap_tool_call)
    graph = StateGraph(MessagesState)
    graph.add_node("tools", node)
    graph.add_edge(START, "tools")
    graph.add_edge("tools", END)
    calls = [
        {"name": "shell", "args": {"command": object()}, "id": "obj"},
        {"name": "shell", "args": {"command": float("nan")}, "id": "nan"},
        {"name": "shell", "args": WIPE, "id": "wipe"},
        {"name": "shell", "args": {"command": "ls"}, "id": "fine"},
    ]
    out = await graph.compile().ainvoke({"messages": [AIMessage(content="", tool_calls=calls)]})

    said = answers(out)
    assert tools.ran == ["shell ls"], "only the reviewed, approved call ran (a ToolNode too)"
    assert "no JSON form" in str(said["obj"].content)
    assert "no JSON form" in str(said["nan"].content)
    assert "recursive delete of /" in str(said["wipe"].content)
    assert said["fine"].content == "ran ls"


def test_a_sync_agent_reviews_through_a_sync_client() -> None:
    tools = Tools()
    with humangr.connect_sync(agent_id="sync-agent") as hg:
        model = scripted(tool_calls(("shell", WIPE, "bad"), ("shell", {"command": "ls"}, "ok")))
        agent = create_agent(model, tools=tools.all, middleware=[HumangrMiddleware(hg)])
        out = agent.invoke({"messages": [{"role": "user", "content": "go"}]})

    said = answers(out)
    assert tools.ran == ["shell ls"]
    assert "recursive delete of /" in str(said["bad"].content)
    assert said["ok"].content == "ran ls"


@pytest.mark.parametrize(
    ("args", "problem"),
    [
        (["ls"], "a list, not a JSON object"),
        ("[1]", "not a JSON object"),
        ('{"command": ', "not valid JSON"),
        ({"command": "\ud800"}, "not valid UTF-8"),
        ({"x" * 200: "ls"}, "length <= 128"),
        ('{"command": "ls", "command": "rm -rf /"}', "the key 'command' is given twice"),
        ('{"a": {"b": 1, "b": 2}}', "the key 'b' is given twice"),
    ],
)
async def test_calls_a_model_garbled_are_refused_before_any_review(
    env: Served, args: Any, problem: str
) -> None:
    reviewer = HumangrMiddleware(env.hg).reviewer
    verdict = await reviewer.review("shell", args, "c1")

    assert verdict.status == "error"
    assert not verdict.approved
    assert problem in verdict.message
    assert verdict.report is None, "nothing was submitted"


async def test_a_sync_call_inside_the_clients_own_loop_is_refused_not_deadlocked() -> None:
    ran: list[str] = []

    def handler(request: ToolCallRequest) -> ToolMessage:
        ran.append(request.tool_call["name"])
        return ToolMessage(content="ran", tool_call_id="c1")

    async with humangr.connect() as hg:
        request = ToolCallRequest(
            tool_call={"name": "shell", "args": {"command": "ls"}, "id": "c1"},
            tool=None,
            state=None,
            runtime=cast(Any, None),
        )
        answer = HumangrMiddleware(hg).wrap_tool_call(request, handler)  # returns at once

    assert ran == []
    assert isinstance(answer, ToolMessage)
    assert answer.status == "error"
    assert "would block the loop" in str(answer.content)


async def test_a_client_whose_bus_closed_never_lets_a_call_run() -> None:
    async with MemoryBus() as bus, humangr.connect(bus=bus, insecure_unsigned=True) as hg:
        await bus.close()
        said, _model, tools = await run(hg, ("shell", {"command": "ls"}, "c1"))

    assert tools.ran == []
    assert said["c1"].status == "error"
    assert "HUMANGR could not review this call to shell" in str(said["c1"].content)
