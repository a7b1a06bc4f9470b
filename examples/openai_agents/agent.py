"""An OpenAI Agents SDK agent whose function tools run only when HUMANGR approves the call.

The model is the SDK's own scripted model (``agents.testing.ScriptedModel``), so this runs with
no network and no API key: it asks for five tool calls, then reads what came back. HUMANGR
reviews each call before the tool runs (``guard_tools``): approved calls run; rejected ones
never run and the model reads the reasons as the tool's output; a call the policy says a human
must decide (``deploy``, see policy.toml) stops the run with the SDK's interruption, and this
script — standing in for the human — approves it with ``state.approve``. The engine runs in
this process with its local checks (``humangr.connect(policy=...)``).

    python examples/openai_agents/agent.py
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

import anyio
from agents.testing import ScriptedModel, assistant_message, function_call

import humangr
from agents import Agent, RunConfig, Runner, function_tool
from humangr.adapters.openai_agents import guard_tools

POLICY = Path(__file__).with_name("policy.toml")
LEAKED_KEY = "AKIA" + "Z3MHALXQ4EXAMPLE"
"""A made-up key in AWS's format: what an agent must never write to disk."""
QUIET = RunConfig(tracing_disabled=True)  # no traces sent anywhere


async def main() -> int:
    with tempfile.TemporaryDirectory(prefix="humangr-openai-agents-") as tmp:
        return await run_agent(Path(tmp))


async def run_agent(work: Path) -> int:
    ran: list[str] = []

    @function_tool
    def shell(command: str) -> str:
        """Run a command line (here: pretend to)."""
        ran.append(f"shell {command}")
        return f"(pretend) ran {command}"

    @function_tool
    def write_file(path: str, content: str) -> str:
        """Write a file inside the work directory."""
        target = (work / path).resolve()
        if not target.is_relative_to(work.resolve()):
            return f"{path} is outside the work directory"
        target.write_text(content)
        ran.append(f"write_file {path}")
        return f"wrote {len(content)} characters to {path}"

    @function_tool
    def deploy(service: str) -> str:
        """Deploy a service (here: pretend to)."""
        ran.append(f"deploy {service}")
        return f"(pretend) deployed {service}"

    calls = [
        ("shell", {"command": "echo hello"}),
        ("write_file", {"path": "notes.md", "content": "1. read the issue\n"}),
        ("shell", {"command": "rm -rf /"}),
        ("write_file", {"path": "creds", "content": f"aws_access_key_id = {LEAKED_KEY}\n"}),
        ("deploy", {"service": "web"}),
    ]
    model = ScriptedModel(
        [
            [
                function_call(name, args, call_id=f"call-{i}")
                for i, (name, args) in enumerate(calls)
            ],
            [assistant_message("Done: some calls were stopped, and I told the user why.")],
        ]
    )
    async with humangr.connect(agent_id="openai-agent", policy=POLICY) as hg:
        agent = Agent(name="coder", model=model, tools=guard_tools([shell, write_file, deploy], hg))
        result = await Runner.run(agent, "Tidy up and ship it.", run_config=QUIET)
        for item in result.interruptions:
            print(f"needs a human: {item.tool_name} (the run is interrupted)")
        state = result.to_state()
        for item in result.interruptions:
            state.approve(item)  # the human says yes, in the SDK's own approval flow
            print(f"a human approves {item.tool_name} (state.approve), and the run resumes")
        result = await Runner.run(agent, state, run_config=QUIET)

    said = tool_outputs(model)
    for i, (name, args) in enumerate(calls):
        what = f"{name} {next(iter(args.values()))!r}"  # the first argument: no content
        output = said.get(f"call-{i}", "")
        if output.startswith("HUMANGR"):
            print(f"stopped: {what}")
            print("  the model read: " + output.replace("\n", "\n  "))
        else:
            print(f"ran: {what} -> {output}")
    print(f"the model's last word: {result.final_output}")
    written = files_in(work)
    print(f"files in the work directory: {', '.join(written)}")
    # A turn's tool calls run side by side, so they finish in any order.
    expected = ["deploy web", "shell echo hello", "write_file notes.md"]
    return 0 if sorted(ran) == expected and written == ["notes.md"] else 1


def files_in(work: Path) -> list[str]:
    return sorted(str(p.relative_to(work)) for p in work.rglob("*") if p.is_file())


def tool_outputs(model: ScriptedModel) -> dict[str, str]:
    """What the model read back for each call id."""
    found: dict[str, str] = {}
    for call in model.calls:
        for item in call.input if isinstance(call.input, list) else []:
            if isinstance(item, dict) and item.get("type") == "function_call_output":
                found[str(item["call_id"])] = str(item["output"])
    return found


if __name__ == "__main__":
    sys.exit(anyio.run(main))
