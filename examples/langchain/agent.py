"""A LangChain agent (``create_agent``) whose tools run only when HUMANGR approves the call.

The model is langchain_core's fake chat model, so this runs with no network and no API key: it
asks for five tool calls, then answers. ``HumangrMiddleware`` reviews each call before the tool
runs: approved calls run; rejected ones never run and the model reads an error ``ToolMessage``
with the reasons; a call the policy says a human must decide (``deploy``, see policy.toml) is
answered at once naming the action a human must review — this embedded engine keeps its reviews
in memory, where no human can reach them (``connect_sync(state="reviews.db")`` or a served
engine would make the middleware wait for the human instead). The agent is sync, so the client
is ``humangr.connect_sync``.

    python examples/langchain/agent.py
"""

from __future__ import annotations

import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from langchain.agents import create_agent
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, ToolMessage
from langchain_core.tools import tool

import humangr
from humangr.adapters.langchain import HumangrMiddleware

POLICY = Path(__file__).with_name("policy.toml")
LEAKED_KEY = "AKIA" + "Z3MHALXQ4EXAMPLE"
"""A made-up key in AWS's format: what an agent must never write to disk."""


class ScriptedModel(GenericFakeChatModel):
    """The fake chat model, accepting tools as a real chat model does."""

    def bind_tools(self, tools: Sequence[Any], **kwargs: Any) -> ScriptedModel:
        return self


def main() -> int:
    with tempfile.TemporaryDirectory(prefix="humangr-langchain-") as tmp:
        return run_agent(Path(tmp))


def run_agent(work: Path) -> int:
    ran: list[str] = []

    @tool
    def shell(command: str) -> str:
        """Run a command line (here: pretend to)."""
        ran.append(f"shell {command}")
        return f"(pretend) ran {command}"

    @tool
    def write_file(path: str, content: str) -> str:
        """Write a file inside the work directory."""
        target = (work / path).resolve()
        if not target.is_relative_to(work.resolve()):
            return f"{path} is outside the work directory"
        target.write_text(content)
        ran.append(f"write_file {path}")
        return f"wrote {len(content)} characters to {path}"

    @tool
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
    asks = AIMessage(
        content="",
        tool_calls=[
            {"name": name, "args": args, "id": f"call-{i}"} for i, (name, args) in enumerate(calls)
        ],
    )
    answer = AIMessage(content="Done: some calls were stopped, and I told the user why.")
    model = ScriptedModel(messages=iter([asks, answer]))
    with humangr.connect_sync(agent_id="langchain-agent", policy=POLICY) as hg:
        agent = create_agent(
            model, tools=[shell, write_file, deploy], middleware=[HumangrMiddleware(hg)]
        )
        out = agent.invoke({"messages": [{"role": "user", "content": "Tidy up and ship it."}]})

    said = {m.tool_call_id: m for m in out["messages"] if isinstance(m, ToolMessage)}
    for i, (name, args) in enumerate(calls):
        what = f"{name} {next(iter(args.values()))!r}"  # the first argument: no content
        message = said[f"call-{i}"]
        if message.status == "error":
            print(f"stopped: {what}")
            print("  the model read: " + str(message.content).replace("\n", "\n  "))
        else:
            print(f"ran: {what} -> {message.content}")
    print(f"the model's last word: {out['messages'][-1].content}")
    written = sorted(str(p.relative_to(work)) for p in work.rglob("*") if p.is_file())
    print(f"files in the work directory: {', '.join(written)}")
    # The agent runs a turn's tool calls side by side, so they finish in any order.
    expected = ["shell echo hello", "write_file notes.md"]
    return 0 if sorted(ran) == expected and written == ["notes.md"] else 1


if __name__ == "__main__":
    sys.exit(main())
