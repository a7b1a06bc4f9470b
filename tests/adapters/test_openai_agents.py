"""The OpenAI Agents SDK adapter, driven by the SDK's own scripted model (``agents.testing``)
through ``Runner.run``, against a served engine on the MemoryBus and on a real nats-server:
approved calls run and their output reaches the model; rejected ones never run and the model
reads the reasons; ``needs_review`` stops the run with the SDK's interruption (or waits for the
HUMANGR human, or tells the model); an engine that cannot answer never lets a call run."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any, Literal

import anyio
import pytest
from adapters_kit import (
    SECRET_WRITE,
    WIPE,
    Served,
    engine_gone,
    first_needing_review,
    served,
)
from agents.testing import ScriptedModel, assistant_message, function_call

from agents import (
    Agent,
    FunctionTool,
    RunConfig,
    Runner,
    RunResult,
    ToolExecutionConfig,
    function_tool,
)
from humangr.adapters.openai_agents import HumangrGuard, OnNeedsReview, guard_tools
from humangr.client import Client

pytestmark = pytest.mark.anyio
Verdict = Literal["approve", "reject"]
QUIET = RunConfig(tracing_disabled=True)


@pytest.fixture(params=["memory", "nats"])
async def env(request: pytest.FixtureRequest) -> AsyncIterator[Served]:
    url = None if request.param == "memory" else request.getfixturevalue("nats_url")
    async with served(url) as pair:
        yield pair


class Tools:
    """A shell tool and a file-write tool that only record what they were asked to do."""

    def __init__(self) -> None:
        self.ran: list[str] = []

        @function_tool
        def shell(command: str) -> str:
            """Run a command line."""
            self.ran.append(f"shell {command}")
            return f"ran {command}"

        @function_tool
        def write_file(path: str, content: str) -> str:
            """Write a file."""
            self.ran.append(f"write_file {path}")
            return f"wrote {len(content)} characters to {path}"

        self.shell = shell
        self.write_file = write_file


def outputs(model: ScriptedModel) -> dict[str, str]:
    """The tool outputs the model read, by call id."""
    found: dict[str, str] = {}
    for call in model.calls:
        for item in call.input if isinstance(call.input, list) else []:
            if isinstance(item, dict) and item.get("type") == "function_call_output":
                found[str(item["call_id"])] = str(item["output"])
    return found


async def run(
    hg: Client,
    *calls: tuple[str, Any, str],
    on_needs_review: OnNeedsReview = "interrupt",
    tools: Tools | None = None,
) -> tuple[RunResult, ScriptedModel, Tools]:
    tools = tools or Tools()
    model = ScriptedModel(
        [
            [function_call(name, args, call_id=call_id) for name, args, call_id in calls],
            [assistant_message("done")],
        ]
    )
    guarded = guard_tools([tools.shell, tools.write_file], hg, on_needs_review=on_needs_review)
    agent = Agent(name="coder", model=model, tools=guarded)
    result = await Runner.run(agent, "tidy up", run_config=QUIET)
    return result, model, tools


async def test_an_approved_call_runs_and_its_output_reaches_the_model(env: Served) -> None:
    result, model, tools = await run(env.hg, ("shell", {"command": "ls -la"}, "c1"))

    assert tools.ran == ["shell ls -la"]
    assert outputs(model) == {"c1": "ran ls -la"}
    assert result.final_output == "done"
    assert result.interruptions == []


@pytest.mark.parametrize(
    ("tool", "args", "reason"),
    [
        ("shell", WIPE, "recursive delete of /"),
        ("write_file", SECRET_WRITE, "AWS credential"),
    ],
)
async def test_a_rejected_call_does_not_run_and_the_model_reads_why(
    env: Served, tool: str, args: dict[str, str], reason: str
) -> None:
    result, model, tools = await run(
        env.hg, (tool, args, "bad"), ("shell", {"command": "pwd"}, "fine")
    )

    assert tools.ran == ["shell pwd"], "the rejected call never ran; the other one did"
    said = outputs(model)
    assert said["fine"] == "ran pwd"
    assert said["bad"].startswith(f"HUMANGR rejected this call to `{tool}`; it did not run")
    assert reason in said["bad"]
    assert result.final_output == "done", "the run went on: the model can change course"
    assert result.interruptions == [], "a rejection asks nobody"


async def test_needs_review_interrupts_the_run_and_the_sdk_approval_runs_it(env: Served) -> None:
    env.kit.needs_review("HL2", "Mails every customer")
    result, model, tools = await run(env.hg, ("shell", {"command": "mail-all"}, "c1"))

    assert tools.ran == [], "nothing runs while a human decides"
    [pending] = result.interruptions
    assert pending.tool_name == "shell"
    state = result.to_state()
    state.approve(pending)
    resumed = await Runner.run(result.last_agent, state, run_config=QUIET)

    assert tools.ran == ["shell mail-all"]
    assert outputs(model)["c1"] == "ran mail-all"
    assert resumed.final_output == "done"


async def test_with_guardrails_before_approval_the_sdk_still_asks_the_human(env: Served) -> None:
    env.kit.needs_review("HL2", "Mails every customer")
    early = RunConfig(
        tracing_disabled=True,
        tool_execution=ToolExecutionConfig(pre_approval_tool_input_guardrails=True),
    )
    tools = Tools()
    model = ScriptedModel(
        [
            [
                function_call("shell", {"command": "mail-all"}, call_id="ask"),
                function_call("shell", WIPE, call_id="bad"),
            ],
            [assistant_message("done")],
        ]
    )
    agent = Agent(name="coder", model=model, tools=guard_tools([tools.shell], env.hg))
    result = await Runner.run(agent, "go", run_config=early)

    assert tools.ran == []
    assert [item.tool_name for item in result.interruptions] == ["shell"]
    state = result.to_state()
    state.approve(result.interruptions[0])
    await Runner.run(agent, state, run_config=early)

    assert tools.ran == ["shell mail-all"], "approved by the human; the wipe never runs"
    assert "recursive delete of /" in outputs(model)["bad"]


async def test_needs_review_rejected_in_the_sdk_does_not_run(env: Served) -> None:
    env.kit.needs_review("HL2", "Mails every customer")
    result, _model, tools = await run(env.hg, ("shell", {"command": "mail-all"}, "c1"))
    state = result.to_state()
    state.reject(result.interruptions[0])
    await Runner.run(result.last_agent, state, run_config=QUIET)

    assert tools.ran == []


@pytest.mark.parametrize("verdict", ["approve", "reject"])
async def test_needs_review_can_wait_for_the_humangr_human(env: Served, verdict: Verdict) -> None:
    env.kit.needs_review("HL2", "Mails every customer")
    done: list[tuple[RunResult, ScriptedModel, Tools]] = []

    async def agent() -> None:
        done.append(
            await run(env.hg, ("shell", {"command": "mail-all"}, "c1"), on_needs_review="wait")
        )

    with anyio.fail_after(30):
        async with anyio.create_task_group() as tg:
            tg.start_soon(agent)
            pending = await first_needing_review(env.kit)
            await env.kit.resolve(pending, verdict, reviewer="alice")

    [(result, model, tools)] = done
    assert result.interruptions == []
    if verdict == "approve":
        assert tools.ran == ["shell mail-all"]
    else:
        assert tools.ran == []
        assert "HUMANGR rejected this call to `shell` by alice" in outputs(model)["c1"]


async def test_needs_review_can_be_answered_at_once_naming_the_action(env: Served) -> None:
    env.kit.needs_review("HL2", "Mails every customer")
    result, model, tools = await run(
        env.hg, ("shell", {"command": "mail-all"}, "c1"), on_needs_review="answer"
    )

    assert tools.ran == []
    assert result.interruptions == []
    said = outputs(model)["c1"]
    pending = await first_needing_review(env.kit)
    assert f"needs a human's review and did not run (action {pending.action_id})" in said
    assert "Mails every customer" in said


async def test_a_closed_client_never_lets_a_call_run() -> None:
    import humangr

    async with humangr.connect() as hg:
        pass
    result, model, tools = await run(
        hg, ("shell", {"command": "ls"}, "c1"), on_needs_review="answer"
    )

    assert tools.ran == []
    assert "HUMANGR could not review this call to shell" in outputs(model)["c1"]
    assert "client is closed" in outputs(model)["c1"]
    assert result.final_output == "done"


async def test_an_engine_that_never_answers_never_lets_a_call_run() -> None:
    async with engine_gone(timeout=0.5) as hg:
        result, model, tools = await run(hg, ("shell", {"command": "ls"}, "c1"))

    assert tools.ran == []
    assert "no decision" in outputs(model)["c1"]
    assert result.interruptions == [], "a failed review is answered by the guardrail"


async def test_the_guardrail_alone_refuses_arguments_it_cannot_review(env: Served) -> None:
    tools = Tools()
    guard = HumangrGuard(env.hg, on_needs_review="answer")
    shell = tools.shell
    assert isinstance(shell, FunctionTool)
    shell.tool_input_guardrails = [guard.guardrail]
    huge = json.dumps({"command": "x" * 2_100_000})
    model = ScriptedModel(
        [
            [
                function_call("shell", "{not json", call_id="garbled"),
                function_call("shell", huge, call_id="huge"),
                function_call("shell", '{"command":"ls","command":"rm -rf /"}', call_id="twice"),
                function_call("shell", {"command": "ls"}, call_id="fine"),
            ],
            [assistant_message("done")],
        ]
    )
    agent = Agent(name="coder", model=model, tools=[shell])
    await Runner.run(agent, "go", run_config=QUIET)

    said = outputs(model)
    assert tools.ran == ["shell ls"]
    assert "not valid JSON" in said["garbled"]
    assert "past the review limit" in said["huge"]
    assert "the key 'command' is given twice" in said["twice"]
    assert said["fine"] == "ran ls"


async def test_a_tool_named_what_humangr_cannot_show_does_not_run(env: Served) -> None:
    ran: list[str] = []

    @function_tool(name_override="run shell!")
    def shell(command: str) -> str:
        """Run a command line."""
        ran.append(command)
        return "ran"

    model = ScriptedModel(
        [[function_call("run shell!", {"command": "ls"}, call_id="c1")], [assistant_message("ok")]]
    )
    agent = Agent(name="coder", model=model, tools=guard_tools([shell], env.hg))
    result = await Runner.run(agent, "go", run_config=QUIET)

    assert ran == []
    assert result.interruptions == []
    assert "is not one HUMANGR can review" in outputs(model)["c1"]


async def test_needs_approval_alone_asks_a_human_for_every_call_not_approved(env: Served) -> None:
    guard = HumangrGuard(env.hg)
    ask = guard.needs_approval("shell")
    context: Any = None

    assert await ask(context, {"command": "ls"}, "c1") is False
    assert await ask(context, WIPE, "c2") is True, "no guardrail: a human must see it"
    assert await guard.needs_approval("shell", with_guardrail=True)(context, WIPE, "c3") is False


def test_a_sync_run_reviews_through_a_sync_client() -> None:
    import humangr

    with humangr.connect_sync(agent_id="sync-agent") as hg:
        tools = Tools()
        model = ScriptedModel(
            [
                [
                    function_call("shell", WIPE, call_id="bad"),
                    function_call("shell", {"command": "ls"}, call_id="fine"),
                ],
                [assistant_message("done")],
            ]
        )
        agent = Agent(name="coder", model=model, tools=guard_tools([tools.shell], hg))
        result = Runner.run_sync(agent, "go", run_config=QUIET)

    assert tools.ran == ["shell ls"]
    assert "recursive delete of /" in outputs(model)["bad"]
    assert result.final_output == "done"
