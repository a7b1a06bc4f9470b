"""Shared by the tests of ``humangr reviews``, ``show`` and ``resolve``: an engine on a real
nats-server whose layers (a ``ScriptedLLM``) send one action in three to a human, and the
command line run in a thread with its output captured."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
import pytest

from humangr.actors.roles import Engine, run_engine
from humangr.cli.main import main
from humangr.contracts import ActionContext, Subjects
from humangr.engine.bus.nats import NatsBus
from humangr.engine.config import ReviewConfig
from humangr.engine.llm import ScriptedLLM
from humangr.engine.signing import SigningKey
from humangr.engine.state import MemoryStateStore, StateStore

EXAMPLES = Path(__file__).resolve().parent.parent / "examples" / "actions"
CLEAN_DIFF = EXAMPLES / "01-clean-refactor.diff"
CLEAN = {"json": {"findings": [], "summary": "looks fine"}}
CLEAN_ACTION = "act-clean"
"""The one action id whose HL2 runs find nothing: it is approved, never reviewed."""
FINDINGS = [
    {
        "severity": "high",
        "title": "Negative totals round the wrong way",
        "file": "app/pricing.py",
        "line": 13,
        "suggestion": "Use divmod on the absolute value",
    },
    {
        "severity": "medium",
        "title": "Cents are not documented in the module",
        "file": "app/pricing.py",
    },
    {
        "severity": "medium",
        "title": "Caller at line 200 still uses calc",
        "file": "app/pricing.py",
        "line": 200,
    },
    {"severity": "low", "title": "No changelog entry"},
]
"""What HL2 reports on every action but ``CLEAN_ACTION``: one high finding is a medium veto,
so the action needs a human."""
SIGNER = SigningKey.generate()
"""The key the engines of ``engine_on_nats`` sign with (the reviewer commands trust it)."""
REASON = "checked by hand: negative totals cannot happen here"


def script() -> ScriptedLLM:
    return ScriptedLLM.from_lines(
        [
            {"match": {}, **CLEAN},
            {"match": {"layer": "HL2", "action_id": CLEAN_ACTION}, **CLEAN},
            {"match": {"layer": "HL2"}, "json": {"findings": FINDINGS, "summary": "rounding"}},
        ]
    )


def pricing_action(agent: str = "agent-1") -> ActionContext:
    return ActionContext(
        agent_id=agent,
        action_type="code_diff",
        action_description="refactor pricing\nsecond line of the description",
        code_diff=CLEAN_DIFF.read_text(),
    )


@asynccontextmanager
async def engine_on_nats(
    nats_url: str, *, state: StateStore | None = None, **config: Any
) -> AsyncIterator[tuple[Engine, str]]:
    """The review engine on a real nats-server under a fresh prefix; yields it and the
    prefix."""
    prefix = f"rv{uuid.uuid4().hex[:10]}"
    bus = await NatsBus.connect(nats_url)
    try:
        async with run_engine(
            bus=bus,
            subjects=Subjects(prefix),
            llm=script(),
            state=state or MemoryStateStore(),
            config=ReviewConfig(**config),
            signing_key=SIGNER,
        ) as engine:
            yield engine, prefix
    finally:
        await bus.close()


@dataclass(frozen=True)
class Run:
    code: int
    out: str
    err: str

    def error_line(self, *fragments: str) -> str:
        """The one line of an error (exit 3, no traceback), with each fragment in it."""
        assert self.code == 3, (self.code, self.out[-2000:], self.err[-2000:])
        assert "Traceback" not in self.err, self.err
        lines = self.err.strip().splitlines()
        assert len(lines) == 1, self.err
        for fragment in fragments:
            assert fragment in lines[0], (fragment, lines[0])
        return lines[0]


async def humangr(capsys: pytest.CaptureFixture[str], *args: str) -> Run:
    """``humangr ARGS`` in a worker thread (the engine keeps running in this one)."""
    capsys.readouterr()
    code = await anyio.to_thread.run_sync(main, list(args))
    captured = capsys.readouterr()
    return Run(code, captured.out, captured.err)
