"""Shared pieces of the policy tests: a realistic policy, actions, and an engine on a bus."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import Any

from humangr.actors.roles import Engine, run_engine
from humangr.contracts import ActionContext, LayerTask, Subjects, ToolCall, ToolKind
from humangr.engine.actor import SupervisionPolicy
from humangr.engine.bus import Bus
from humangr.engine.config import ReviewConfig
from humangr.engine.llm import LLMClient
from humangr.engine.policy import Policy, parse_policy
from humangr.testing.watch import layer_tasks

WORKSPACE = "/work/repo"
SAMPLE_KEY = "AKIAIOSFODNN7EXAMPLE"
"""AWS's documented example access key id."""

POLICY = """\
version = 1
default = "review"

[[rule]]
id = "no-force-push"
effect = "deny"
tools = ["bash", "Bash"]
reason = "force pushes rewrite shared history"
[rule.match]
command = ["git push --force*", "git push -f*", "git push * --force*", "git push * -f*"]

[[rule]]
id = "prod-needs-a-human"
effect = "ask"
reason = "anything that touches production"
[rule.match]
command = ["*prod*"]

[[rule]]
id = "tests"
effect = "allow"
tools = ["bash"]
reason = "running the test suite is always fine"
[rule.match]
command = ["pytest*", "python -m pytest*"]

[[rule]]
id = "docs"
effect = "allow"
kinds = ["file_write", "file_edit"]
reason = "the agent may write documentation"
[rule.match]
file_path = ["docs/**"]

[[suppress]]
id = "aws-doc-sample-key"
check = "secret"
match = "AKIAIOSFODNN7EXAMPLE"
paths = ["docs/**"]
reason = "AWS's documented example key"
"""


def policy(text: str = POLICY, source: str = "policy.toml") -> Policy:
    """``text`` read as a policy file."""
    return parse_policy(text.encode(), source=source)


def call(
    name: str,
    agent: str = "coder",
    *,
    kind: ToolKind | None = None,
    workspace: str = WORKSPACE,
    **arguments: Any,
) -> ActionContext:
    """A tool call of ``agent`` in ``workspace`` (``kind``: as the call declares it)."""
    tool = ToolCall(name=name, arguments=arguments, workspace=workspace, kind=kind)
    return ActionContext(
        agent_id=agent,
        action_type="tool_call",
        action_description=f"tool call {name}",
        tool_call=tool,
    )


def bash(command: str, agent: str = "coder") -> ActionContext:
    """A ``bash`` tool call."""
    return call("bash", agent, command=command)


@asynccontextmanager
async def engine_with(
    bus: Bus, rules: Policy | None, *, llm: LLMClient | None = None
) -> AsyncIterator[Engine]:
    """The engine on ``bus`` (a fresh subject prefix) with the policy ``rules``."""
    subjects = Subjects(prefix=f"p{uuid.uuid4().hex[:10]}")
    config = ReviewConfig(rules=rules)
    async with run_engine(
        bus=bus,
        llm=llm,
        config=config,
        subjects=subjects,
        policy=SupervisionPolicy(initial_backoff=0.01, drain_timeout=2.0),
    ) as engine:
        yield engine


def tasks_of(bus: Bus, engine: Engine) -> AbstractAsyncContextManager[list[LayerTask]]:
    """Every layer task the Supervisor sends while the block runs, by bus or in process."""
    return layer_tasks(bus, engine.subjects, engine=engine)
