"""Shared by the end-to-end tests: example actions and an engine on a fresh subject prefix."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from humangr.actors.roles import Engine, run_engine
from humangr.contracts import ActionContext, Subjects
from humangr.engine.actor import SupervisionPolicy
from humangr.engine.bus import Bus
from humangr.engine.config import ReviewConfig
from humangr.engine.llm import LLMClient
from humangr.engine.signing import SigningKey

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "actions"
CLEAN = {"json": {"findings": [], "summary": "looks fine"}}
STAND_IN_WORKER = SigningKey.generate()
"""The key of a test standing in for the layer workers: ``engine_on``'s Supervisor trusts it."""


def diff_action(name: str, agent: str = "agent-1") -> ActionContext:
    return ActionContext(
        agent_id=agent,
        action_type="code_diff",
        action_description=f"apply {name}",
        code_diff=(EXAMPLES / name).read_text(),
    )


@asynccontextmanager
async def engine_on(
    bus: Bus,
    *,
    llm: LLMClient | None = None,
    roles: Sequence[str] = ("supervisor", "layers"),
    **config: Any,
) -> AsyncIterator[Engine]:
    """The engine on ``bus`` under a fresh subject prefix (``roles=("supervisor",)``: no layer
    actors, so a test can stand in for them or let them be missing)."""
    subjects = Subjects(prefix=f"e{uuid.uuid4().hex[:10]}")
    policy = SupervisionPolicy(initial_backoff=0.01, drain_timeout=2.0)
    async with run_engine(
        bus=bus,
        llm=llm,
        config=ReviewConfig(**config),
        subjects=subjects,
        policy=policy,
        roles=roles,
        trusted_workers=(STAND_IN_WORKER.public_key,),
    ) as engine:
        yield engine


SWALLOWED = """\
diff --git a/app/util.py b/app/util.py
--- a/app/util.py
+++ b/app/util.py
@@ -1,2 +1,7 @@
 import json
+
+
+def load(text: str) -> object:
+    try:
+        return json.loads(text)
+    except:
+        pass
"""
"""One medium veto from the local checks (HL3, a bare except that swallows every error)."""


def swallowed_action() -> ActionContext:
    return ActionContext(
        agent_id="agent-1", action_type="code_diff", action_description="load", code_diff=SWALLOWED
    )
